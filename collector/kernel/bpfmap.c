// SPDX-License-Identifier: BSD-2-Clause
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector/kernel/bpfmap.h"

void bpfmap_counter_add(const struct bpf_map *map, __u64 key, __s64 n)
{
	__s64 v = 0;

	bpf_map__lookup_elem(map, &key, sizeof(key), &v, sizeof(v), 0);
	v += n;
	if (v > 0)
		bpf_map__update_elem(map, &key, sizeof(key), &v, sizeof(v), BPF_ANY);
	else
		bpf_map__delete_elem(map, &key, sizeof(key), 0);
}

unsigned long long bpfmap_percpu_sum(const struct bpf_map *map, __u32 key)
{
	int ncpu = libbpf_num_possible_cpus();
	unsigned long long total = 0;
	__u64 *v;
	int i;

	if (ncpu <= 0)
		return 0;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return 0;
	if (bpf_map__lookup_elem(map, &key, sizeof(key), v, sizeof(*v) * (size_t)ncpu, 0) == 0)
		for (i = 0; i < ncpu; i++)
			total += v[i];
	free(v);
	return total;
}
