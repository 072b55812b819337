/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * timeline: an in-memory model of each container's boot, built from the
 * rows of the TSV, for what needs more than per-phase minimums: the
 * critical path (critpath.h), the boot chart (bootchart.h) and exports.
 *
 * Per container (the container column within one file: the same name in
 * two files is two boots), in order of first appearance:
 *   - its start rows (all of them, by time; t_start is the earliest);
 *   - its tasks (threads, by tid), each with its pid, ppid, comms, fork
 *     (time, process or thread, the task that created it), exec points
 *     (time, filename, comm after it), its process's exit (time, status,
 *     the parent it was reported to), and its syscall rows sorted by time;
 *   - its tasks' off-CPU intervals (sched rows: when it left a CPU, in
 *     which state, when it was woken and by whom, when it got a CPU
 *     back), sorted by time, when the file has them (has_sched);
 *   - its tasks' profile samples (sample rows) with their stacks (the
 *     stack rows' frames, kept escaped: read/frames.h parses them), sorted
 *     by time, when the file has them (has_profile);
 *   - its mark rows, sorted by time;
 *   - its phase times, given by the analysis (timeline_set_phase()): this
 *     module does not decide what a phase is (analysis.h does).
 *
 * Rows are ordered per CPU only (docs/tsv-format.md): each task's rows
 * and the marks are sorted by ts at timeline_finish(), stably (rows with
 * equal ts keep their order in the file), and tasks by their begin time.
 *
 * Memory: a syscall row takes 32 bytes (struct tl_row) in its task's
 * array, a sched row 32 (struct tl_off: who woke it and who held the CPU
 * are shared, struct tl_wakeinfo, among the rows whose details say the
 * same); a task 192 bytes (struct tl_task) plus its execs and the points
 * where its comm changed (not a comm per row); every distinct string
 * (syscall names, comms, paths, addresses, pipe:[INO]) is stored once
 * (strtab). bench/analyze.sh measures 33.7 bytes of peak RSS per row on
 * its 10M-row file (321.7 MiB): the arrays' slack is not touched, so not
 * resident. Rows of the containers that --container leaves out are never
 * added.
 *
 * Strings are kept escaped, as in the file; a \N field (a syscall name or
 * label, a detail, a comm) is TL_NOSTR, which timeline_str() gives as "".
 *
 * Usage: timeline__new(); per file timeline_begin_file(), then
 * timeline_add_row() per row, timeline_set_phase() per phase of each
 * container (timeline_find_container() gives its index), and
 * timeline_end_file(); then timeline_finish() once; then read the public
 * fields (read-only) and the helpers below; timeline__free().
 * analysis.c does all of that when analyze_opts.timeline is set.
 */
#ifndef ANALYZE_TIMELINE_H
#define ANALYZE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/reader.h"
#include "analyze/read/strtab.h"

#define TL_NONE UINT64_MAX	/* no time, no duration */
#define TL_NORET INT64_MIN	/* ret is \N */
#define TL_NOSTR UINT32_MAX	/* no string (\N) */
#define TL_NOTASK UINT32_MAX	/* no such task */
/* The phase `end` (--until end): the container's end, ending.h; no phase id of the analysis' */
#define TL_PHASE_END (UINT32_MAX - 1)
#define TL_NOCPU UINT16_MAX	/* a sched row without cpu= */

/* A syscall row. 32 bytes: the timeline holds millions. */
struct tl_row {
	uint64_t ts;		/* entry, CLOCK_MONOTONIC ns */
	uint64_t dur;		/* entry to exit, or TL_NONE (\N: exit, exit_group) */
	int64_t ret;		/* or TL_NORET */
	uint32_t name;		/* the syscall's name: timeline_str() */
	uint32_t detail;	/* path, address, pipe:[INO]...: timeline_str(), or TL_NOSTR */
};

/*
 * A profile sample of a task (a sample row): when, the CPU time it stands
 * for (its dur_ns, or 0 when \N), and its stack: the stack row's frames
 * (escaped, as in the file) as a string id, or TL_NOSTR when the file had
 * no stack row of that id before it. 24 bytes.
 */
struct tl_sample {
	uint64_t ts;
	uint64_t period;
	uint32_t stack;		/* timeline_str(): the frames, innermost first */
};

/*
 * An interpreter span of a task (a span row, docs/tsv-format.md): a
 * require, load, import, class or clinit, from @ts for @dur ns, at
 * @depth in its thread's nesting (0: outermost). 40 bytes.
 */
struct tl_span {
	uint64_t ts;
	uint64_t dur;
	uint32_t kind;		/* the row's name: timeline_str() */
	uint32_t what;		/* the file, module or class, escaped: timeline_str() */
	uint32_t depth;
	uint32_t flags;		/* TL_SPAN_* */
	uint32_t parent;	/* the index of the span it is in (by time), or TL_NOSPAN */
	uint32_t caller;	/* the file that called it (caller=, Ruby), escaped:
				 * timeline_str(), or TL_NOSTR */
	uint32_t line;		/* the caller's line (line=; 0: the interpreter's own) */
};
#define TL_NOSPAN UINT32_MAX
#define TL_SPAN_RAISED 1	/* no return: ended by an outer span's */

/* A comm a task had from @ts on (its rows say when it changed). */
struct tl_comm {
	uint64_t ts;
	uint32_t comm;
};

/* An exec of a task (a successful execve: an exec row). */
struct tl_exec {
	uint64_t ts;
	uint32_t filename;	/* the exec row's detail, or TL_NOSTR */
	uint32_t comm;		/* the comm after the exec */
	bool init;		/* name = init: pid 1 of a new pid namespace */
};

/* How an off-CPU interval ended: the sched row's wake= (docs/tsv-format.md). */
enum tl_wake {
	TL_WAKE_UNKNOWN,	/* not said, or the object cannot tell */
	TL_WAKE_NONE,		/* preempted (R): runnable from the start, no wake */
	TL_WAKE_TASK,		/* a task woke it: waker */
	TL_WAKE_IRQ,		/* from a hard interrupt (a timer, a device) */
	TL_WAKE_SOFTIRQ,	/* from a softirq (timers, the network) */
	TL_WAKE_NEW,		/* a new task's first wake: waker is its creator */
};

/*
 * Who woke an off-CPU interval and who had the CPU before it got it back
 * (the sched row's detail, docs/tsv-format.md). Shared by the intervals
 * whose details say the same (timeline_off_info()): a host's tasks wake
 * and preempt each other in few combinations, so each interval keeps a
 * 4-byte id instead of these 24 bytes. With off-CPU stacks (stack= in the
 * detail) the stack is part of it: the infos are as many as the distinct
 * (waker, holder, CPU, wake, stack) of the file.
 */
struct tl_wakeinfo {
	int32_t waker;		/* the waking task's tid (TL_WAKE_TASK, _NEW), or with
				 * TL_WAKE_UNKNOWN the task current at the wake (a guess:
				 * it may be one an interrupt came in on), else 0 */
	int32_t holder;		/* the task that had the CPU before it got it back, or 0 */
	uint32_t wcomm, hcomm;	/* their comms (escaped), or TL_NOSTR */
	uint16_t cpu;		/* the CPU it got back (cpu=), or TL_NOCPU: it ran
				 * there until its next interval's out */
	uint8_t wake;		/* enum tl_wake */
	uint32_t stack;		/* its stack as it blocked (stack=): the stack row's frames,
				 * timeline_str() (escaped), or TL_NOSTR */
};

/*
 * An off-CPU interval of a task (a sched row): it left the CPU at @out and
 * got one back at @out + @dur; the last @runnable ns of that it was
 * runnable (woken, waiting for a CPU), before that blocked. 32 bytes: a
 * third of a big file's rows are these (bench/analyze.sh).
 */
struct tl_off {
	uint64_t out;		/* left the CPU */
	uint64_t dur;		/* until it got a CPU back */
	uint64_t runnable;	/* the runnable tail (<= dur), or TL_NONE: wake not seen */
	uint32_t info;		/* timeline_off_info(): its waker, holder, CPU */
	uint8_t state;		/* 'R', 'S', 'D', 'T', or '?' */
};

struct tl_task {
	int64_t pid, tid, ppid;	/* ppid: of its fork row, else of its earliest row */
	uint32_t comm;		/* its comm at its earliest row (the fork's: the parent's) */
	uint32_t comm_last;	/* at its latest row (after exec, prctl(PR_SET_NAME)) */
	bool is_thread;		/* its fork row says "thread" */
	bool has_fork;		/* it has a fork row */
	bool host;		/* a task outside the container (host_tasks.h), in its window */
	bool runtime;		/* a host task of a process that worked for the boot
				 * (host_tasks_mark_runtime()): its samples are the boot's */
	uint64_t fork_ts;	/* its fork row, or TL_NONE (created before the trace) */
	int64_t parent_tid;	/* the fork row's parent=: the thread that forked
				 * it; 0 when the row has none (older files) */
	uint32_t parent;	/* the task that created it: the fork row's
				 * parent= thread, else the thread of the fork
				 * row's process in a clone/fork/vfork syscall at
				 * fork_ts, else that process's main thread; or
				 * TL_NOTASK (no fork row, or the parent is not in
				 * the container) */
	uint64_t begin;		/* fork_ts, or its earliest row (if earlier) */
	uint64_t end;		/* the latest time it was seen: a row's end, its exit */
	/* Its process's exit row (written when the last thread exits), on
	 * the task that wrote it (the last thread); TL_NONE when none. */
	uint64_t exit_ts;
	int64_t exit_status;	/* the exit row's ret (status, or 128 + signal) */
	int64_t exit_ppid;	/* the parent at exit: who a wait4() reaps it */
	struct tl_exec *execs;	/* by time */
	size_t nexecs, execs_cap;
	struct tl_comm *comms;	/* where its rows' comm changed, by time (exec,
				 * prctl(PR_SET_NAME)); the first is its first row's */
	size_t ncomms, comms_cap;
	struct tl_row *rows;	/* its syscall rows, by time after timeline_finish() */
	size_t nrows, rows_cap;
	struct tl_off *offs;	/* its off-CPU intervals, by out after timeline_finish() */
	size_t noffs, offs_cap;
	struct tl_sample *samples;	/* its profile samples, by ts after timeline_finish() */
	size_t nsamples, samples_cap;
	struct tl_span *spans;	/* its interpreter spans, by start after timeline_finish() */
	size_t nspans, spans_cap;
	/* internal */
	uint64_t first_ts, last_ts;	/* of its rows of any kind */
	uint64_t last_end;	/* the latest end of its off-CPU intervals */
	uint32_t comm_cur;	/* the comm of the last row added */
	uint32_t seq;		/* its index before the sort by begin */
};

struct tl_mark {
	uint64_t ts;
	uint32_t label;		/* the mark row's name: timeline_str() */
	uint32_t task;		/* index in the container's tasks */
};

struct tl_start {
	uint64_t ts;
	uint32_t how;		/* the start row's name: spawn, mkdir, client, ... */
	uint32_t comm;
	uint32_t detail;	/* or TL_NOSTR */
	int64_t pid;
};

/* A phase a container reached: id as in analysis_phase_name(), absolute ts. */
struct tl_phase {
	uint32_t phase;
	uint64_t ts;
};

/* A tid of a container, for timeline_find_task(). */
struct tl_tid {
	int64_t tid;
	uint32_t task;
};

struct tl_container {
	uint32_t name;		/* timeline_str(), escaped as in the file */
	uint32_t file;		/* 0-based index of its file */
	uint64_t t_start;	/* its earliest start row, or TL_NONE (none: not timed) */
	uint64_t lost;		/* events the collector lost in its file (trailer) */
	bool is_host;		/* the hosts' rows of its file (container \\N): host_tasks.h */
	bool has_sched;		/* its file has scheduler rows (# sched=on, or a sched row):
				 * a task without off-CPU intervals ran all the time */
	bool host_rows;		/* its file has the host's rows during the container's
				 * window (# host_rows=boots or all): every task that ran
				 * on a CPU then has sched rows */
	bool has_profile;	/* its file has profile rows (a sample row) */
	bool has_spans;		/* it has span rows */
	struct tl_start *starts;	/* by time */
	size_t nstarts, starts_cap;
	struct tl_task *tasks;	/* by begin time, then tid, after timeline_finish() */
	size_t ntasks, tasks_cap;
	struct tl_mark *marks;	/* by time */
	size_t nmarks, marks_cap;
	struct tl_phase *phases;	/* in the order set */
	size_t nphases, phases_cap;
	/* its end (boot/ending.h): the end row, and what timeline_finish() made of it */
	uint64_t t_end_row;	/* its earliest end row, or TL_NONE */
	int32_t end_how;	/* the end row's detail: common/end_detail.h's END_UNKNOWN,
				 * a status, or END_SIGNAL + signal */
	int64_t end_pid;	/* the detail's init=, or -1 */
	uint64_t t_end;		/* the phase end: its last process's exit, or TL_NONE */
	uint32_t init;		/* its init task, or TL_NOTASK */
	struct tl_tid *tids;	/* sorted by tid, for timeline_find_task() */
	/* a pod's boot (pod_boot.h): the container merged into another (empty
	 * now: into is that one's index), or renamed after its pod (file_name
	 * is its name in the file); both false otherwise */
	bool merged, renamed;
	uint32_t into, file_name;
};

struct tl_index;
struct key_cache;
struct strtab;
struct detail_cache;

struct timeline {
	struct strtab *strs;	/* every string, escaped as in the file */
	struct tl_container *ctrs;
	size_t nctrs, ctrs_cap;
	struct tl_wakeinfo *infos;	/* the off-CPU intervals' distinct wake infos */
	size_t ninfos, infos_cap;
	uint64_t rows;		/* rows kept (all kinds) */
	uint64_t unplaced;	/* rows without a ts_ns or a tid: not kept */
	uint64_t samples;	/* sample rows kept */
	uint64_t orphan_samples;	/* of which naming no stack row before them */
	uint64_t off_stacks;	/* > 0: sched rows name stacks (stack=; once per distinct detail) */
	uint32_t nfiles;
	bool finished;
	/* internal: while reading */
	struct tl_index *index;	/* (container, tid) -> task */
	struct strtab *fnames;	/* the current file's container names */
	uint32_t *fmap;		/* file-local id -> index in ctrs */
	size_t fmap_cap;
	struct key_cache *kc_ctr, *kc_str;	/* in front of fnames and strs */
	struct strtab *peers, *infokeys;	/* (tid, comm) pairs; wake infos, as keys */
	struct key_cache *kc_peer, *kc_info;	/* in front of them */
	struct detail_cache *dcache;	/* sched details -> infos (timeline.c) */
	bool file_sched;	/* the current file's # sched=on */
	bool file_host_rows;	/* the current file's # host_rows=boots or all */
	struct strtab *fstacks;	/* the current file's stack ids (a stack row's name) */
	uint32_t *fstack;	/* stack id index -> the frames' string id */
	size_t fstack_cap;
};

/* timeline__new - an empty timeline, or NULL when out of memory. */
struct timeline *timeline__new(void);
/* timeline__free - free it and everything in it; accepts NULL. */
void timeline__free(struct timeline *tl);

/* timeline_begin_file - start a new file. 0, or -1 out of memory. */
int timeline_begin_file(struct timeline *tl);

/*
 * timeline_file_sched - the current file's metadata says the collector
 * wrote scheduler rows (# sched=on): its containers have has_sched even
 * without a sched row. Call before its first row.
 */
void timeline_file_sched(struct timeline *tl, bool sched);

/*
 * timeline_file_host_rows - the current file's metadata says it has the
 * host's rows (# host_rows=boots or all): its containers have host_rows.
 * Call before its first row.
 */
void timeline_file_host_rows(struct timeline *tl, bool host_rows);

/*
 * timeline_add_row - keep row @r of the current file (validated by the
 * reader, with its pid, tid and ppid converted: not TSV_NO_IDS). "end"
 * rows are kept as the container's t_end_row, end_how and end_pid; rows
 * without a ts_ns or tid are not kept. As with
 * analysis_add_row(), the 15 bytes after each field must be readable (the
 * reader's rows are; names are compared 8 bytes at a time). Returns 0, or
 * -1 out of memory (the timeline is then only fit to be freed).
 */
int timeline_add_row(struct timeline *tl, const struct tsv_row *r);

/*
 * timeline_find_container - the index in tl->ctrs of container @name (@n
 * bytes, escaped) of the current file, or -1 when it has no row.
 */
long timeline_find_container(const struct timeline *tl, const char *name, size_t n);

/*
 * timeline_set_phase - container @ctr reached phase @phase (an id of the
 * analysis' phase names) at @ts (absolute). 0, or -1 out of memory.
 */
int timeline_set_phase(struct timeline *tl, size_t ctr, uint32_t phase, uint64_t ts);

/* timeline_end_file - the current file is read; @lost: its trailer's count. */
void timeline_end_file(struct timeline *tl, uint64_t lost);

/*
 * timeline_finish - sort every task's rows, the marks and the tasks, and
 * link each task to its parent. Call once, after the last file. 0, or -1
 * out of memory.
 */
int timeline_finish(struct timeline *tl);

/* timeline_str - string @id (NUL-terminated, escaped as in TSV); "" for TL_NOSTR. */
const char *timeline_str(const struct timeline *tl, uint32_t id);

/*
 * timeline_span_over - the innermost span of @t over more than half of
 * [@a, @b) (one that holds all of it, or one that a stretch runs past by
 * less than it covers: an import whose stretch of CPU starts before its
 * span row and ends a few us after it), else the innermost that holds
 * @a; NULL when none does. Binary searches, then up the parents (the
 * nesting's depth).
 */
const struct tl_span *timeline_span_over(const struct tl_task *t, uint64_t a, uint64_t b);

/*
 * A container's tasks by pid: entries sorted by tl_pid_ix_cmp (pid, then
 * task index), searched with tl_pid_ix_first (timeline.c finds a fork's
 * parent with one, host_tasks.c a process's threads).
 */
struct tl_pid_ix {
	int64_t pid;
	uint32_t task;
};

int tl_pid_ix_cmp(const void *x, const void *y);

/* tl_pid_ix_first - the first entry of @pid in @ix (@n entries, sorted), or @n. */
size_t tl_pid_ix_first(const struct tl_pid_ix *ix, size_t n, int64_t pid);

/* timeline_find_task - the index of thread @tid in @c, or TL_NOTASK. */
uint32_t timeline_find_task(const struct tl_container *c, int64_t tid);

/*
 * timeline_phase - the absolute time container @c reached phase @phase
 * (TL_PHASE_END: its end, after timeline_finish()), or TL_NONE.
 */
uint64_t timeline_phase(const struct tl_container *c, uint32_t phase);

/*
 * timeline_row_before - the index of the last row of @t that entered
 * before @ts (row.ts < @ts), or -1 when none. Binary search.
 */
long timeline_row_before(const struct tl_task *t, uint64_t ts);

/*
 * timeline_row_end - when row @r returned: ts + dur (ts when dur is \N),
 * saturated below TL_NONE (hostile rows may hold any 64-bit values).
 */
static inline uint64_t timeline_row_end(const struct tl_row *r)
{
	if (r->dur == TL_NONE)
		return r->ts;
	return r->dur < TL_NONE - 1 - r->ts ? r->ts + r->dur : TL_NONE - 1;
}

/*
 * timeline_off_before - the index of the last off-CPU interval of @t that
 * began before @ts (out < @ts), or -1 when none. Binary search.
 */
long timeline_off_before(const struct tl_task *t, uint64_t ts);

/*
 * timeline_sample_from - the index of the first sample of @t at or after
 * @ts (t->nsamples when none). Binary search.
 */
size_t timeline_sample_from(const struct tl_task *t, uint64_t ts);

/*
 * timeline_off_wake - when interval @o's task was woken: out + dur -
 * runnable; out when the wake was not seen and the state is R (runnable
 * throughout); the end (blocked throughout) when it was not seen otherwise.
 */
static inline uint64_t timeline_off_wake(const struct tl_off *o)
{
	if (o->runnable != TL_NONE)
		return o->out + o->dur - o->runnable;
	return o->state == 'R' ? o->out : o->out + o->dur;
}

/* timeline_off_info - who woke @o, who held the CPU, which CPU (@o of @tl). */
static inline const struct tl_wakeinfo *timeline_off_info(const struct timeline *tl,
							  const struct tl_off *o)
{
	return &tl->infos[o->info];
}

/* timeline_wake_name - "task", "irq", "softirq", "new", "none" or "unknown". */
const char *timeline_wake_name(enum tl_wake w);

/*
 * timeline_comm_at - the comm of @t at time @ts: of its latest row at or
 * before @ts (of its first row before that).
 */
uint32_t timeline_comm_at(const struct tl_task *t, uint64_t ts);

#endif /* ANALYZE_TIMELINE_H */
