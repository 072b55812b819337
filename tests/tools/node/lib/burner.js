// SPDX-License-Identifier: BSD-2-Clause
// burner.js: a module whose top level burns 200 ms of the process's CPU
// time in burnCpu (spin below it; BURN_MS=N: N ms), and writes the window
// it burned in: `window START END PID`, CLOCK_MONOTONIC ns (the
// collector's clock).
'use strict';

function spin(n) {
	let x = 0;
	for (let i = 0; i < n; i++)
		x = (x + i * 7) % 1000003;
	return x;
}

function burnCpu(ms) {
	const t0 = process.cpuUsage();
	let sink = 0;

	for (;;) {
		sink += spin(20000);
		const t = process.cpuUsage(t0);
		if ((t.user + t.system) / 1000 >= ms)
			return sink;
	}
}

const start = process.hrtime.bigint();
burnCpu(Number(process.env.BURN_MS || 200));
const end = process.hrtime.bigint();
process.stdout.write(`window ${start} ${end} ${process.pid}\n`);
