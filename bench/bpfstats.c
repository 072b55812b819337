// SPDX-License-Identifier: BSD-2-Clause
/*
 * bpfstats: the kernel's run-time statistics of BPF programs (run_cnt,
 * run_time_ns in bpf_prog_info, /proc/PID/fdinfo) on for as long as it
 * runs, for bench/jvm.sh: BPF_ENABLE_STATS (5.8) holds them on through an
 * fd, which the sysctl kernel.bpf_stats_enabled, written by someone else
 * meanwhile (another bench on a shared machine), cannot turn off. Prints
 * "on" when they are, then waits to be killed. Exit 1 when the kernel
 * refuses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <linux/bpf.h>

int main(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = (int)syscall(SYS_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr));
	if (fd < 0) {
		fprintf(stderr, "bpfstats: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return 1;
	}
	printf("on\n");
	fflush(stdout);
	for (;;)
		pause();
}
