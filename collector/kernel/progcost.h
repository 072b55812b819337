/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the collector costs, said at its end (docs/costs.md): its own CPU
 * time, all of it and the part while it traced (after its programs were
 * attached: loading the object is start-up), how often it was woken
 * meanwhile (each wake-up of a reader a record asks for is an irq_work in
 * the traced task's kernel, and a switch on a busy CPU), and each BPF program's runs
 * and run time as the kernel counts them (bpf_prog_info run_cnt,
 * run_time_ns). The kernel counts those only while its run-time
 * statistics are on: the sysctl kernel.bpf_stats_enabled, or an fd of
 * BPF_ENABLE_STATS (5.8), which BOOTTRACE_BPF_STATS=1 makes the collector
 * hold for its run (a clock read on each side of every program's run,
 * some 20 to 40 ns: not on by default, nor by -v). -v says the figures
 * with whatever statistics are on; BOOTTRACE_BPF_STATS=1 turns them on
 * and says them without -v.
 *
 * A program's run time is its own: a uprobe's trap into the kernel and
 * back (--spans, --mark), some microseconds, is not in it, nor is a
 * perf event's interrupt (--profile). Every run of a program is counted,
 * those of tasks outside the traced containers (filtered out at once)
 * too.
 */
#ifndef COLLECTOR_PROGCOST_H
#define COLLECTOR_PROGCOST_H

#include <stdbool.h>
#include <stdio.h>

struct bpf_object;

struct progcost {
	bool report;			/* -v or BOOTTRACE_BPF_STATS: said at the end */
	int stats_fd;			/* BPF_ENABLE_STATS's, held; -1: none */
	unsigned long long cpu_ns0;	/* the collector's CPU time when it began tracing */
	unsigned long long wakeups0;	/* and its voluntary context switches */
	bool tracing;			/* cpu_ns0 is set */
};

/* One program's figures. */
struct progcost_prog {
	char name[32];
	unsigned long long runs, ns;
};

/*
 * At the start, before the programs are loaded: @verbose (-v) or
 * BOOTTRACE_BPF_STATS set (and not "0") make it report; the latter turns
 * the statistics on (a message when the kernel refuses).
 */
void progcost_start(struct progcost *pc, bool verbose);
/* The programs are attached: what follows is the cost of tracing. */
void progcost_tracing(struct progcost *pc);
/*
 * @obj's loaded programs into @v (at most @max), in the object's order;
 * how many. Zeros where the statistics were off.
 */
size_t progcost_read(struct bpf_object *obj, struct progcost_prog *v, size_t max);
/*
 * The table of @v to @f, the costliest first (@v is sorted), programs
 * that never ran left out: runs, ns a run, total ms. Pure.
 */
void progcost_format(FILE *f, struct progcost_prog *v, size_t n);
/* The report to stderr (when asked for, once; none without @obj), the statistics' fd closed. */
void progcost_finish(struct progcost *pc, struct bpf_object *obj);

#endif /* COLLECTOR_PROGCOST_H */
