/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * critpath: the critical path of a container's boot — the chain of
 * segments from its start to the moment it reached a phase, walked back
 * from the task and time that reached the phase (--critical-path).
 *
 * The walk, at (task, time t), going back:
 *   - in a syscall row that holds t: a segment "syscall NAME" up to t from
 *     the row's entry — unless the syscall returned because of another task
 *     (below): then the part from that task's event to t stays the
 *     syscall's, and the walk goes on in that task at that event (an
 *     exit/exit_group row, which has no dur_ns, lasts until the process's
 *     exit row when it is the task's last);
 *   - between two syscall rows of the task: "cpu" (running in user space,
 *     page faults, waiting for a CPU: a syscall-only trace cannot tell);
 *     "unknown" instead when the collector lost events in that file (a gap
 *     may hide rows);
 *   - at the task's creation (its fork row): on in the task that created it
 *     (the thread the row names, parent=; else the thread in
 *     clone/fork/vfork at that moment), at that moment;
 *   - a task with no creator in the container: "runtime" back to the start
 *     (the start row's task: the runtime or the spawner, before the
 *     container's first task).
 * Segments are clipped at the start and tile [t_start, phase] exactly, in
 * integer ns: contiguous, none negative or overlapping; zero-length ones
 * are left out.
 *
 * Wake-ups followed (the syscall's row holds the time t; the event must
 * fall between the row's entry and t, and the other task must have begun
 * before it):
 *   - wait4/waitpid returning a pid (> 0), waitid returning 0: the exit of
 *     a process reported to the waiter (its exit row's ppid) — the one
 *     whose pid is the return value ("by pid"), else, inside a pid
 *     namespace where the pids differ, the first to exit ("by time");
 *     WNOHANG (0), EINTR and ECHILD (< 0) are not followed;
 *   - rt_sigtimedwait, rt_sigsuspend, pause returning a signal or EINTR:
 *     the first exit of a child in the window (SIGCHLD, as tini waits);
 *   - read/readv of a pipe whose detail is pipe:[INO] (collectors that
 *     record it): returning > 0, the last write/writev to the same pipe by
 *     another task that entered before the read returned and returned after
 *     it entered ("pipe write"); returning 0 (end of file), the last exit in
 *     the window of a process that wrote to that pipe ("pipe EOF");
 *   - read/readv without an inode, and poll, ppoll, select, pselect6,
 *     epoll_wait, epoll_pwait, epoll_pwait2 returning >= 0 (read) or > 0:
 *     the last exit in the window of a descendant of the reader's process,
 *     when the syscall returned within CRITPATH_PIPE_SLACK_NS of it, or an
 *     eighth of the syscall's duration if that is more ("by time": the
 *     shell's x=$(cmd) and cmd | ...);
 *   - clone, clone3, vfork holding a child's fork that exec'd or exited
 *     before the call returned (vfork, posix_spawn): that exec or exit.
 * Not followed (the time stays the waiter's): futex, pipes written by a
 * task that did not exit, sockets, signals other than SIGCHLD.
 *
 * With scheduler rows (the container's has_sched: the collector wrote when
 * each task left a CPU, was woken, by whom, and got a CPU back), every
 * segment also has a state, and the walk follows wake-ups instead of the
 * syscall rules above, whatever the syscall (futex, sockets, epoll,
 * signals, pipes, the exec fifo):
 *   - running: on a CPU (in user space, kind cpu, or in a syscall);
 *   - runnable: woken (or preempted), waiting for a CPU: the segment names
 *     the task that had the CPU before it got it back (by, by_comm) and
 *     the CPU (cpu); cpu_share_fill() adds every task that ran on that
 *     CPU during it, by its share (cpu_share.h);
 *   - blocked: off CPU, from when it left to its wake-up. When a task of
 *     the container woke it (wake=task or new, the waker begun before the
 *     wake, not a kernel thread: a kworker serves the whole host, woken
 *     by whoever queued work first), the walk goes on in that task at the
 *     wake (match
 *     CP_MATCH_WAKE on the segment after it: the runnable one, or the
 *     running one when the CPU came at once), and no blocked segment is
 *     left; otherwise the segment says what woke it: an interrupt, a
 *     softirq (timers, the network), or a task outside the container
 *     (by, by_comm). The objects that cannot tell a task's wake from an
 *     interrupt's (legacy, compat: wake=unknown) name the task current at
 *     the wake: the walk follows it too when it is of the container and
 *     could have woken it (it was in a syscall or exiting: a task in user
 *     space wakes nobody; and not a sleep or a poll that returned 0, which
 *     its timer ended), marked CP_MATCH_WAKE_CUR ("current at the wake"):
 *     right when a task woke it, wrong when an interrupt came in on that
 *     task while it was in the kernel;
 *   - unknown: no scheduler rows (a file from before them, --sched off),
 *     and the runtime's segment before the container's first task.
 * A task without off-CPU intervals ran all the time. Lost events make a
 * state only as good as the rows that arrived (the file's lost count says).
 */
#ifndef ANALYZE_CRITPATH_H
#define ANALYZE_CRITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"

/* How long after a descendant's exit a read or poll may return to be its wake-up (at least). */
#define CRITPATH_PIPE_SLACK_NS 2000000ULL

enum cp_kind {
	CP_RUNTIME,	/* before the container's first task: the start row's */
	CP_CPU,		/* between syscalls: user + faults + runqueue */
	CP_SYSCALL,	/* in a syscall: blocked or kernel CPU (unknown which) */
	CP_UNKNOWN,	/* between syscalls in a file with lost events */
};

/* What a wake-up was matched by (a syscall segment's tail). */
enum cp_match {
	CP_MATCH_NONE,
	CP_MATCH_PID,		/* wait4's return value */
	CP_MATCH_TIME,		/* the only or first/last exit in the window */
	CP_MATCH_PIPE,		/* the pipe's inode */
	CP_MATCH_CLONE,		/* the child of the clone exec'd or exited */
	CP_MATCH_WAKE,		/* a scheduler row's waker */
	CP_MATCH_WAKE_CUR,	/* wake=unknown: the task current at the wake (a guess) */
};

/* A segment's scheduler state (with scheduler rows; else unknown). */
enum cp_state {
	CP_ST_UNKNOWN,
	CP_ST_RUNNING,
	CP_ST_RUNNABLE,
	CP_ST_BLOCKED,
	CP_ST_MAX,
};

struct cp_seg {
	uint64_t ts, dur;	/* absolute start, length (> 0) */
	uint32_t task;		/* index in the container's tasks; TL_NOTASK for runtime */
	uint8_t kind;		/* enum cp_kind */
	uint8_t match;		/* enum cp_match: the walk went on in another task */
	uint8_t event;		/* with match: CP_EV_EXIT, CP_EV_EXEC or CP_EV_WRITE */
	uint32_t name;		/* CP_SYSCALL: the syscall (timeline_str) */
	uint32_t detail;	/* CP_SYSCALL: the row's detail, or TL_NOSTR */
	uint32_t other;		/* with match: the task it went on in */
	uint8_t state;		/* enum cp_state */
	uint8_t off_state;	/* runnable, blocked: the sched row's 'R', 'S', 'D', 'T', '?' */
	uint8_t wake;		/* blocked: how it was woken (enum tl_wake); runnable: too */
	int32_t by;		/* blocked: the waker outside the container (tid) or 0;
				 * runnable: the task that had the CPU last, or 0 */
	uint32_t by_comm;	/* its comm (timeline_str), or TL_NOSTR */
	uint16_t cpu;		/* runnable: the CPU it waited for (got back), or TL_NOCPU */
	uint32_t stack;		/* blocked: its stack as it blocked (tl_wakeinfo), TL_NOSTR */
};

/*
 * A task that ran on a runnable segment's CPU during it, for how long
 * (cpu_share.h fills them in).
 */
struct cp_share {
	uint64_t ns;		/* its running time inside the segment */
	uint32_t seg;		/* index in the path's segs */
	int32_t tid, pid;
	uint32_t comm;		/* timeline_str(), its comm then */
};

enum { CP_EV_EXIT = 1, CP_EV_EXEC, CP_EV_WRITE, CP_EV_WAKE };

struct cp_path {
	size_t ctr;		/* index in tl->ctrs */
	uint64_t t0, t1;	/* the container's start and the phase (absolute) */
	uint32_t target;	/* the task that reached the phase, or TL_NOTASK */
	struct cp_seg *segs;	/* by time */
	size_t nsegs;
	size_t followed;	/* wake-ups followed into another task */
	size_t guessed;		/* tasks without a fork row whose parent was taken from ppid */
	/* Who ran on the CPU of each runnable segment (cpu_share_fill()):
	 * by seg, then most time first; NULL until filled. */
	struct cp_share *shares;
	size_t nshares;
	bool shares_filled;	/* cpu_share_fill() ran on this path */
};

/*
 * critpath_build - the path of container @ctr of @tl to phase @phase
 * (named @phase_name: a mark label, escaped, for phases past listen)
 * into @p. Returns 1 with the path, 0 when the container did not reach
 * the phase (or has no start, or the phase is not after it, or its row
 * cannot be found), -1 out of memory. Free with critpath_release().
 */
int critpath_build(const struct timeline *tl, size_t ctr, uint32_t phase,
		   const char *phase_name, struct cp_path *p);

/* critpath_release - free what critpath_build() allocated in @p; accepts an empty one. */
void critpath_release(struct cp_path *p);

/* critpath_kind_name - "runtime", "cpu", "syscall" or "unknown". */
const char *critpath_kind_name(enum cp_kind k);

/* critpath_state_name - "running", "runnable", "blocked" or "unknown". */
const char *critpath_state_name(enum cp_state s);

#endif /* ANALYZE_CRITPATH_H */
