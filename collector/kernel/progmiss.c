// SPDX-License-Identifier: BSD-2-Clause
/* Skipped runs of the collector's BPF programs: see progmiss.h. */
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector/kernel/progmiss.h"

void progmiss_read(struct bpf_object *obj, struct progmiss *m)
{
	struct bpf_program *p;

	memset(m, 0, sizeof(*m));
	if (!obj)
		return;
	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
			continue;
		m->total += info.recursion_misses;
		if (info.recursion_misses > m->worst_n) {
			m->worst_n = info.recursion_misses;
			strncpy(m->worst, bpf_program__name(p), sizeof(m->worst) - 1);
			m->worst[sizeof(m->worst) - 1] = '\0';
		}
	}
}
