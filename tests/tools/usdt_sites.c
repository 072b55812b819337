// SPDX-License-Identifier: BSD-2-Clause
/*
 * usdt_sites N: fires the USDT probe bt:site N times in all, alternately
 * at two places in the code (two notes of the same provider:name, two
 * addresses), as an inlined probe is. --mark usdt:...:bt:site must count
 * every one: the legacy object makes a uprobe event per site.
 */
#include <stdlib.h>
#include <sys/sdt.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, i;

	for (i = 0; i < n; i++) {
		/* different arguments: two notes the compiler cannot merge */
		if (i & 1)
			DTRACE_PROBE1(bt, site, i);
		else
			DTRACE_PROBE2(bt, site, i, n);
	}
	return 0;
}
