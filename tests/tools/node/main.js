// SPDX-License-Identifier: BSD-2-Clause
// main.js: a node app whose module lib/burner.js burns 200 ms of CPU at
// its top level (in burnCpu), after a module of configuration and before
// a small http server that listens on 127.0.0.1:0 and exits:
// test_collector_profile_node's known truth. An argument: one more module
// to require first (the test's copy of lib/config.js at a hostile path).
'use strict';
const http = require('http');

if (process.argv[2])
	require(process.argv[2]);
const config = require('./lib/config');
require('./lib/burner');
const routes = require('./lib/routes');

const server = http.createServer((req, res) => routes.handle(req, res, config));
server.listen(0, '127.0.0.1', () => server.close());
