// SPDX-License-Identifier: BSD-2-Clause
/* --metrics: the registry, the row observer and the server together; see exporter.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector/serve/boots.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/serve/exporter.h"
#include "collector/serve/http.h"
#include "collector/serve/metrics.h"
#include "collector/serve/pod_boots.h"
#include "collector/kernel/proc.h"

/* --metrics-label: this many values of each label, then "other" (docs/metrics.md) */
#define MAX_LABEL_VALUES 50

struct exporter {
	struct collector *c;
	struct metrics *m;
	struct boots *boots;
	struct pod_boots *pods;
	struct metric_series *pod[2];	/* pod_boots.h's startup and listen */
	struct http_server *http;
	unsigned labels;		/* --metrics-label: a bit per enum boot_label */
	struct metric_family *phase;
	struct metric_series *started[RT_COUNT], *running[RT_COUNT];
	struct metric_series *events, *lost;
	struct metric_series *rss, *vsize, *cpu, *start, *fds, *max_fds;
};

static void on_started(void *ctx, enum boot_runtime rt)
{
	struct exporter *e = ctx;

	metric_add(e->started[rt], 1);
	metric_add(e->running[rt], 1);
}

static void on_ended(void *ctx, enum boot_runtime rt)
{
	struct exporter *e = ctx;

	metric_add(e->running[rt], -1);
}

static void on_phase(void *ctx, enum boot_runtime rt, const char *phase,
		     const char *const labels[BL_COUNT], int64_t ns)
{
	struct exporter *e = ctx;
	const char *v[2 + BL_COUNT] = { phase, boots_runtime_name(rt) };
	struct metric_series *s;
	size_t n = 2;
	int l;

	for (l = 0; l < BL_COUNT; l++)
		if (e->labels & (1u << l))
			v[n++] = labels[l];
	s = metrics_series(e->phase, v);

	/* out of memory: this boot is not counted, the next may be */
	if (s)
		metric_observe(s, ns);
}

static void on_pod(void *ctx, enum pod_value what, int64_t ns)
{
	struct exporter *e = ctx;

	metric_observe(e->pod[what], ns);
}

/* Each row as written: the containers' boots, the pods'. */
static void on_row(void *ctx, const struct row *r)
{
	struct exporter *e = ctx;

	boots_row(e->boots, r);
	pod_boots_row(e->pods, r);
}

/* The values read when scraped: counts kept elsewhere, the process' own. */
static int render(void *ctx, struct mbuf *body)
{
	struct exporter *e = ctx;
	struct proc_usage u;
	struct rlimit rl;
	long tick = sysconf(_SC_CLK_TCK);

	metric_set(e->events, (double)boots_rows(e->boots));
	metric_set(e->lost, (double)e->c->be->ops->lost(e->c->be));
	if (proc_self_usage(&u) == 0) {
		metric_set(e->rss, (double)u.rss * (double)sysconf(_SC_PAGESIZE));
		metric_set(e->vsize, (double)u.vsize);
		metric_set(e->cpu, (double)(u.utime + u.stime) / (double)tick);
		metric_set(e->start, (double)u.btime + (double)u.starttime / (double)tick);
		metric_set(e->fds, (double)u.fds);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		metric_set(e->max_fds, (double)rl.rlim_cur);
	return metrics_expose(e->m, body);
}

/* A family of one series without labels; NULL on ENOMEM. */
static struct metric_series *single(struct metrics *m, const char *name, const char *help,
				    enum metric_type type)
{
	struct metric_family *f = metrics_family(m, name, help, type, 0, NULL, NULL, 0);

	return f ? metrics_series(f, NULL) : NULL;
}

/* Every family, in the order of the text. 0, or -1 out of memory. */
static int make_families(struct exporter *e)
{
	static const char *const label_names[BL_COUNT] = { "entrypoint", "namespace", "image" };
	const char *phase_labels[2 + BL_COUNT] = { "phase", "runtime" };
	size_t nphase = 2;
	static const char *const runtime_label[] = { "runtime" };
	static const char *const build_labels[] = { "version", "object", "mode", "kernel" };
	struct metric_family *started, *running, *build, *pods[2];
	struct utsname u;
	int i;

	for (i = 0; i < BL_COUNT; i++)
		if (e->labels & (1u << i))
			phase_labels[nphase++] = label_names[i];
	e->phase = metrics_family(e->m, "boottrace_phase_seconds",
				  "Time from a container's start to each phase of its boot: exec of its "
				  "entrypoint, first successful listen, each --mark label.",
				  METRIC_HISTOGRAM, nphase, phase_labels,
				  metrics_boot_bounds_ns, METRICS_BOOT_BOUNDS);
	started = metrics_family(e->m, "boottrace_containers_started_total",
				 "Containers whose start the collector saw.", METRIC_COUNTER, 1,
				 runtime_label, NULL, 0);
	running = metrics_family(e->m, "boottrace_containers_running",
				 "Containers started and not ended.", METRIC_GAUGE, 1, runtime_label,
				 NULL, 0);
	if (!e->phase || !started || !running)
		return -1;
	/* pods (pod_boots.h), in the kubelet SLI's buckets (its edges are among these) */
	pods[POD_STARTUP] = metrics_family(e->m, "boottrace_pod_startup_seconds",
		"A pod's startup as the kubelet's SLI counts it: from the pod's start to its "
		"containers' entrypoints exec'd, its init containers' run left out (no image pull "
		"in it); observed at its first listen.", METRIC_HISTOGRAM, 0, NULL,
		metrics_boot_bounds_ns, METRICS_BOOT_BOUNDS);
	pods[POD_LISTEN] = metrics_family(e->m, "boottrace_pod_listen_seconds",
		"From a pod's start (its CRI call's first work seen: the client's spawn, else its "
		"sandbox's cgroup) to its first listen.", METRIC_HISTOGRAM, 0, NULL,
		metrics_boot_bounds_ns, METRICS_BOOT_BOUNDS);
	for (i = 0; i < 2; i++)
		if (!pods[i] || !(e->pod[i] = metrics_series(pods[i], NULL)))
			return -1;
	/* every runtime from zero: a rate() needs the series before its first boot */
	for (i = 0; i < RT_COUNT; i++) {
		const char *v[1] = { boots_runtime_name((enum boot_runtime)i) };

		e->started[i] = metrics_series(started, v);
		e->running[i] = metrics_series(running, v);
		if (!e->started[i] || !e->running[i])
			return -1;
	}
	e->events = single(e->m, "boottrace_events_total",
			   "Rows the collector wrote (every event of every traced container).",
			   METRIC_COUNTER);
	e->lost = single(e->m, "boottrace_events_lost_total",
			 "Events the kernel dropped because the buffer was full.", METRIC_COUNTER);
	build = metrics_family(e->m, "boottrace_build_info",
			       "The collector's version, BPF object, mode and kernel; always 1.",
			       METRIC_GAUGE, 4, build_labels, NULL, 0);
	if (!e->events || !e->lost || !build)
		return -1;
	uname(&u);
	{
		const char *v[4] = { BOOTTRACE_VERSION, e->c->be->ops->name,
				     e->c->mode == BT_MODE_CGROUP ? "cgroup" : "pidtree", u.release };
		struct metric_series *s = metrics_series(build, v);

		if (!s)
			return -1;
		metric_set(s, 1);
	}
	e->cpu = single(e->m, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
			METRIC_COUNTER);
	e->fds = single(e->m, "process_open_fds", "Number of open file descriptors.", METRIC_GAUGE);
	e->max_fds = single(e->m, "process_max_fds", "Maximum number of open file descriptors.",
			    METRIC_GAUGE);
	e->vsize = single(e->m, "process_virtual_memory_bytes", "Virtual memory size in bytes.",
			  METRIC_GAUGE);
	e->rss = single(e->m, "process_resident_memory_bytes", "Resident memory size in bytes.",
			METRIC_GAUGE);
	e->start = single(e->m, "process_start_time_seconds",
			  "Start time of the process since unix epoch in seconds.", METRIC_GAUGE);
	return e->cpu && e->fds && e->max_fds && e->vsize && e->rss && e->start ? 0 : -1;
}

/* After each poll turn (c->on_turn): serve what scrapers ask, without waiting. */
static void exporter_turn(struct collector *c)
{
	if (c->exporter)
		http_turn(c->exporter->http, mono_ns());
}

int exporter_open(struct collector *c)
{
	struct boots_sink sink = { on_started, on_ended, on_phase, NULL };
	enum boots_kind kind = !c->opt.command ? BOOTS_WATCH :
			       c->opt.cgroup_glob ? BOOTS_CLIENT : BOOTS_SPAWN;
	struct exporter *e;
	char err[256];
	size_t caps[BL_COUNT];
	int i;

	if (!c->opt.metrics)
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e) {
		fprintf(stderr, "collector: --metrics: out of memory\n");
		return -1;
	}
	c->exporter = e;
	e->c = c;
	e->labels = c->opt.metrics_labels;
	for (i = 0; i < BL_COUNT; i++)
		caps[i] = e->labels & (1u << i) ? MAX_LABEL_VALUES : 0;
	sink.ctx = e;
	e->m = metrics__new();
	e->boots = boots__new(kind, &sink, caps);
	e->pods = pod_boots__new(on_pod, e);
	if (!e->m || !e->boots || !e->pods || make_families(e) < 0) {
		fprintf(stderr, "collector: --metrics: out of memory\n");
		return -1;
	}
	e->http = http__new(c->opt.metrics, render, e, err, sizeof(err));
	if (!e->http) {
		fprintf(stderr, "collector: %s\n", err);
		return -1;
	}
	c->out->on_row = on_row;
	c->out->on_row_ctx = e;
	c->on_turn = exporter_turn;
	fprintf(stderr, "collector: metrics on http://%s/metrics\n", http_addr(e->http));
	return 0;
}

void exporter_free(struct exporter *e)
{
	if (!e)
		return;
	if (e->c && e->c->out && e->c->out->on_row_ctx == e)
		e->c->out->on_row = NULL;
	http__free(e->http);
	boots__free(e->boots);
	pod_boots__free(e->pods);
	metrics__free(e->m);
	free(e);
}
