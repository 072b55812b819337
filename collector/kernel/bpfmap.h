/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Map accesses both backends (backend_modern.c, backend_perf.c) make the
 * same way on maps of the same shape.
 */
#ifndef COLLECTOR_BPFMAP_H
#define COLLECTOR_BPFMAP_H

#include <linux/types.h>

struct bpf_map;

/*
 * bpfmap_counter_add - add @n to the __s64 counter at __u64 @key of hash
 * @map (the live-task counts); a counter that drops to 0 is deleted.
 */
void bpfmap_counter_add(const struct bpf_map *map, __u64 key, __s64 n);

/* bpfmap_percpu_sum - the sum over CPUs of the __u64 at @key of per-CPU array @map. */
unsigned long long bpfmap_percpu_sum(const struct bpf_map *map, __u32 key);

#endif /* COLLECTOR_BPFMAP_H */
