// SPDX-License-Identifier: BSD-2-Clause
/* The collector's own CPU time and its BPF programs' run times: see progcost.h. */
#include <errno.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collector/kernel/progcost.h"

#define PROGCOST_MAX 64

static unsigned long long cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* The collector's waits that ended in a wake-up (voluntary context switches). */
static unsigned long long wakeups(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) < 0 ? 0 : (unsigned long long)ru.ru_nvcsw;
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* Whether the kernel counts run times now: the sysctl, or someone's fd. */
static bool stats_sysctl(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v != 0;
}

void progcost_start(struct progcost *pc, bool verbose)
{
	memset(pc, 0, sizeof(*pc));
	pc->stats_fd = -1;
	pc->report = verbose;
	if (!env_on("BOOTTRACE_BPF_STATS"))
		return;
	pc->report = true;
	pc->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (pc->stats_fd < 0)
		fprintf(stderr, "collector: BOOTTRACE_BPF_STATS: the kernel keeps no run times "
			"of BPF programs (BPF_ENABLE_STATS: %s)\n", strerror(errno));
}

void progcost_tracing(struct progcost *pc)
{
	pc->cpu_ns0 = cpu_ns();
	pc->wakeups0 = wakeups();
	pc->tracing = true;
}

size_t progcost_read(struct bpf_object *obj, struct progcost_prog *v, size_t max)
{
	struct bpf_program *p;
	size_t n = 0;

	if (!obj)
		return 0;
	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		if (n == max)
			break;
		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
			continue;
		snprintf(v[n].name, sizeof(v[n].name), "%s", bpf_program__name(p));
		v[n].runs = info.run_cnt;
		v[n].ns = info.run_time_ns;
		n++;
	}
	return n;
}

static int by_time(const void *a, const void *b)
{
	const struct progcost_prog *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->runs != y->runs)
		return x->runs < y->runs ? 1 : -1;
	return strcmp(x->name, y->name);
}

void progcost_format(FILE *f, struct progcost_prog *v, size_t n)
{
	unsigned long long runs = 0, ns = 0;
	size_t i;

	qsort(v, n, sizeof(*v), by_time);
	fprintf(f, "collector: %-24s %12s %10s %12s\n", "BPF program", "runs", "ns a run",
		"total ms");
	for (i = 0; i < n; i++) {
		if (!v[i].runs)
			continue;
		fprintf(f, "collector: %-24s %12llu %10llu %12.3f\n", v[i].name, v[i].runs,
			v[i].ns / v[i].runs, v[i].ns / 1e6);
		runs += v[i].runs;
		ns += v[i].ns;
	}
	fprintf(f, "collector: %-24s %12llu %10llu %12.3f\n", "all", runs, runs ? ns / runs : 0,
		ns / 1e6);
}

void progcost_finish(struct progcost *pc, struct bpf_object *obj)
{
	struct progcost_prog v[PROGCOST_MAX];
	unsigned long long now = cpu_ns();
	size_t n;

	if (pc->report && obj) {
		fprintf(stderr, "collector: its CPU time %.3f s", now / 1e9);
		if (pc->tracing)
			fprintf(stderr, ", %.3f s of it while tracing, woken %llu times",
				(now - pc->cpu_ns0) / 1e9, wakeups() - pc->wakeups0);
		fprintf(stderr, "\n");
		if (pc->stats_fd >= 0 || stats_sysctl()) {
			n = progcost_read(obj, v, PROGCOST_MAX);
			progcost_format(stderr, v, n);
		} else {
			fprintf(stderr, "collector: the BPF programs' run times are not counted "
				"(BOOTTRACE_BPF_STATS=1, or sysctl kernel.bpf_stats_enabled=1)\n");
		}
	}
	pc->report = false;	/* said once */
	if (pc->stats_fd >= 0)
		close(pc->stats_fd);
	pc->stats_fd = -1;
}
