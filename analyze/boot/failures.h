/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * failures: --failures, why each boot ended, from the timeline (finished):
 *   - how its init ended (boot/ending.h): its exit status or the signal;
 *   - the failed syscalls (ret < 0) of its tasks in the last stretch before
 *     its end (FAILURES_STRETCH_NS, or --failures=DURATION), grouped by
 *     syscall, errno and detail (`connect ECONNREFUSED 127.0.0.1:5432 × 12`),
 *     the group that failed last first (failures.c says why);
 *   - for an init killed by a signal, what the rows say of the sender: the
 *     task that woke the init from its last sleep (a signal wakes its
 *     target in the sender's context: the sched row's waker; an interrupt
 *     or an object that cannot tell leave it unknown; a waker outside the
 *     container is known by its host rows: what it exec'd, its parent),
 *     and the last
 *     successful kill-family syscall (kill, tkill, tgkill, rt_sigqueueinfo,
 *     rt_tgsigqueueinfo, pidfd_send_signal) of a traced task of its file
 *     in the stretch: the rows do not record a kill's target, so it is a
 *     candidate, named as such; a sender outside every container has no
 *     syscall rows (host rows are fork, exec, exit, sched);
 *   - for a boot named NAME#N (a restart: docs/tsv-format.md, container),
 *     the back-off: its start minus the end of NAME#N-1 (NAME for #2) in
 *     the same file.
 * A container without an end has none of these but its restarts.
 */
#ifndef ANALYZE_FAILURES_H
#define ANALYZE_FAILURES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"

/* The default last stretch: a crash loop's boot is seconds; its cause is at its end. */
#define FAILURES_STRETCH_NS 10000000000ULL
/* Groups of failed syscalls kept per container, the latest. */
#define FAILURES_MAX_GROUPS 10

/* Failed syscalls of one syscall, errno and detail. */
struct fail_group {
	uint32_t name;		/* the syscall: timeline_str() */
	uint32_t detail;	/* or TL_NOSTR */
	int64_t err;		/* the errno (positive) */
	uint64_t count;
	uint64_t last;		/* the last one's entry */
};

enum fail_sender {
	SENDER_NONE,		/* no signal, or nothing in the rows */
	SENDER_WAKER,		/* the task that woke the init from its last sleep */
	SENDER_IRQ,		/* it was woken from an interrupt: no task to name */
	SENDER_UNKNOWN,		/* woken, by what the object cannot tell (cur: a guess) */
	SENDER_RUNNING,		/* it was on a CPU or runnable: nothing woke it */
};

struct fail_ctr {
	size_t ctr;		/* index in the timeline's ctrs */
	uint64_t t_end;		/* its end, or TL_NONE */
	int how;		/* common/end_detail.h */
	uint32_t init;		/* its init task, or TL_NOTASK */
	uint64_t from;		/* the stretch: [from, t_end] */
	struct fail_group *groups;	/* the latest first */
	size_t ngroups;		/* kept: FAILURES_MAX_GROUPS at most */
	size_t nall;		/* groups there were */
	uint64_t failed;	/* failed syscalls in the stretch, grouped or not */
	/* the signal's sender (how >= END_SIGNAL) */
	enum fail_sender sender;
	int64_t sender_tid;
	uint32_t sender_comm;	/* or TL_NOSTR */
	uint64_t sender_ts;	/* the wake */
	/*
	 * The waker as a task of the container's timeline, when it is one: of
	 * the container, or a host task (host rows: client mode, --sched
	 * host) with what it exec'd and who made it
	 */
	bool sender_known, sender_host;
	int64_t sender_pid, sender_ppid;
	uint32_t sender_exec;	/* its last exec's file before the wake, or TL_NOSTR */
	uint32_t sender_pcomm;	/* its parent's comm, or TL_NOSTR */
	/* a kill-family syscall in the stretch: kill_ts TL_NONE when none */
	uint64_t kill_ts;
	int64_t kill_pid, kill_tid;
	uint32_t kill_name, kill_comm, kill_ctr;
	/* a restart: the boot before it (index in ctrs), and the time between */
	size_t prev;		/* SIZE_MAX: none */
	uint64_t backoff;	/* TL_NONE: the previous boot has no end */
	unsigned boot;		/* N of NAME#N; 1 for the first */
};

struct failures {
	const struct timeline *tl;
	uint64_t stretch;
	struct fail_ctr *v;	/* a timed container each, in the timeline's order */
	size_t n;
};

/*
 * failures__new - the failures of every timed container of @tl (finished),
 * with a last stretch of @stretch ns. NULL out of memory.
 */
struct failures *failures__new(const struct timeline *tl, uint64_t stretch);
/* failures__free - accepts NULL. */
void failures__free(struct failures *f);

#endif /* ANALYZE_FAILURES_H */
