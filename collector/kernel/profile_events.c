// SPDX-License-Identifier: BSD-2-Clause
/*
 * --profile's perf events (profile_events.h). An offline CPU has no event (the
 * kernel refuses it: ENODEV), and gets none if it comes online later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <bpf/libbpf.h>

#include "collector/kernel/profile_events.h"

struct profile {
	int n;
	struct bpf_link **links;
};

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int profile__start(struct bpf_program *prog, unsigned hz, struct profile **out)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = profile_period_ns(hz),	/* the CPU clock counts ns */
	};
	struct profile *p;
	int ncpu = libbpf_num_possible_cpus(), cpu, fd, err;

	if (ncpu < 0) {
		fprintf(stderr, "collector: --profile: cannot count the CPUs: %s\n", strerror(-ncpu));
		return ncpu;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->links = calloc((size_t)ncpu, sizeof(*p->links)))) {
		free(p);
		return -ENOMEM;
	}
	p->n = ncpu;
	for (cpu = 0; cpu < ncpu; cpu++) {
		fd = perf_event_open(&attr, -1, cpu);
		if (fd < 0) {
			if (errno == ENODEV)
				continue;	/* offline */
			err = -errno;
			fprintf(stderr, "collector: --profile: perf_event_open on CPU %d: %s%s\n", cpu,
				strerror(errno), errno == EACCES || errno == EPERM ?
				" (needs root or CAP_PERFMON; see /proc/sys/kernel/perf_event_paranoid)" : "");
			goto fail;
		}
		p->links[cpu] = bpf_program__attach_perf_event(prog, fd);
		if (!p->links[cpu]) {
			err = -errno;
			close(fd);
			fprintf(stderr, "collector: --profile: cannot attach to CPU %d's event: %s\n",
				cpu, strerror(-err));
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	profile__stop(p);
	return err;
}

void profile__stop(struct profile *p)
{
	int i;

	if (!p)
		return;
	/* the link owns its event's fd: bpf_link__destroy() closes it */
	for (i = 0; i < p->n; i++)
		bpf_link__destroy(p->links[i]);
	free(p->links);
	free(p);
}
