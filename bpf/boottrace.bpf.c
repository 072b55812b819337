// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * boottrace, modern object: kernels with BTF, bpf_get_current_cgroup_id()
 * (4.18), ring buffers (5.8), task storage (5.11). Attribution by cgroup v2
 * id: a task is traced when its cgroup is in `tracked`.
 *
 * Programs are tp_btf (BTF-typed raw tracepoints): no tracefs needed, and
 * this works where kprobes are compiled out and fentry is refused.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "bpf/boottrace.h"
#include <asm/unistd_64.h>
#include "bpf/syscalls.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10

/*
 * Types whose layout the ABI fixes, declared here rather than taken from
 * vmlinux.h, whose types all carry CO-RE relocations: libbpf looks each
 * relocated type up by scanning every type of the kernel's BTF (126,000
 * here, 1.5 ms a type), a cost paid at every start.
 */
struct bt_sockaddr_in {
	__u16 family;
	__u16 port;		/* network order */
	__u32 addr;
	__u8 zero[8];
};

struct bt_sockaddr_in6 {
	__u16 family;
	__u16 port;
	__u32 flowinfo;
	__u8 addr[16];
	__u32 scope_id;
};

/* x86-64's struct pt_regs: the saved user registers of a syscall */
struct bt_pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
	unsigned long orig_ax, ip, cs, flags, sp, ss;
};

/* Syscall argument @i (0..2) from the registers sys_enter and sys_exit are given. */
static __always_inline unsigned long syscall_arg(const struct pt_regs *regs, int i)
{
	const struct bt_pt_regs *r = (const void *)regs;

	return i == 0 ? r->di : i == 1 ? r->si : r->dx;
}

#define barrier() asm volatile("" ::: "memory")
#define READ_ONCE(x) (*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))

/* Tunables, set by the collector between open and load. */
const volatile bool trace_all_syscalls = true;
const volatile bool trace_no_syscalls = false;
const volatile __u64 syscall_mask[BT_MAX_SYSCALLS / 64];
/* Watch mode: a new cgroup v2 directory becomes a tracked container. */
const volatile bool watch_mkdir = false;
/* Wake the reader only once this much data waits (batched wake-ups). */
const volatile __u64 wakeup_bytes = 1 << 20;
/*
 * pidtree mode: a task is traced when its sc_state holds a container key,
 * set by user space for a container's first process (through a pidfd) and
 * inherited at fork, in the kernel, before the child can run.
 */
const volatile bool pidtree = false;
/* pidtree watch mode: a task that makes a new pid or mount namespace roots a container. */
const volatile bool watch_roots = false;
/*
 * --spans: a traced task's exec wakes the reader at once, which attaches
 * the interpreter the task runs (collector/kernel/spans.c) before its
 * first requires when it can: with batched wake-ups the exec record
 * waited for the next 10 ms poll, and a copied python3.11 lost its first
 * 7 to 12 imports of 249 in 2 runs of 3 (bench/spans/boot.py).
 */
const volatile bool exec_wakeup = false;

/*
 * The cheapest possible "no" for the rest of the host: a direct-mapped
 * table indexed by the low bits of the cgroup id (ids are kernfs inode
 * numbers, allocated in sequence, so they spread well). A slot holds the
 * tracked id that owns it, BT_FILTER_SHARED when two tracked ids collide
 * (then the hash map decides), or 0. An untraced task pays one helper call
 * and one load: no hash, no lock.
 */
__u64 filter[BT_FILTER_SLOTS];

/* Tracked cgroup ids (containers and the cgroups nested in them). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u8);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);	/* resized by the collector */
} events SEC(".maps");

/*
 * Plain syscall records wait here, per CPU, and go to the ring buffer
 * BT_BATCH_MAX at a time: a reserve and a commit per record were a third
 * of what tracing a syscall cost. The batch of a CPU is flushed when it
 * is full, when the CPU switches tasks (bt_sched_switch: a task's records
 * are out before it runs anywhere else, or sleeps), and before any other
 * record is written on that CPU (reserve()), so the records of one task
 * reach the ring in the order they happened. The collector makes a CPU
 * whose records have waited too long switch tasks (backend_modern.c).
 *
 * Only programs that cannot be preempted touch it: the tracepoints here.
 * The uprobe programs of bpf/marks.bpf.h can be, and leave it alone.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_batch);
} pending SEC(".maps");

/* Records that did not fit in the ring buffer, per CPU, counted exactly. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Per-task state: the syscall in progress, and in pidtree mode the container. */
struct sc_state {
	__u64 key;		/* pidtree: container key, 0: not traced (bt_task_key) */
	__u64 ts;		/* 0: no entry seen */
	__u64 arg0;
	__u32 nr;
	__u8 detail_kind;
	__u8 pad[3];
	__u32 detail_len;
	__u32 pad2;
	char detail[BT_DETAIL_MAX];
};
_Static_assert(__builtin_offsetof(struct sc_state, key) == __builtin_offsetof(struct bt_task_key, key) &&
	       sizeof(((struct sc_state *)0)->key) == sizeof(struct bt_task_key),
	       "user space writes a task's key as struct bt_task_key");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sc_state);
} sc_states SEC(".maps");

/*
 * Syscalls in flight, the fast way: a direct-mapped table indexed by a hash
 * of the task's pt_regs address (the top of its kernel stack: one per live
 * task, and what sys_enter and sys_exit are given, so sys_exit finds its
 * syscall without asking who is running). sys_enter of a traced task
 * claims the slot (compare and swap on `regs`) and fills it, its sys_exit
 * emits the row from it and frees it. Reaching it costs no helper call;
 * the task-storage way it replaces cost four (who is running and the
 * storage, at entry and at exit), each a call and a return that the CPU's
 * return-stack mitigations make dear.
 *
 * When the slot is taken by another task in a syscall, or the syscall has a
 * detail (a path, an address) or changes comm (exec, prctl), its state goes
 * to the task's storage as before and the slot's in_task counts it, so that
 * sys_exit of a task that does not own the slot looks there only then.
 *
 * pid, tid, ppid and comm are read at entry; exec and prctl, which change
 * comm, go the task-storage way and read them at exit. The release of a
 * slot relies on x86's store ordering (no load passes an earlier store).
 */
struct bt_inflight inflight[1 << BT_INFLIGHT_BITS] __attribute__((aligned(64)));


/*
 * A task's pt_regs address as a plain number: its distance from a fixed
 * address (a pointer difference is a number to the verifier, for a
 * CAP_PERFMON program). Never 0: a map value is not a task's stack.
 */
static __always_inline __u64 regs_id(const struct pt_regs *regs)
{
	return (const char *)regs - (const char *)filter;
}

static __always_inline struct bt_inflight *inflight_slot(__u64 id)
{
	/* stacks are 16 KiB aligned: the multiplication spreads the high bits */
	return &inflight[(id * 0x9E3779B97F4A7C15ULL) >> (64 - BT_INFLIGHT_BITS)];
}

/*
 * bpf_get_current_cgroup_id(), without the helper call: the same chain of
 * pointers read directly (BTF-typed loads, under the RCU read lock the
 * tracepoint holds). Every syscall on the host pays this, and on CPUs with
 * return-stack mitigations (SRSO, retbleed) a helper's call and return
 * cost more than the loads. Only in sys_enter, though: the verifier checks
 * each load of a pointer through a trusted one by looking up type names
 * in the kernel's BTF, a scan of all its types each (about 1 ms here);
 * the loads in every program cost 40 ms of start-up. Elsewhere the helper
 * and BPF_CORE_READ() (see fill_hdr()) are cheaper, as rare as they run.
 */
static __always_inline __u64 current_cgroup_id_direct(struct task_struct *t)
{
	return t->cgroups->dfl_cgrp->kn->id;
}

static __always_inline bool cgroup_tracked(__u64 cgid)
{
	__u64 slot = filter[BT_FILTER_SLOT(cgid)];

	if (slot == cgid)
		return true;
	if (slot != BT_FILTER_SHARED)
		return false;
	return bpf_map_lookup_elem(&tracked, &cgid) != NULL;
}

static __always_inline void filter_add(__u64 cgid)
{
	__u64 *slot = &filter[BT_FILTER_SLOT(cgid)];
	__u64 old = __sync_val_compare_and_swap(slot, 0, cgid);

	if (old != 0 && old != cgid)
		*slot = BT_FILTER_SHARED;
}

static __always_inline void count_lost_n(__u64 count)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		__sync_fetch_and_add(n, count);
}

static __always_inline void count_lost(void)
{
	count_lost_n(1);
}

/*
 * Batched wake-ups without a helper call: wake the reader once every
 * wakeup_bytes (a power of two) of records. The ring's data pages are
 * contiguous in kernel memory (mapped twice, so a record never wraps), so
 * a record whose bytes, its 8-byte ring header included, straddle a
 * multiple of wakeup_bytes comes once per wakeup_bytes written. Its offset
 * is taken from another fixed address (a pointer difference is a plain
 * number to the verifier, for a CAP_PERFMON program): the multiples move
 * by a constant, the rate stays. Records that wait are read at the
 * collector's next poll timeout.
 */
static __always_inline __u64 wake_at(__u64 off, __u64 size)
{
	return (off ^ (off + BPF_RINGBUF_HDR_SZ + size)) >= wakeup_bytes ?
		BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* wake_at() for record @rec, reserved in the ring. */
static __always_inline __u64 wake_flags(const void *rec, __u64 size)
{
	return wake_at((const char *)rec - (const char *)filter - BPF_RINGBUF_HDR_SZ, size);
}

/* Commit record @e, waking the reader when wake_flags() says so. */
#define submit(e) bpf_ringbuf_submit((e), wake_flags((e), sizeof(*(e))))

static __always_inline struct bt_batch *pending_batch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&pending, &zero);
}

/*
 * Write batch @b to the ring buffer as one record and empty it. wake_at()
 * from where the record will start (another CPU may write first: then a
 * wake-up comes early or at the next one).
 */
static __always_inline void batch_flush(struct bt_batch *b)
{
	__u64 n = b->count, size;

	if (n > BT_BATCH_MAX)
		n = BT_BATCH_MAX;
	size = __builtin_offsetof(struct bt_batch, rec) + n * sizeof(b->rec[0]);
	b->type = BT_EV_BATCH;
	if (bpf_ringbuf_output(&events, b, size,
			       wake_at(bpf_ringbuf_query(&events, BPF_RB_PROD_POS), size)))
		count_lost_n(n);
	b->count = 0;
}

/* Flush this CPU's batch, if it holds anything. */
static __always_inline void flush_pending(void)
{
	struct bt_batch *b = pending_batch();

	if (b && b->count)
		batch_flush(b);
}

/*
 * Reserve a record that does not go through the batch (all but plain
 * syscall records), after flushing the batch: one task's records stay in
 * order. Not for the uprobe programs (see `pending`).
 */
static __always_inline void *reserve(__u64 size)
{
	flush_pending();
	return bpf_ringbuf_reserve(&events, size, 0);
}

/*
 * pid, tid and ppid (@ppid: the parent's tgid) as the init pid namespace
 * sees them: the task's own fields.
 */
static __always_inline void fill_hdr_ppid(struct bt_event_hdr *h, struct task_struct *t,
					  __u32 type, __u64 ts, __u64 cgid, __u32 ppid)
{
	h->ts_ns = ts;
	h->cgroup_id = cgid;
	h->type = type;
	h->pid = t->tgid;
	h->tid = t->pid;
	h->ppid = ppid;
	/* comm is NUL-padded in the task: copy it, no helper needed */
	__builtin_memcpy(h->comm, t->comm, sizeof(h->comm));
}

/* The same, the parent read with a helper (see current_cgroup_id_direct()). */
static __always_inline void fill_hdr(struct bt_event_hdr *h, struct task_struct *t,
				     __u32 type, __u64 ts, __u64 cgid)
{
	fill_hdr_ppid(h, t, type, ts, cgid, BPF_CORE_READ(t, real_parent, tgid));
}

/* pidtree mode: its own file, same maps. */
#include "bpf/pidtree.bpf.h"

/* cgroup mode: @cgid is the key of a traced container if it is tracked. */
static __always_inline bool cgroup_container(__u64 cgid, __u64 *key)
{
	if (!cgroup_tracked(cgid))
		return false;
	*key = cgid;
	return true;
}

/*
 * Whether the current task @t belongs to a traced container, and which: its
 * cgroup id in cgroup mode, its container key in pidtree mode. The callers
 * pass the task in: a helper call is not merged with an earlier one, and
 * each costs a call and a return.
 */
static __always_inline bool current_container(struct task_struct *t, __u64 *key)
{
	if (pidtree)
		return pidtree_container(t, key);
	return cgroup_container(bpf_get_current_cgroup_id(), key);
}

/* Host rows: their own file. */
#include "bpf/host.bpf.h"

/* Profile samples (--profile): their own file, same maps. */
#include "bpf/profile.bpf.h"

/* Off-CPU stacks (--offcpu-stacks on): their own file, profile.bpf.h's capture. */
#include "bpf/offcpu.bpf.h"

/* current_container() for sys_enter, which every syscall of the host runs. */
static __always_inline bool current_container_direct(struct task_struct *t, __u64 *key)
{
	if (pidtree)
		return pidtree_container(t, key);
	return cgroup_container(current_cgroup_id_direct(t), key);
}

/*
 * The current task's state if it is traced: in cgroup mode created on
 * first use (@create), in pidtree mode it exists or the task is not traced.
 */
static __always_inline struct sc_state *traced_state(struct task_struct *t, __u64 *key,
						       bool create)
{
	struct sc_state *st;

	if (pidtree) {
		st = bpf_task_storage_get(&sc_states, t, 0, 0);
		if (!st || !st->key)
			return NULL;
		*key = st->key;
		return st;
	}
	if (!cgroup_container(bpf_get_current_cgroup_id(), key))
		return NULL;
	return bpf_task_storage_get(&sc_states, t, 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The syscall part of a syscall record, after its header. */
static __always_inline void fill_syscall(struct bt_syscall_event *e, __u64 dur_ns, long ret,
					 __u32 nr, __u16 flags, __u8 detail_kind,
					 __u32 detail_len)
{
	e->dur_ns = dur_ns;
	e->ret = ret;
	e->nr = nr;
	e->flags = flags;
	e->detail_kind = detail_kind;
	e->detail_len = detail_len;
	e->fd = 0;	/* the other half of ino (a slot of a batch is reused) */
}

static __always_inline bool syscall_wanted(long nr)
{
	if (trace_no_syscalls)
		return false;
	if (trace_all_syscalls)
		return true;
	if (nr < 0 || nr >= BT_MAX_SYSCALLS)
		return false;
	__u64 u = nr;

	return syscall_mask[(u / 64) & (BT_MAX_SYSCALLS / 64 - 1)] & (1ULL << (u % 64));
}

#include "bpf/details.bpf.h"

static __always_inline void emit_noreturn(struct task_struct *t, __u64 cgid, long nr,
					  __u64 ts)
{
	struct bt_syscall_event *e;

	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		return;
	}
	fill_hdr(&e->hdr, t, BT_EV_SYSCALL, ts, cgid);
	fill_syscall(e, 0, 0, nr, BT_SC_NORETURN, BT_DETAIL_NONE, 0);
	submit(e);
}

/*
 * Syscalls that keep their state in the task (sc_state): those with a
 * detail to copy, and those after which the task's identity is read anew
 * (exec and prctl change comm).
 */
static __always_inline bool syscall_in_task(long nr)
{
	return path_arg(nr) >= 0 || nr == __NR_bind || nr == __NR_connect ||
	       nr == __NR_listen || nr == __NR_prctl;
}

/*
 * The slow way in: the syscall's state in the task's storage, with its
 * detail. False when there is none (the task is not traced after all, or
 * the storage could not be had: counted as lost).
 */
static __always_inline bool enter_in_task(struct task_struct *t, struct pt_regs *regs,
					  long nr, __u64 ts)
{
	struct sc_state *st;
	unsigned long ptr;
	__u64 cgid;
	int len;

	st = traced_state(t, &cgid, true);
	if (!st) {
		/*
		 * cgroup mode: the storage could not be made. pidtree mode:
		 * user space untracked the task a moment ago (the cache said
		 * traced until it bumped taskcache_gen): not traced now.
		 */
		if (!pidtree)
			count_lost();
		return false;
	}
	st->ts = ts;
	st->nr = nr;
	st->detail_kind = BT_DETAIL_NONE;
	st->detail_len = 0;

	if (path_arg(nr) >= 0) {
		read_path(st, regs, nr);
	} else if (nr == __NR_bind || nr == __NR_connect) {
		ptr = syscall_arg(regs, 1);
		len = syscall_arg(regs, 2);
		/* a sockaddr is at most 128 bytes (sockaddr_storage) */
		if (len > 128)
			len = 128;
		if (len > 0 &&
		    bpf_probe_read_user(st->detail, len & 0xff,
					(const void *)ptr) == 0) {
			st->detail_kind = BT_DETAIL_SOCKADDR;
			st->detail_len = len;
		}
	} else if (nr == __NR_listen) {
		st->arg0 = syscall_arg(regs, 0);
	}
	return true;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(bt_sys_enter, struct pt_regs *regs, long nr)
{
	struct task_struct *t;
	struct bt_inflight *f;
	__u64 key, ts, id, old;

	if (!syscall_wanted(nr))
		return 0;
	t = bpf_get_current_task_btf();
	if (!current_container_direct(t, &key))
		return 0;
	ts = bpf_ktime_get_ns();
	if (nr == __NR_exit || nr == __NR_exit_group) {
		emit_noreturn(t, key, nr, ts);
		return 0;
	}
	id = regs_id(regs);
	f = inflight_slot(id);
	if (syscall_in_task(nr)) {
		old = 1;	/* never claim the slot */
	} else {
		/*
		 * A slot still held by this task's own id is stale (the
		 * syscall returned before sys_exit was attached): take it.
		 */
		old = __sync_val_compare_and_swap(&f->regs, 0, id);
		if (old == id)
			old = 0;
	}
	if (old != 0) {
		/* keep the state in the task, and tell sys_exit to look there */
		if (enter_in_task(t, regs, nr, ts))
			__sync_fetch_and_add(&f->in_task, 1);
		return 0;
	}
	fill_hdr_ppid(&f->hdr, t, BT_EV_SYSCALL, ts, key, t->real_parent->tgid);
	f->nr = nr;
	return 0;
}

/* Scheduler rows (--sched on): their own file, same maps. */
#include "bpf/sched.bpf.h"

/*
 * The slow way out: the state is in the task's storage, if it has any.
 * A row with a detail (a path, an address) is written here. A plain row
 * gets its header in @e, the next record of this CPU's batch, and its
 * syscall number in @nr, and bt_sys_exit() finishes it as it does the
 * rows of the fast way: one copy of that code (pipe_detail() above all)
 * for the verifier to check.
 * Returns -1: the task has no syscall in its storage; 0: the row is
 * written (or lost, and counted); 1: @e waits to be finished.
 */
static __always_inline int exit_in_task(struct pt_regs *regs, long ret,
					struct bt_syscall_event *e, __u32 *nr)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct bt_syscall_detail_event *d;
	struct sc_state *st;
	__u64 cgid, now, dur;

	st = traced_state(t, &cgid, false);
	if (!st || !st->ts)
		return -1;

	if (st->nr == __NR_listen && ret == 0)
		read_listen_addr(t, st);
	/*
	 * A path that could not be read at entry (path_retry(); the
	 * registers still hold the arguments).
	 */
	if (st->detail_kind == BT_DETAIL_NONE && path_retry(st->nr, ret))
		read_path(st, regs, st->nr);

	if (st->detail_kind == BT_DETAIL_NONE) {
		/* header at exit: exec and prctl change comm and pid */
		fill_hdr(&e->hdr, t, BT_EV_SYSCALL, st->ts, cgid);
		*nr = st->nr;
		st->ts = 0;
		return 1;
	}
	now = bpf_ktime_get_ns();
	dur = now - st->ts;
	d = reserve(sizeof(*d));
	if (d) {
		fill_hdr(&d->sc.hdr, t, BT_EV_SYSCALL_DETAIL, st->ts, cgid);
		fill_syscall(&d->sc, dur, ret, st->nr, 0, st->detail_kind, st->detail_len);
		bpf_probe_read_kernel(d->detail, sizeof(d->detail), st->detail);
		submit(d);
	} else {
		count_lost();
	}
	if (sched_rows && dur >= BT_SCHED_IN_CHECK_NS)
		sched_running(t, st->ts, now);
	st->ts = 0;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(bt_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 id = regs_id(regs);
	struct bt_inflight *f = inflight_slot(id);
	struct bt_syscall_event *e;
	struct bt_batch *b;
	__u64 owner = READ_ONCE(f->regs), now, dur;
	__u32 n, nr;
	int done;

	/* any task's: an unmap may end remembered build ids (bpf/buildids.bpf.h) */
	if (buildids_cached)
		buildids_unmapped(regs, ret);
	if (owner != id && !f->in_task)
		return 0;	/* an untraced task */
	b = pending_batch();
	if (owner == id) {
		/* the fast way: the row from the slot, then the slot is free */
		if (b) {
			n = b->count;
			e = &b->rec[n & (BT_BATCH_MAX - 1)];
			e->hdr = f->hdr;
			nr = f->nr;
		}
		/* every read of the slot above comes before it is free again */
		barrier();
		WRITE_ONCE(f->regs, 0);
		if (!b)
			return 0;
	} else {
		/* not ours: a task whose state is in its storage, maybe this one */
		if (!b)
			return 0;
		n = b->count;
		e = &b->rec[n & (BT_BATCH_MAX - 1)];
		done = exit_in_task(regs, ret, e, &nr);
		if (done >= 0)
			__sync_fetch_and_add(&f->in_task, -1);
		if (done <= 0)
			return 0;
	}
	now = bpf_ktime_get_ns();
	dur = now - e->hdr.ts_ns;
	fill_syscall(e, dur, ret, nr, 0, BT_DETAIL_NONE, 0);
	if (pipe_syscall(nr))
		pipe_detail(e, regs, nr, ret);
	b->count = n + 1;
	if (n + 1 >= BT_BATCH_MAX)
		batch_flush(b);
	/* a syscall that may have blocked: was its switch-in traced? */
	if (sched_rows && dur >= BT_SCHED_IN_CHECK_NS)
		sched_running(bpf_get_current_task_btf(), e->hdr.ts_ns, now);
	return 0;
}

/*
 * A task leaves this CPU (it blocks, is preempted, moves or exits): its
 * records go out before it runs again, here or elsewhere. With --sched
 * on, its off-CPU interval starts, and next's ends (bpf/sched.bpf.h).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(bt_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	flush_pending();
	sched_switch(ctx, preempt, prev, next);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(bt_fork, struct task_struct *parent, struct task_struct *child)
{
	struct bt_fork_event *e;
	__u64 cgid, ns = 0;

	if (!current_container(bpf_get_current_task_btf(), &cgid)) {
		if (watch_roots && child->tgid != parent->tgid) {
			if (BPF_CORE_READ(child, thread_pid, level) !=
			    BPF_CORE_READ(parent, thread_pid, level))
				ns |= CLONE_NEWPID;
			if (!same_mnt_ns(child, parent))
				ns |= CLONE_NEWNS;
			if (ns) {
				pidtree_root(parent, child, ns);
				return 0;
			}
		}
		if (!host_task_of(child, &cgid))
			return 0;
	} else if (pidtree) {
		/* Before the child can run: it is traced from its first instruction. */
		pidtree_adopt(child, cgid);
	}
	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		return 0;
	}
	e->hdr.ts_ns = bpf_ktime_get_ns();
	e->hdr.cgroup_id = cgid;
	e->hdr.type = BT_EV_FORK;
	e->hdr.pid = child->tgid;
	e->hdr.tid = child->pid;
	e->hdr.ppid = parent->tgid;
	bpf_probe_read_kernel(e->hdr.comm, sizeof(e->hdr.comm), child->comm);
	e->parent_tid = parent->pid;
	e->is_thread = child->tgid == parent->tgid;
	submit(e);
	return 0;
}

/*
 * BT_EXEC_NS_INIT when task @t is pid 1 of its own pid namespace and that
 * namespace is below the host's: its pid's number at the deepest level,
 * numbers[level] (a flexible array, one struct upid per level, which the
 * verifier lets no load index by a variable: a probe read at the offset).
 * The relocations name struct pid only, which bt_fork() relocates already
 * (a new type costs libbpf a scan of the kernel's BTF at every start), and
 * numbers[0] only: numbers[1] would not relocate on kernels that declare
 * numbers[1]. Exec is rare: helper calls, not KREAD().
 */
static __always_inline __u32 exec_flags(struct task_struct *t)
{
	struct pid *pid = BPF_CORE_READ(t, thread_pid);
	__u32 off = bpf_core_field_offset(pid->numbers[0].nr);
	__u32 size = bpf_core_field_size(pid->numbers[0]);
	unsigned int level;
	int nr;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	if (level == 0)
		return 0;
	if (bpf_probe_read_kernel(&nr, sizeof(nr), (const char *)pid + off + level * size))
		return 0;
	return nr == 1 ? BT_EXEC_NS_INIT : 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(bt_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct bt_exec_event *e;
	__u64 cgid, now;

	if (!current_container(t, &cgid)) {
		/* `unshare --mount CMD`: the namespace came without a fork */
		if (watch_roots && !same_mnt_ns(t, t->real_parent))
			pidtree_root(t->real_parent, t, CLONE_NEWNS);
		if (!current_container(t, &cgid) && !host_task(t, &cgid))
			return 0;
	}
	now = bpf_ktime_get_ns();
	/* a host task runs: as at bt_exit */
	if (sched_rows && cgid == BT_KEY_HOST)
		sched_running(t, 0, now);
	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		return 0;
	}
	fill_hdr(&e->hdr, t, BT_EV_EXEC, now, cgid);
	e->old_tid = old_pid;
	e->flags = exec_flags(t);
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), bprm->filename);
	if (exec_wakeup && cgid != BT_KEY_HOST)
		bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	else
		submit(e);
	return 0;
}

/*
 * Fires for every exiting thread; a process has exited when its last
 * thread does (signal->live dropped to 0 just before, in do_exit()). Since
 * 6.16 the tracepoint also passes group_dead; reading `live` works on all.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(bt_exit, struct task_struct *p)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 cgid, id = regs_id((struct pt_regs *)bpf_task_pt_regs(p));
	struct bt_inflight *f = inflight_slot(id);
	struct bt_exit_event *e;
	__u64 now;

	/*
	 * A task that dies inside a syscall frees its slot: its stack may
	 * be a new task's, whose sys_exit would otherwise take it for its own.
	 */
	if (f->regs == id)
		WRITE_ONCE(f->regs, 0);
	if (!current_container(t, &cgid) && !host_task(t, &cgid))
		goto drop;
	now = bpf_ktime_get_ns();
	/*
	 * A host task runs: an interval whose switch-in was not traced (6.18
	 * misses one now and then: sched_running()) ends by now, before its
	 * exit row; it has no syscall rows whose returns would end it. Not a
	 * container task's: one left open after a syscall too short to be
	 * checked at its return would reach here past that return, and the
	 * task ran since (as before, its next switch-out drops it).
	 */
	if (sched_rows && cgid == BT_KEY_HOST)
		sched_running(t, 0, now);
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		goto out;
	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		goto out;
	}
	fill_hdr(&e->hdr, t, BT_EV_EXIT, now, cgid);
	e->exit_code = BPF_CORE_READ(p, exit_code);
	submit(e);
out:
	if (pidtree && cgid != BT_KEY_HOST)
		pidtree_exit(t, cgid);
drop:
	/* last: the look-ups above would cache the task again */
	if (pidtree)
		taskcache_drop(task_id(p));
	return 0;
}

static __always_inline int cgroup_event(struct cgroup *cgrp, const char *path,
					__u32 type)
{
	struct cgroup *parent;
	struct bt_cgroup_event *e;
	__u64 id, pid;
	bool parent_tracked;
	__u8 one = 1;

	/* Only the v2 (default) hierarchy: its hierarchy_id is 0. */
	if (pidtree || BPF_CORE_READ(cgrp, root, hierarchy_id) != 0)
		return 0;
	id = BPF_CORE_READ(cgrp, kn, id);
	/* `self` is struct cgroup's first member: a css parent is a cgroup. */
	parent = (struct cgroup *)BPF_CORE_READ(cgrp, self.parent);
	pid = parent ? BPF_CORE_READ(parent, kn, id) : 0;

	if (type == BT_EV_CGROUP_MKDIR) {
		parent_tracked = bpf_map_lookup_elem(&tracked, &pid) != NULL;
		if (!parent_tracked && !watch_mkdir)
			return 0;
		/*
		 * Track it now, in the kernel: the container's first
		 * process may run before user space reads this event.
		 */
		if (bpf_map_update_elem(&tracked, &id, &one, BPF_ANY) == 0)
			filter_add(id);
	} else {
		if (!bpf_map_lookup_elem(&tracked, &id))
			return 0;
		parent_tracked = bpf_map_lookup_elem(&tracked, &pid) != NULL;
		bpf_map_delete_elem(&tracked, &id);
	}

	e = reserve(sizeof(*e));
	if (!e) {
		count_lost();
		return 0;
	}
	fill_hdr(&e->hdr, bpf_get_current_task_btf(), type, bpf_ktime_get_ns(), id);
	e->parent_id = pid;
	e->parent_tracked = parent_tracked;
	bpf_probe_read_kernel_str(e->path, sizeof(e->path), path);
	/* Wake the reader now: it has to decide about this container. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(bt_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	return cgroup_event(cgrp, path, BT_EV_CGROUP_MKDIR);
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(bt_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	return cgroup_event(cgrp, path, BT_EV_CGROUP_RMDIR);
}

/* uprobe, uretprobe and USDT marks: their own file, same maps. */
#include "bpf/marks.bpf.h"
/* the interpreters' USDT probes (--spans): after marks.bpf.h, whose usdt.bpf.h they use */
#include "bpf/spans.bpf.h"
