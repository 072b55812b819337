// SPDX-License-Identifier: BSD-2-Clause
// routes.js: the app's one route (main.js).
'use strict';
const url = require('url');

exports.handle = function handle(req, res, config) {
	const u = new url.URL(req.url, 'http://localhost');
	res.end(JSON.stringify({ app: config.name, path: u.pathname }));
};
