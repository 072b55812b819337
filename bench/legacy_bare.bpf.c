// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Lower bounds for the legacy object in bench/collector.sh: the least
 * that a program pair on the classic tracepoints 4.15 has must do to write
 * the row of a traced syscall. Both take bpf_get_current_pid_tgid and
 * bpf_ktime_get_ns at entry and at exit, look the task up twice, and add
 * the row to a per-CPU batch of 16 that goes to a perf event array with no
 * ring behind it (the output fails at once, cheaper than a real one).
 *
 * legacy_bare.bpf.o, and less: the task's state in a direct-mapped array
 * (an inlined lookup; tids collide, which a real pidtree cannot allow),
 * and no comm in the row.
 *
 * legacy_pidtree.bpf.o (this file with BARE_PIDTREE): the state in a hash
 * map keyed by tid, as a pidtree must keep it on 4.15 (no task storage),
 * and the comm in the row (bpf_get_current_comm), as the TSV has it.
 *
 * compat_cgroup.bpf.o (BARE_PIDTREE and BARE_CGROUP): the compat object's
 * cgroup mode at its least: who is traced decided by the cgroup id
 * (bpf_get_current_cgroup_id, 4.18) in an array-map filter, at entry and
 * at exit, as the compat object does, then the tid hash map for the
 * syscall in progress (no task storage before 5.11) and the comm.
 *
 * Loaded by bench/floor, which sets nothing up but, for compat_cgroup, the
 * filter slot of the cgroup the bench's loop runs in: a task whose comm
 * starts with "getppid_" (the bench's loop) takes its slot at its first
 * syscall.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include "bpf/boottrace.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define SLOTS (1 << 16)

struct slot {
	__u32 tid;	/* owner, 0: none */
	__u32 nr;
	__u64 ts;	/* syscall entry, 0: none in progress */
};

struct {
#ifdef BARE_PIDTREE
	__uint(type, BPF_MAP_TYPE_HASH);
#else
	__uint(type, BPF_MAP_TYPE_ARRAY);
#endif
	__uint(max_entries, SLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

#ifdef BARE_CGROUP
/* as bpf/cgroups_compat.bpf.h's: a slot holds the id of the cgroup traced */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BT_FILTER_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} filter SEC(".maps");

/* The current task's cgroup id if it is traced, else 0: a helper call and an inlined load. */
static __always_inline __u64 cgroup_traced(void)
{
	__u64 id = bpf_get_current_cgroup_id(), *s;
	__u32 k = BT_FILTER_SLOT(id);

	s = bpf_map_lookup_elem(&filter, &k);
	return s && *s == id ? id : 0;
}
#else
#define cgroup_traced() 0
#endif

static __always_inline struct slot *slot_of(__u32 tid)
{
#ifndef BARE_PIDTREE
	tid &= SLOTS - 1;
#endif
	return bpf_map_lookup_elem(&slots, &tid);
}

/* Task @tid takes its slot @s (NULL: none yet, in the hash map). */
static __always_inline void slot_take(__u32 tid, struct slot *s)
{
	struct slot n = { .tid = tid };

	if (s)
		s->tid = tid;
	else
		bpf_map_update_elem(&slots, &tid, &n, BPF_ANY);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_batch);
} batches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/* as in bpf/boottrace_legacy.bpf.c: a load at a constant context offset */
#define ctx_long(ctx, off) ({						\
	long __v;							\
	asm volatile("%[v] = *(u64 *)(%[c] + %[o])"			\
		     : [v] "=r"(__v) : [c] "r"(ctx), [o] "i"(off));	\
	__v;								\
})

SEC("tracepoint/raw_syscalls/sys_enter")
int bare_enter(void *ctx)
{
	__u32 tid;
	struct slot *s;
	__u64 comm[BT_COMM_LEN / 8];

#ifdef BARE_CGROUP
	if (!cgroup_traced())
		return 0;
#endif
	tid = (__u32)bpf_get_current_pid_tgid();
	s = slot_of(tid);
	if (!s || s->tid != tid) {
		bpf_get_current_comm(comm, sizeof(comm));
		/* "getppid_" in the first 8 bytes (little-endian) */
		if (comm[0] == 0x5f64697070746567ULL)
			slot_take(tid, s);
		return 0;
	}
	s->nr = ctx_long(ctx, 8);
	s->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int bare_exit(void *ctx)
{
	__u64 id, now, cgid = cgroup_traced();
	__u32 tid, zero = 0, n;
	struct slot *s;
	struct bt_syscall_event *e;
	struct bt_batch *b;

#ifdef BARE_CGROUP
	if (!cgid)
		return 0;
#endif
	id = bpf_get_current_pid_tgid();
	tid = (__u32)id;
	s = slot_of(tid);
	if (!s || s->tid != tid || !s->ts)
		return 0;
	now = bpf_ktime_get_ns();
	b = bpf_map_lookup_elem(&batches, &zero);
	if (!b)
		return 0;
	n = b->count;
	e = &b->rec[n & (BT_BATCH_MAX - 1)];
	e->hdr.ts_ns = s->ts;
	e->hdr.cgroup_id = cgid;
	e->hdr.type = BT_EV_SYSCALL;
	e->hdr.pid = id >> 32;
	e->hdr.tid = tid;
	e->hdr.ppid = 0;
#ifdef BARE_PIDTREE
	bpf_get_current_comm(e->hdr.comm, sizeof(e->hdr.comm));
#endif
	e->dur_ns = now - s->ts;
	e->ret = ctx_long(ctx, 16);
	e->nr = s->nr;
	e->flags = 0;
	e->detail_kind = BT_DETAIL_NONE;
	e->detail_len = 0;
	s->ts = 0;
	b->count = n + 1;
	if (n + 1 >= BT_BATCH_MAX) {
		b->count = 0;
		bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, b, sizeof(*b));
	}
	return 0;
}
