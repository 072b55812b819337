// SPDX-License-Identifier: BSD-2-Clause
// config.js: a module of settings, read at load (main.js).
'use strict';
const path = require('path');

const defaults = { name: 'nodeburn', port: 0, root: path.resolve(__dirname, '..') };
module.exports = Object.assign({}, defaults, { env: process.env.NODE_ENV || 'development' });
