// SPDX-License-Identifier: BSD-2-Clause
/*
 * usdt_sema: the USDT probe bt:sema with a semaphore, as probes built for
 * dtrace -G or with _SDT_HAS_SEMAPHORES have: the program fires it only
 * while a tracer has counted bt_sema_semaphore up (libbpf does, through
 * the kernel's uprobe reference counter, 4.20+). The legacy object cannot
 * (4.15's uprobe_events has no reference counter) and refuses it.
 * usdt_sema N: N chances to fire, 10 ms apart.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdlib.h>
#include <time.h>
#include <sys/sdt.h>

/* sdt.h's name for it: PROVIDER_NAME_semaphore, in .probes */
unsigned short bt_sema_semaphore __attribute__((section(".probes"), used));

int main(int argc, char **argv)
{
	struct timespec ms10 = { 0, 10 * 1000 * 1000 };
	long n = argc > 1 ? atol(argv[1]) : 1, i;

	for (i = 0; i < n; i++) {
		if (*(volatile unsigned short *)&bt_sema_semaphore)
			DTRACE_PROBE1(bt, sema, i);
		nanosleep(&ms10, NULL);
	}
	return 0;
}
