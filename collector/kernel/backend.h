/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel side as the collector sees it. Two implementations deliver
 * the records of bpf/boottrace.h to the same callback:
 *
 *   backend_modern.c  bpf/boottrace.bpf.c: CO-RE, tp_btf, ring buffer;
 *                     cgroup or pidtree attribution (5.15+, with BTF)
 *   backend_perf.c    the two builds of bpf/boottrace_legacy.bpf.c:
 *                     classic tracepoints, perf event array, config in a
 *                     map. The legacy object: pidtree only (4.15+); the
 *                     compat object: cgroup or pidtree (4.18+)
 *
 * In pidtree mode hdr.cgroup_id of every record is the container key
 * (see BT_KEY_KERNEL in bpf/boottrace.h), not a cgroup id.
 */
#ifndef COLLECTOR_BACKEND_H
#define COLLECTOR_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/kernel/progmiss.h"

/*
 * A test knob (docs/legacy-object.md): whether environment variable @name
 * is set and not "0". Set-up and the perf backend read theirs with it.
 */
static inline int test_knob(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

enum bt_mode { BT_MODE_CGROUP, BT_MODE_PIDTREE };

/*
 * The ring buffer's default size, MiB. With user stacks copied (--profile
 * or off-CPU stacks unwound by CFI: up to 16 KiB a record) records come at
 * tens of MB/s while the collector unwinds each: a JVM server's boot at
 * 999 Hz writes ~20 MB/s (jetty9, tests/integration/test_collector_profile_
 * jetty.sh), so 8 MiB let a collector kept off its CPU ~0.4 s lose
 * events (it did, under ASan beside other tests); 32 MiB gives it ~1.6 s.
 */
#define BT_RINGBUF_MB 8
#define BT_RINGBUF_MB_COPIES 32

struct backend_config {
	enum bt_mode mode;
	/*
	 * Watch mode. cgroup: a new cgroup v2 directory is tracked at
	 * cgroup_mkdir. pidtree: a task that makes a new pid or mount
	 * namespace becomes a container root (BT_EV_ROOT).
	 */
	bool watch;
	bool trace_all_syscalls;	/* else only those in syscall_mask */
	bool trace_no_syscalls;
	bool sched;			/* --sched on: BT_EV_SCHED records */
	unsigned profile_hz;		/* --profile: BT_EV_SAMPLE records (ops->samples), 0: off */
	unsigned profile_stack;		/* and the user stack copied, bytes (ops->ustack_copy), 0: none */
	bool offcpu_stacks;		/* --offcpu-stacks on: BT_EV_OFFSTACK records (ops->offcpu_stacks) */
	__u64 syscall_mask[BT_MAX_SYSCALLS / 64];
	/*
	 * ring buffer size (modern) or perf buffer size per CPU (legacy,
	 * compat); 0: the backend's default (BT_RINGBUF_MB, or
	 * BT_RINGBUF_MB_COPIES when the modern object copies user stacks)
	 */
	unsigned long buffer_mb;
	bool marks;			/* --mark or --start: load the mark programs */
	bool start_mark;		/* --start: and the ones that carry its time */
	bool spans;			/* --spans on: load bpf/spans.bpf.h's program (modern) */
	unsigned int nmarks;		/* how many (legacy, compat: loads copies 0 .. nmarks-1) */
	__u32 mark_start_mask;		/* legacy, compat: bit i, mark i is the --start probe */
	int verbose;			/* print open/load/attach times */
	unsigned long long started_ns;	/* CLOCK_MONOTONIC at start, for those times */
	/* every record, in the order the buffer gives them */
	int (*on_event)(void *ctx, void *data, size_t size);
	void *ctx;
};

struct backend;

struct backend_ops {
	const char *name;		/* "modern", "legacy", "compat" */
	bool samples;			/* it has --profile's sampling program */
	bool ustack_copy;		/* and it copies user stacks (--profile-unwind=dwarf) */
	bool offcpu_stacks;		/* it takes a task's stacks as it blocks (--offcpu-stacks) */
	/* Wait up to timeout_ms, deliver what is there; 0 or -errno. */
	int (*poll)(struct backend *b, int timeout_ms);
	/* Deliver everything pending without waiting; 0 or -errno. */
	int (*drain)(struct backend *b);
	/* cgroup mode: trace tasks of this cgroup (-errno when impossible). */
	int (*track_cgroup)(struct backend *b, __u64 cgid);
	void (*untrack_cgroup)(struct backend *b, __u64 cgid);
	/*
	 * pidtree mode: trace thread @tid as part of container @key, and
	 * (in the kernel) every task it forks from now on. 0 or -errno.
	 */
	int (*track_task)(struct backend *b, pid_t tid, __u64 key);
	void (*untrack_task)(struct backend *b, pid_t tid);
	/*
	 * Host rows (BT_KEY_HOST records: fork, exec, exit and, with sched,
	 * sched of every task outside the traced containers but the
	 * collector's own) from now on, or no more.
	 */
	void (*host_rows)(struct backend *b, bool on);
	/*
	 * --profile: process @tgid runs interpreter @p, whose frames its
	 * samples carry (bpf/interp.bpf.h); @p NULL: no more. 0 or -errno.
	 * NULL in an object without interpreter frames (legacy, compat).
	 */
	int (*interp_set)(struct backend *b, __u32 tgid, const struct bt_interp_proc *p);
	/*
	 * --profile: process @tgid is a JVM whose frames the sampling
	 * program walks with @p (bpf/hotspot.bpf.h), registered with
	 * interp_set() as BT_INTERP_HOTSPOT; @p NULL: no more. 0 or -errno.
	 * NULL where interp_set is.
	 */
	int (*hotspot_set)(struct backend *b, __u32 tgid, const struct bt_hotspot_proc *p);
	/* Records dropped because the buffer was full, counted exactly. */
	unsigned long long (*lost)(struct backend *b);
	/* Runs of the object's programs the kernel skipped (progmiss.h). */
	void (*missed)(struct backend *b, struct progmiss *m);
	/*
	 * Off-CPU intervals whose switch-in the kernel did not trace and
	 * whose end nothing bounded: not written (sched_running() in
	 * bpf/sched.bpf.h). NULL: the object does not count them.
	 */
	unsigned long long (*unended)(struct backend *b);
	/* The loaded object, for its programs' figures (progcost.h). */
	struct bpf_object *(*object)(struct backend *b);
	void (*destroy)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	struct backend_config cfg;
};

/*
 * Open, configure, load and attach. On failure: -errno, and a message on
 * stderr that says what is missing ("collector: ..."); *out untouched.
 */
int backend_modern_open(const struct backend_config *cfg, struct backend **out);
int backend_legacy_open(const struct backend_config *cfg, struct backend **out);
int backend_compat_open(const struct backend_config *cfg, struct backend **out);

/* The modern object's skeleton, for what attaches later (marks); NULL for the others. */
struct boottrace_bpf;
struct boottrace_bpf *backend_modern_skel(struct backend *b);

/*
 * The legacy and compat objects: copy @idx (< cfg.nmarks) of the mark
 * program on a uprobe at file offset @offset of @path (@retprobe: a
 * uretprobe), made the 4.15 way: an event "boottrace_<pid>/mark<idx>_<n>"
 * in tracefs uprobe_events, perf_event_open on its id. destroy() closes
 * the perf events, then removes the uprobe events. 0, or -errno after a
 * message.
 */
int backend_perf_attach_uprobe(struct backend *b, unsigned int idx, const char *path,
				 unsigned long long offset, bool retprobe);

#endif /* COLLECTOR_BACKEND_H */
