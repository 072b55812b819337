// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * boottrace, legacy object: loads on kernel 4.15 (Ubuntu 18.04), where the
 * seed's bpftrace script could not tie a child's syscalls to its container.
 * Pidtree attribution only (bpf_get_current_cgroup_id is 4.18): a task is
 * traced iff its tid is in `tasks`; a tracked parent's child is added at
 * sched_process_fork, which fires before the child can run.
 *
 * Built a second time with -DBT_COMPAT: the compat object, for kernels
 * 4.18 to 5.14 (RHEL 8, Ubuntu 20.04, Debian 11, Amazon Linux 2), where the
 * modern object cannot load. The same programs, and cgroup mode besides
 * (bpf/cgroups_compat.bpf.h): current_task() decides who is traced, by
 * `tasks` or by the cgroup; cgroup_mode() is 0 in the legacy build.
 *
 * What 4.15 lacks, and what is done instead (tests/tools/bpfcheck checks
 * the object for all of it):
 *   BTF, CO-RE, tp_btf (4.17+/5.5)  classic tracepoints; the context is the
 *                    raw record, read at offsets user space takes from tracefs
 *                    (raw_syscalls' with loads when they are the usual ones,
 *                    see BT_LEGACY_RAW_SYSCALLS; else with bpf_probe_read)
 *   global data (5.2)                the `config` array map
 *   ring buffer (5.8)                a perf event array
 *   bounded loops (5.3)              none
 *   BPF-to-BPF calls (4.16)          everything __always_inline
 *   helpers after id 57              bpf_probe_read(_str) for user and
 *                    kernel memory alike (x86 has split address spaces)
 *   map values as map helper keys/values (4.18): keys and values passed to
 *                    bpf_map_*_elem are on the stack; big records are built
 *                    in a map value (map values may go to other helpers)
 *   fetch-and-add results (5.12, BPF_FETCH): __sync_fetch_and_add only as a
 *                    statement (BPF_XADD); see new_root_key (in
 *                    bpf/watch_legacy.bpf.h) and bt_exit for how results
 *                    are decided without it
 *
 * What that costs (ppid at fork time, listen addresses from bind with the
 * kernel's port found by the collector, exit codes from exit_group and
 * signals, ...): docs/legacy-object.md.
 *
 * Cost: the syscall programs run for every syscall on the host, and a
 * helper call is dear (a call and a return, each behind the Spectre/SRSO
 * mitigations of the day), so a traced syscall makes as few as it can:
 * sys_enter bpf_get_current_pid_tgid, one `tasks` lookup, bpf_ktime_get_ns;
 * sys_exit the same three, bpf_get_current_comm and the lookup of the
 * CPU's batch (`batches`), where the record built in the task's `tasks`
 * entry is copied: bpf_perf_event_output once per BT_BATCH_MAX records.
 * Array lookups (config) are inlined by the verifier (4.13+).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <asm/unistd_64.h>
#include "bpf/boottrace.h"
#include "bpf/boottrace_legacy.h"
#include "bpf/syscalls.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define CLONE_VM	0x00000100
#define CLONE_VFORK	0x00004000
#define CLONE_PARENT	0x00008000
#define CLONE_THREAD	0x00010000
#define CLONE_NEWNS	0x00020000
#define CLONE_NEWPID	0x20000000

/* A socket address as bind(2)/connect(2) pass it: sockaddr_storage is 128 bytes. */
#define SOCKADDR_MAX 128

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_legacy_config);
} config SEC(".maps");

/* tid -> container and syscall in progress (see bpf/boottrace_legacy.h) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct bt_legacy_task);
} tasks SEC(".maps");

/* tgid -> live traced threads, exit code */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct bt_legacy_proc);
} procs SEC(".maps");

/* container key -> live traced tasks (BT_EV_GONE at 0) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __s64);
} live SEC(".maps");

/*
 * tgid -> its parent's pid, for the tasks whose entry says ppid_pending:
 * user space found it in /proc (see make_root). A map of its own, because
 * user space never rewrites a `tasks` entry (the kernel writes its
 * syscall in progress meanwhile). LRU: entries are never deleted one by one.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} ppid_fix SEC(".maps");

/*
 * The address a socket was bound to, for the listen() record: listen(2)
 * carries no address and this object cannot walk task->files (a port 0
 * the kernel replaced, the collector finds through the fd). `born`
 * keeps a reused pid from matching a dead process's entries; LRU, because
 * entries of sockets closed by exit or exec are never deleted one by one.
 */
struct bind_key {
	__u64 born;
	__u32 tgid;
	__u32 fd;
};

struct bind_addr {
	__u32 len;
	__u32 pad;
	char addr[SOCKADDR_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BT_MAX_TASKS);
	__type(key, struct bind_key);
	__type(value, struct bind_addr);
} binds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/*
 * Plain syscall records wait here, per CPU, and go to the perf buffer
 * BT_BATCH_MAX at a time (struct bt_batch, as the modern object's):
 * bpf_perf_event_output per record was 46% of what tracing a syscall cost
 * (docs/legacy-object.md).
 * The batch of a CPU is flushed when it is full, before any other record
 * is written on that CPU (emit()), and at every syscall exit of the
 * collector's flush thread (config.flush_tid) on that CPU: 4.15 has no
 * cheap task-switch hook (a classic sched_switch program would cost every
 * context switch of the host), so the collector goes to each CPU whose
 * records have waited and makes a syscall there (collector/kernel/batch.c).
 *
 * Only programs that cannot be preempted touch it: the tracepoints. The
 * uprobe programs of bpf/marks_legacy.bpf.h can be on recent kernels, and
 * leave it alone (emit_unbatched()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_batch);
} batches SEC(".maps");

/* What was lost, per CPU: BT_LEGACY_LOST_RECORDS, BT_LEGACY_LOST_OUTPUTS. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/*
 * Records other than syscalls' are built here: the biggest is 336 bytes
 * (576 in the compat object: a cgroup's), the stack has 512 (syscall
 * records are built in the task's entry).
 */
union record {
	struct bt_event_hdr hdr;
	struct bt_syscall_event sc;
	struct bt_syscall_detail_event scd;
	struct bt_fork_event fork;
	struct bt_exec_event exec;
	struct bt_exit_event exit;
	struct bt_root_event root;
	struct bt_mark_event mark;
	struct bt_sched_event sched;
#ifdef BT_COMPAT
	struct bt_cgroup_event cg;
#endif
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, union record);
} scratch SEC(".maps");

static __always_inline struct bt_legacy_config *get_config(void)
{
	__u32 zero = 0;
	struct bt_legacy_config *cfg = bpf_map_lookup_elem(&config, &zero);

	return cfg && cfg->ready ? cfg : NULL;
}

static __always_inline union record *get_record(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/*
 * cgroup mode, which only the compat build has (bpf/cgroups_compat.bpf.h):
 * in the legacy build a constant 0, and the code it guards is not built.
 */
#ifdef BT_COMPAT
#define cgroup_mode(cfg) ((cfg)->flags & BT_LEGACY_CGROUP)
#else
#define cgroup_mode(cfg) 0
#endif

/*
 * A field of the tracepoint record at a run-time offset: the verifier only
 * lets programs load from the context at constant offsets.
 */
static __always_inline int ctx_read(void *ctx, __u32 off, void *dst, __u32 size)
{
	return bpf_probe_read(dst, size, (char *)ctx + (off & 0xfff));
}

/*
 * raw_syscalls fields. With BT_LEGACY_RAW_SYSCALLS the offsets are the
 * usual ones (user space checked them in tracefs) and a load reads them;
 * else a bpf_probe_read at the offsets from tracefs. The loads are at
 * constant offsets, as the verifier wants (tp_prog_is_valid_access():
 * aligned, past the 8 bytes of common fields, 4.7+).
 */
#define RAW_ID		8	/* sys_enter and sys_exit: long id */
#define RAW_ARGS	16	/* sys_enter: unsigned long args[6] */
#define RAW_RET		16	/* sys_exit: long ret */

/*
 * In asm: clang would otherwise share `ctx + off` between paths and load
 * through the sum, which the verifier refuses ("dereference of modified
 * ctx ptr"): the offset must be in the load instruction itself.
 */
#define ctx_long(ctx, off) ({						\
	long __v;							\
	asm volatile("%[v] = *(u64 *)(%[c] + %[o])"			\
		     : [v] "=r"(__v) : [c] "r"(ctx), [o] "i"(off));	\
	__v;								\
})

static __always_inline long enter_nr(void *ctx, struct bt_legacy_config *cfg)
{
	long nr = -1;

	if (cfg->flags & BT_LEGACY_RAW_SYSCALLS)
		return ctx_long(ctx, RAW_ID);
	ctx_read(ctx, cfg->enter_id, &nr, sizeof(nr));
	return nr;
}

/* The first three arguments, what the programs use. */
static __always_inline void enter_args(void *ctx, struct bt_legacy_config *cfg,
				       unsigned long *args)
{
	if (cfg->flags & BT_LEGACY_RAW_SYSCALLS) {
		args[0] = ctx_long(ctx, RAW_ARGS);
		args[1] = ctx_long(ctx, RAW_ARGS + 8);
		args[2] = ctx_long(ctx, RAW_ARGS + 16);
		return;
	}
	ctx_read(ctx, cfg->enter_args, args, 3 * sizeof(*args));
}

static __always_inline long exit_nr(void *ctx, struct bt_legacy_config *cfg)
{
	long nr = -1;

	if (cfg->flags & BT_LEGACY_RAW_SYSCALLS)
		return ctx_long(ctx, RAW_ID);
	ctx_read(ctx, cfg->exit_id, &nr, sizeof(nr));
	return nr;
}

static __always_inline long exit_ret(void *ctx, struct bt_legacy_config *cfg)
{
	long ret = -1;

	if (cfg->flags & BT_LEGACY_RAW_SYSCALLS)
		return ctx_long(ctx, RAW_RET);
	ctx_read(ctx, cfg->exit_ret, &ret, sizeof(ret));
	return ret;
}

static __always_inline void lost_inc(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&lost, &what);

	/* per CPU, and programs do not nest on a CPU: no atomic needed */
	if (n)
		*n += 1;
}

/* A record is lost: not made, or not written. */
static __always_inline void count_lost(void)
{
	lost_inc(BT_LEGACY_LOST_RECORDS);
}

/* Write record @r; for the uprobe programs, which must not flush `batches`. */
static __always_inline void emit_unbatched(void *ctx, void *r, __u32 size)
{
	if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, r, size)) {
		count_lost();
		lost_inc(BT_LEGACY_LOST_OUTPUTS);
	}
}

/*
 * Write batch @b to the perf buffer as one record and empty it. Its rows,
 * if lost, are counted by the collector from the gap in seq: 4.15's
 * bpf_perf_event_output() does not say when it fails.
 */
static __always_inline void batch_flush(void *ctx, struct bt_batch *b)
{
	__u64 n = b->count, size;

	if (n > BT_BATCH_MAX)
		n = BT_BATCH_MAX;
	size = __builtin_offsetof(struct bt_batch, rec) + n * sizeof(b->rec[0]);
	b->type = BT_EV_BATCH;
	if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, b, size))
		lost_inc(BT_LEGACY_LOST_OUTPUTS);
	b->seq += n;
	b->flushes++;
	b->count = 0;
}

/* Flush this CPU's batch, if it holds anything. */
static __always_inline void flush_pending(void *ctx)
{
	__u32 zero = 0;
	struct bt_batch *b = bpf_map_lookup_elem(&batches, &zero);

	if (b && b->count)
		batch_flush(ctx, b);
}

/*
 * Write record @r, after the CPU's batch: one task's records stay in the
 * order it made them, on this CPU.
 */
static __always_inline void emit(void *ctx, void *r, __u32 size)
{
	flush_pending(ctx);
	emit_unbatched(ctx, r, size);
}

/* Add plain syscall record @e to the CPU's batch, flushed when full. */
static __always_inline void batch_add(void *ctx, const struct bt_syscall_event *e)
{
	__u32 zero = 0, n;
	struct bt_batch *b = bpf_map_lookup_elem(&batches, &zero);

	if (!b) {
		count_lost();
		return;
	}
	n = b->count;
	/* loads and stores, no helper: both are map values */
	__builtin_memcpy(&b->rec[n & (BT_BATCH_MAX - 1)], e, sizeof(*e));
	b->count = n + 1;
	if (n + 1 >= BT_BATCH_MAX)
		batch_flush(ctx, b);
}

/*
 * The header of a record about task @tid of process @tgid, which the
 * current task is or just forked: a child has its parent's comm until it
 * execs.
 */
static __always_inline void fill_hdr_of(struct bt_event_hdr *h, __u32 type, __u64 ts, __u64 key,
					__u32 tgid, __u32 tid, __u32 ppid)
{
	h->ts_ns = ts;
	h->cgroup_id = key;
	h->type = type;
	h->pid = tgid;
	h->tid = tid;
	h->ppid = ppid;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* The header of a record about the current task. */
static __always_inline void fill_hdr(struct bt_event_hdr *h, __u32 type, __u64 ts,
				     __u64 key, __u32 ppid)
{
	__u64 id = bpf_get_current_pid_tgid();

	fill_hdr_of(h, type, ts, key, id >> 32, (__u32)id, ppid);
}

static __always_inline int syscall_wanted(struct bt_legacy_config *cfg, long nr)
{
	__u64 u = nr;

	if (cfg->flags & BT_LEGACY_NO_SYSCALLS)
		return 0;
	if (cfg->flags & BT_LEGACY_ALL_SYSCALLS)
		return 1;
	if (nr < 0 || nr >= BT_MAX_SYSCALLS)
		return 0;
	return (cfg->syscall_mask[(u >> 6) & (BT_MAX_SYSCALLS / 64 - 1)] >> (u & 63)) & 1;
}

/* The syscalls the object needs to see whatever the filter says. */
static __always_inline int syscall_needed(long nr)
{
	return nr == __NR_clone || nr == __NR_clone3 || nr == __NR_fork ||
	       nr == __NR_vfork || nr == __NR_exit || nr == __NR_exit_group ||
	       nr == __NR_bind || nr == __NR_close;
}

/* Whether sys_enter reads the arguments of @nr: getppid has none to read. */
static __always_inline int args_used(long nr)
{
	return syscall_needed(nr) || nr == __NR_connect || nr == __NR_listen ||
	       path_arg(nr) >= 0;
}

/*
 * The task's parent, when user space found it (a root made in place):
 * from then on its records carry it.
 */
static __always_inline void take_ppid(struct bt_legacy_task *t)
{
	__u32 tgid = t->tgid, *pp = bpf_map_lookup_elem(&ppid_fix, &tgid);

	if (pp && *pp) {
		t->ppid = *pp;
		t->ppid_pending = 0;
	}
}

/*
 * The process entry of @tgid. Through a copy on the stack: before 4.18 the
 * verifier takes map keys and values from the stack only, not from map
 * values (the key here would be in `tasks`).
 */
static __always_inline struct bt_legacy_proc *proc_of(__u32 tgid)
{
	return bpf_map_lookup_elem(&procs, &tgid);
}

/* live[key] += 1 */
static __always_inline void live_inc(__u64 key)
{
	__s64 one = 1, *v = bpf_map_lookup_elem(&live, &key);

	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (bpf_map_update_elem(&live, &key, &one, BPF_NOEXIST) == 0)
		return;
	/* another CPU made it meanwhile */
	v = bpf_map_lookup_elem(&live, &key);
	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Watch mode: a task's parent, as `parents` keeps it (bpf/watch_legacy.bpf.h). */
struct parent_info {
	__u32 ppid;
	char comm[BT_COMM_LEN];
};

/*
 * The big values that go to map helpers, which take them from the stack
 * only (before 4.18). clang gives each inlined function's locals a slot of
 * their own, and a `tasks` entry is 368 bytes of the 512: a program that
 * needs more than one of these shares one buffer, passed down.
 */
union stack_buf {
	struct bt_legacy_task task;
	struct bt_legacy_proc proc;
	struct bind_addr ba;
	struct parent_info pi;
};

/*
 * Task @tid joins container @key (pidtree: and counts in `live`), charged to process @tgid (@new_proc: it
 * is that process's first task), with parent @ppid (@pending: 0 until user
 * space finds it). @buf: stack space. False when a map is full: the task
 * goes untraced, which the lost count says.
 */
static __always_inline int adopt(struct bt_legacy_config *cfg, __u32 tid, __u64 key, __u32 tgid,
				 __u32 ppid, int new_proc, int pending, union stack_buf *buf)
{
	struct bt_legacy_task *t = &buf->task;
	struct bt_legacy_proc *p = &buf->proc, *pp;

	/* field by field: an initialiser may become a .rodata constant (5.2) */
	__builtin_memset(t, 0, sizeof(*t));
	t->key = key;
	t->tgid = tgid;
	t->ppid = ppid;
	t->ppid_pending = pending;
	if (bpf_map_update_elem(&tasks, &tid, t, BPF_ANY)) {
		count_lost();
		return 0;
	}
	if (!cgroup_mode(cfg))
		live_inc(key);
	if (!new_proc) {
		pp = bpf_map_lookup_elem(&procs, &tgid);
		if (pp) {
			__sync_fetch_and_add(&pp->threads, 1);
			return 1;
		}
	}
	/* a new life of this pid: replaces what a missed exit left */
	__builtin_memset(p, 0, sizeof(*p));
	p->threads = 1;
	p->born = bpf_ktime_get_ns();
	bpf_map_update_elem(&procs, &tgid, p, BPF_ANY);
	return 1;
}

#ifdef BT_COMPAT
#include "bpf/cgroups_compat.bpf.h"
#endif

/*
 * The entry of the current task (thread @tid of process @tgid) if it is
 * traced. pidtree mode: its entry in `tasks`, which only adopt() makes.
 * cgroup mode (compat): its cgroup is tracked, and the entry is made on
 * first use (its parent, unknown here, comes from user space through
 * ppid_fix) and keyed by that cgroup. @buf: stack space.
 */
static __always_inline struct bt_legacy_task *current_task(struct bt_legacy_config *cfg, __u32 tid,
							   __u32 tgid, union stack_buf *buf)
{
#ifdef BT_COMPAT
	struct bt_legacy_task *t;
	__u64 cgid;

	if (cgroup_mode(cfg)) {
		cgid = current_tracked_cgroup();
		if (!cgid)
			return NULL;
		t = bpf_map_lookup_elem(&tasks, &tid);
		if (!t) {
			if (!adopt(cfg, tid, cgid, tgid, 0, 0, 1, buf))
				return NULL;
			t = bpf_map_lookup_elem(&tasks, &tid);
			if (!t)
				return NULL;
		}
		/* where the task is now: it may have moved (a nested cgroup) */
		t->key = cgid;
		return t;
	}
#endif
	(void)buf;
	(void)tgid;
	return bpf_map_lookup_elem(&tasks, &tid);
}

#include "bpf/marks_legacy.bpf.h"

/* Scheduler rows (--sched on): their own file. */
#include "bpf/sched_legacy.bpf.h"

#ifdef BT_COMPAT
/* --profile: the sampling program (4.18's bpf_get_stack), in a file of its own */
#include "bpf/profile_legacy.bpf.h"
#endif

/* Watch mode (pidtree): roots found by their namespaces; its own file. */
#include "bpf/watch_legacy.bpf.h"

/*
 * The path at t->path into the record. It fails when the string's page is
 * not in memory yet (no page faults here): the first use of a string in a
 * fresh binary's data. sys_exit tries again: the kernel has read it since.
 */
static __always_inline void read_path(struct bt_legacy_task *t)
{
	int len = bpf_probe_read_str(t->rec.detail, sizeof(t->rec.detail), (void *)t->path);

	if (len > 0) {
		t->rec.sc.detail_kind = BT_DETAIL_PATH;
		t->rec.sc.detail_len = len;
	}
}

SEC("tracepoint/raw_syscalls/sys_enter")
int bt_sys_enter(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct bt_legacy_proc *p;
	unsigned long args[3] = {};
	union stack_buf buf;
	__u64 id, ts;
	__u32 tid, tgid;
	long nr;
	int wanted, i, len;

	if (!cfg)
		return 0;
	id = bpf_get_current_pid_tgid();
	tid = (__u32)id;
	tgid = id >> 32;
	t = current_task(cfg, tid, tgid, &buf);
	if (!t) {
		if (cfg->flags & BT_LEGACY_WATCH)
			watch_enter(ctx, cfg, tid);
		return 0;
	}
	nr = enter_nr(ctx, cfg);
	wanted = syscall_wanted(cfg, nr);
	if (!wanted && !syscall_needed(nr))
		return 0;
	ts = bpf_ktime_get_ns();
	if (t->ppid_pending)
		take_ppid(t);
	if ((cfg->flags & BT_LEGACY_RAW_SYSCALLS) || args_used(nr))
		enter_args(ctx, cfg, args);

	if (nr == __NR_exit || nr == __NR_exit_group) {
		/*
		 * The exit code, best effort: what the process passes here,
		 * as a wait(2) status. exit_group is final; exit(2) counts
		 * for the leader (wait reports the leader's), until one is.
		 */
		p = proc_of(t->tgid);
		if (p && p->exit_how != BT_LEGACY_EXIT_FINAL &&
		    (nr == __NR_exit_group || tid == tgid)) {
			p->exit_code = (args[0] & 0xff) << 8;
			p->exit_how = nr == __NR_exit_group ? BT_LEGACY_EXIT_FINAL :
							      BT_LEGACY_EXIT_LEADER;
		}
		if (wanted) {
			/* never returns: the record goes now, without ret or duration */
			union record *r = get_record();

			if (!r) {
				count_lost();
				return 0;
			}
			fill_hdr(&r->hdr, BT_EV_SYSCALL, ts, t->key, t->ppid);
			r->sc.dur_ns = 0;
			r->sc.ret = 0;
			r->sc.nr = nr;
			r->sc.flags = BT_SC_NORETURN;
			r->sc.detail_kind = BT_DETAIL_NONE;
			r->sc.pad = 0;
			r->sc.detail_len = 0;
			r->sc.fd = 0;
			emit(ctx, r, sizeof(r->sc));
		}
		return 0;
	}
	if (nr == __NR_close) {
		/* the fd's bind address, if any, is no more */
		struct bind_key bk = { .tgid = t->tgid, .fd = args[0] };

		p = proc_of(t->tgid);
		if (p) {
			bk.born = p->born;
			bpf_map_delete_elem(&binds, &bk);
		}
		if (!wanted)
			return 0;
	}

	/* the record of this syscall, in the task's entry until sys_exit */
	t->rec.sc.hdr.ts_ns = ts;
	t->rec.sc.nr = nr;
	t->rec.sc.detail_kind = BT_DETAIL_NONE;
	t->rec.sc.detail_len = 0;
	t->want = wanted;

	if (nr == __NR_clone) {
		t->clone_flags = args[0];
	} else if (nr == __NR_clone3) {
		t->clone_flags = 0;
		bpf_probe_read(&t->clone_flags, sizeof(t->clone_flags), (void *)args[0]);
	} else if (nr == __NR_fork) {
		t->clone_flags = 0;
	} else if (nr == __NR_vfork) {
		t->clone_flags = CLONE_VM | CLONE_VFORK;
	} else if (nr == __NR_bind || nr == __NR_connect) {
		len = args[2];
		t->fd = args[0];
		if (len > SOCKADDR_MAX)
			len = SOCKADDR_MAX;
		/* 1..128 as the verifier sees it too: older ones refuse a size that may be 0 */
		if (len > 0 && bpf_probe_read(t->rec.detail, ((len - 1) & (SOCKADDR_MAX - 1)) + 1,
					      (void *)args[1]) == 0) {
			t->rec.sc.detail_kind = BT_DETAIL_SOCKADDR;
			t->rec.sc.detail_len = len;
		}
	} else if (nr == __NR_listen) {
		t->fd = args[0];
	} else if (wanted) {
		i = path_arg(nr);
		if (i >= 0) {
			t->path = i == 0 ? args[0] : args[1];
			read_path(t);
		}
	}
	return 0;
}

/* bind() succeeded: keep the address for the socket's listen(). */
static __always_inline void remember_bind(struct bt_legacy_task *t, union stack_buf *buf)
{
	struct bind_key bk = { .tgid = t->tgid, .fd = t->fd };
	struct bind_addr *ba = &buf->ba;
	struct bt_legacy_proc *p = proc_of(t->tgid);

	if (!p)
		return;
	bk.born = p->born;
	ba->len = t->rec.sc.detail_len;
	if (ba->len > SOCKADDR_MAX)
		ba->len = SOCKADDR_MAX;
	ba->pad = 0;
	/* loads and stores, no helper: both are ours */
	__builtin_memcpy(ba->addr, t->rec.detail, sizeof(ba->addr));
	bpf_map_update_elem(&binds, &bk, ba, BPF_ANY);
}

/* listen() succeeded: its socket's bind address as the detail, when known. */
static __always_inline void listen_addr(struct bt_legacy_task *t)
{
	struct bind_key bk = { .tgid = t->tgid, .fd = t->fd };
	struct bt_legacy_proc *p = proc_of(t->tgid);
	struct bind_addr *ba;

	if (!p)
		return;
	bk.born = p->born;
	ba = bpf_map_lookup_elem(&binds, &bk);
	if (!ba)
		return;
	__builtin_memcpy(t->rec.detail, ba->addr, SOCKADDR_MAX);
	t->rec.sc.detail_kind = BT_DETAIL_SOCKADDR;
	t->rec.sc.detail_len = ba->len;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int bt_sys_exit(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct bt_syscall_detail_event *r;
	union stack_buf buf;
	__u64 id, now;
	__u32 tid;
	long nr, ret;

	if (!cfg)
		return 0;
	id = bpf_get_current_pid_tgid();
	tid = (__u32)id;
#ifdef BT_COMPAT
	/*
	 * cgroup mode: the rest of the host pays a second helper call and
	 * an inlined load here, not a hash look-up; a task that left its
	 * tracked cgroup during the syscall loses that syscall's row.
	 */
	if (cgroup_mode(cfg) && tid != cfg->flush_tid && !current_tracked_cgroup())
		return 0;
#endif
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t) {
		if (tid == cfg->flush_tid)
			flush_pending(ctx);
		else if (cfg->flags & BT_LEGACY_WATCH)
			watch_exit(ctx, cfg, tid, exit_nr(ctx, cfg), &buf);
		return 0;
	}
	r = &t->rec;
	if (!r->sc.hdr.ts_ns)
		return 0;
	now = bpf_ktime_get_ns();
	nr = exit_nr(ctx, cfg);
	ret = exit_ret(ctx, cfg);
	/* an entry without its exit (the task was tracked meanwhile): drop it */
	if (nr != r->sc.nr)
		goto out;
	if (nr == __NR_bind && ret == 0 && r->sc.detail_kind == BT_DETAIL_SOCKADDR)
		remember_bind(t, &buf);
	if (!t->want)
		goto out;
	if (nr == __NR_listen && ret == 0)
		listen_addr(t);
	/* a path sys_enter could not read (path_retry()) */
	if (r->sc.detail_kind == BT_DETAIL_NONE && path_retry(nr, ret))
		read_path(t);

	/* ts_ns, nr, detail_kind, detail_len and detail are sys_enter's */
	r->sc.hdr.cgroup_id = t->key;
	r->sc.hdr.type = r->sc.detail_kind == BT_DETAIL_NONE ? BT_EV_SYSCALL :
							       BT_EV_SYSCALL_DETAIL;
	r->sc.hdr.pid = id >> 32;
	r->sc.hdr.tid = tid;
	r->sc.hdr.ppid = t->ppid;
	bpf_get_current_comm(r->sc.hdr.comm, sizeof(r->sc.hdr.comm));
	r->sc.dur_ns = now - r->sc.hdr.ts_ns;
	r->sc.ret = ret;
	r->sc.flags = 0;
	r->sc.pad = 0;
	r->sc.fd = 0;
	if (nr == __NR_listen) {
		/*
		 * The port the kernel chose (a bind() to port 0, autobind)
		 * is in no argument and this object cannot read the socket:
		 * the collector finds it through the fd, while the socket is
		 * open. So the record goes now, not with its batch (up to
		 * 100 ms later): a listen is rare.
		 */
		r->sc.flags = BT_SC_FD;
		r->sc.fd = t->fd;
	}
	if (r->sc.detail_kind == BT_DETAIL_NONE && nr != __NR_listen)
		batch_add(ctx, &r->sc);
	else
		emit(ctx, r, r->sc.detail_kind == BT_DETAIL_NONE ? sizeof(r->sc) : sizeof(*r));
	/* a syscall that may have blocked: was its switch-in traced? */
	if ((cfg->flags & BT_LEGACY_SCHED) && r->sc.dur_ns >= BT_SCHED_IN_CHECK_NS)
		sched_running(ctx, tid, r->sc.hdr.ts_ns, now);
out:
	r->sc.hdr.ts_ns = 0;
	return 0;
}

/*
 * Whether the task the current one (@t) is forking is a thread, from the
 * clone flags of the syscall in progress. A task made outside clone,
 * fork and vfork is a kernel-made thread of the process (io_uring
 * workers, 5.12+).
 */
static __always_inline __u64 fork_flags(struct bt_legacy_task *t)
{
	__u32 nr = t->rec.sc.nr;

	if (!t->rec.sc.hdr.ts_ns)
		return 0;
	if (nr == __NR_clone || nr == __NR_clone3 || nr == __NR_fork || nr == __NR_vfork)
		return t->clone_flags;
	return CLONE_THREAD;
}

SEC("tracepoint/sched/sched_process_fork")
int bt_fork(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct ns_pending *p;
	union stack_buf buf;
	union record *r;
	__u64 id = bpf_get_current_pid_tgid(), flags, key, ns;
	__u32 ptid = (__u32)id, ptgid = id >> 32, ppid, child = 0, ctgid;
	int is_thread;

	if (!cfg)
		return 0;
	if (ctx_read(ctx, cfg->fork_child_pid, &child, sizeof(child)) || !child)
		return 0;
	/* first: a root made below may report the time its child inherits */
	if (cfg->flags & BT_LEGACY_START)
		mark_start_inherit(ptid, child);
	t = current_task(cfg, ptid, ptgid, &buf);
	if (!t) {
		if (!(cfg->flags & BT_LEGACY_WATCH))
			return 0;
		buf.pi.ppid = ptgid;
		bpf_get_current_comm(buf.pi.comm, sizeof(buf.pi.comm));
		bpf_map_update_elem(&parents, &child, &buf.pi, BPF_ANY);
		p = bpf_map_lookup_elem(&pending, &ptid);
		if (!p)
			return 0;
		ns = p->clone_ns | p->next_child;
		p->next_child = 0;
		if (ns)
			make_root(ctx, cfg, child, child, ns, 0, &buf);
		return 0;
	}
	key = t->key;
	flags = fork_flags(t);
	is_thread = (flags & CLONE_THREAD) != 0;
	ctgid = is_thread ? ptgid : child;
	/* a thread's (and CLONE_PARENT's) parent is its creator's parent */
	ppid = is_thread || (flags & CLONE_PARENT) ? t->ppid : ptgid;
	/* before the child can run: it is traced from its first instruction */
	if (!adopt(cfg, child, key, ctgid, ppid, !is_thread, is_thread && t->ppid_pending, &buf))
		return 0;

	r = get_record();
	if (!r) {
		count_lost();
		return 0;
	}
	r->fork.hdr.ts_ns = bpf_ktime_get_ns();
	r->fork.hdr.cgroup_id = key;
	r->fork.hdr.type = BT_EV_FORK;
	r->fork.hdr.pid = ctgid;
	r->fork.hdr.tid = child;
	r->fork.hdr.ppid = ptgid;
	bpf_get_current_comm(r->fork.hdr.comm, sizeof(r->fork.hdr.comm));
	r->fork.parent_tid = ptid;
	r->fork.is_thread = is_thread;
	emit(ctx, r, sizeof(r->fork));
	return 0;
}

SEC("tracepoint/sched/sched_process_exec")
int bt_exec(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	union stack_buf buf;
	union record *r;
	__u32 pid = 0, old = 0, loc = 0;

	if (!cfg)
		return 0;
	ctx_read(ctx, cfg->exec_pid, &pid, sizeof(pid));
	ctx_read(ctx, cfg->exec_old_pid, &old, sizeof(old));
	if (old != pid && (cfg->flags & BT_LEGACY_START))
		mark_start_move(old, pid);
	if (old != pid) {
		/*
		 * A thread that is not the leader exec'd: it took the
		 * leader's pid (de_thread(); the leader has exited). Move its
		 * entry, execve in progress and all, so it stays traced and its
		 * execve returns.
		 */
		t = bpf_map_lookup_elem(&tasks, &old);
		if (t) {
			buf.task = *t;
			if (bpf_map_update_elem(&tasks, &pid, &buf.task, BPF_ANY)) {
				count_lost();
				return 0;
			}
			bpf_map_delete_elem(&tasks, &old);
		} else if (!cgroup_mode(cfg)) {
			return 0;
		}
	}
	/* after an exec the task leads its process: pid is the tgid */
	t = current_task(cfg, pid, pid, &buf);
	if (!t)
		return 0;
	r = get_record();
	if (!r) {
		count_lost();
		return 0;
	}
	fill_hdr(&r->exec.hdr, BT_EV_EXEC, bpf_ktime_get_ns(), t->key, t->ppid);
	r->exec.old_tid = old;
	r->exec.flags = 0;
	/* __data_loc: the string's offset in the record in the low 16 bits */
	ctx_read(ctx, cfg->exec_filename, &loc, sizeof(loc));
	if (bpf_probe_read_str(r->exec.filename, sizeof(r->exec.filename),
			       (char *)ctx + (loc & 0xffff)) < 0)
		r->exec.filename[0] = '\0';
	emit(ctx, r, sizeof(r->exec));
	return 0;
}

/*
 * A traced task exits: the process with its last traced thread, the
 * container with its last task (pidtree mode). Decrements use no fetch result (see the
 * top): a count read back at 0 by two CPUs at once is decided by which of
 * them deletes the entry.
 */
SEC("tracepoint/sched/sched_process_exit")
int bt_exit(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct bt_legacy_proc *p;
	union record *r;
	__u64 key;
	__s64 *v;
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), tgid, ppid, code;

	if (!cfg)
		return 0;
	if (cfg->flags & BT_LEGACY_START)
		bpf_map_delete_elem(&mark_starts, &tid);
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t) {
		/* pid reuse must not find a dead task's requests */
		if (cfg->flags & BT_LEGACY_WATCH)
			bpf_map_delete_elem(&pending, &tid);
		return 0;
	}
	key = t->key;
	tgid = t->tgid;
	ppid = t->ppid;
	bpf_map_delete_elem(&tasks, &tid);
#ifdef BT_COMPAT
	/* cgroup mode: the exit row is the cgroup's where the task dies, if it is tracked */
	if (cgroup_mode(cfg))
		key = current_tracked_cgroup();
#endif

	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p) {
		__sync_fetch_and_add(&p->threads, -1);
		code = p->exit_code;
		if (p->threads <= 0 && bpf_map_delete_elem(&procs, &tgid) == 0 && key) {
			r = get_record();
			if (r) {
				fill_hdr(&r->exit.hdr, BT_EV_EXIT, bpf_ktime_get_ns(), key, ppid);
				r->exit.exit_code = code;
				r->exit.pad = 0;
				emit(ctx, r, sizeof(r->exit));
			} else {
				count_lost();
			}
		}
	}

	if (cgroup_mode(cfg))
		return 0;	/* containers end with their cgroups */
	v = bpf_map_lookup_elem(&live, &key);
	if (!v)
		return 0;
	__sync_fetch_and_add(v, -1);
	if (*v > 0 || bpf_map_delete_elem(&live, &key))
		return 0;
	r = get_record();
	if (!r) {
		count_lost();
		return 0;
	}
	fill_hdr(&r->hdr, BT_EV_GONE, bpf_ktime_get_ns(), key, ppid);
	emit(ctx, r, sizeof(r->hdr));
	return 0;
}

/* Exit codes from signals: their own file. */
#include "bpf/signals_legacy.bpf.h"
