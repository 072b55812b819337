/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The collector's clock: CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns(),
 * so user space and the BPF records' ts_ns compare directly.
 */
#ifndef COLLECTOR_CLOCK_H
#define COLLECTOR_CLOCK_H

#include <time.h>

/* CLOCK_MONOTONIC now, in ns. */
static inline unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* ms elapsed since @t0 (a mono_ns() value), for -v's timings. */
static inline double ms_since(unsigned long long t0)
{
	return (double)(mono_ns() - t0) / 1e6;
}

#endif /* COLLECTOR_CLOCK_H */
