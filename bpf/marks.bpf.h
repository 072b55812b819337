/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Mark programs of the modern object, included at the end of
 * boottrace.bpf.c (they use its maps and current_container()).
 *
 * One uprobe program and one USDT program, attached by the collector once
 * per --mark / --start (collector/kernel/marks.c), each time with its own cookie:
 * the low 32 bits are the mark's index, bit 32 (BT_MARK_START) says it is a
 * --start probe. Neither auto-attaches: they have no target until the
 * collector names one (backend_modern.c turns autoattach off).
 *
 * A mark fires only in tasks of traced containers: current_container() in
 * the kernel, so the rest of the host costs one uprobe hit and one helper
 * call, and no record.
 *
 * A --start probe fires in any task (the runtime is usually outside the
 * container): it keeps bpf_ktime_get_ns() in the task's mark_starts
 * storage, which every task it forks inherits (bt_mark_fork), as the
 * Haconiwa bpftrace script did with @start[tid]. The container's start is
 * reported (BT_EV_MARK with BT_MARK_START, hdr.ts_ns = the probe time)
 * when the time first meets a traced container:
 *   - the probe fires in a task already traced (spawn mode: the command is
 *     the runtime), or
 *   - a task holding a time joins a tracked cgroup (bt_mark_cgroup_attach:
 *     the runtime's child writing itself to cgroup.procs), or
 *   - pidtree watch mode: a task holding a time becomes a container root.
 * The collector takes the first report per container. A later fire in the
 * same runtime thread replaces the time (the next container's boot).
 */
#include <bpf/usdt.bpf.h>

#define BT_MARK_COOKIE_START (1ULL << 32)

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct bt_mark_start);
} mark_starts SEC(".maps");

/*
 * Set by the collector after load when a --start probe is attached: the
 * fork and cgroup-attach programs below do nothing else until then (one
 * load and a branch per fork on the host).
 */
__u32 marks_start_armed;

/*
 * A BT_EV_MARK record for task @t (the probe's task, or the one that joined
 * a container), at @ts, in container @key.
 */
static __always_inline void mark_emit(struct task_struct *t, __u64 ts, __u64 key,
				      __u32 mark_id, __u32 flags)
{
	struct bt_mark_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return;
	}
	e->hdr.ts_ns = ts;
	e->hdr.cgroup_id = key;
	e->hdr.type = BT_EV_MARK;
	e->hdr.pid = BPF_CORE_READ(t, tgid);
	e->hdr.tid = BPF_CORE_READ(t, pid);
	e->hdr.ppid = BPF_CORE_READ(t, real_parent, tgid);
	BPF_CORE_READ_STR_INTO(&e->hdr.comm, t, comm);
	e->mark_id = mark_id;
	e->flags = flags;
	/* Marks are few, and --until mark:LABEL waits for them: wake now. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

static __always_inline int mark_fire(__u64 cookie)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 id = (__u32)cookie;
	struct bt_mark_start *s;
	__u64 key, now = bpf_ktime_get_ns();

	if (!(cookie & BT_MARK_COOKIE_START)) {
		if (current_container(t, &key))
			mark_emit(t, now, key, id, 0);
		return 0;
	}
	s = bpf_task_storage_get(&mark_starts, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		/* the start time would be lost: say so in the lost count */
		count_lost();
		return 0;
	}
	s->ts = now;
	s->mark_id = id;
	if (current_container(t, &key))
		mark_emit(t, now, key, id, BT_MARK_START);
	return 0;
}

SEC("uprobe")
int bt_mark_uprobe(struct pt_regs *ctx)
{
	return mark_fire(bpf_get_attach_cookie(ctx));
}

/* libbpf's USDT support keeps bpf_get_attach_cookie() for its spec id. */
SEC("usdt")
int BPF_USDT(bt_mark_usdt)
{
	return mark_fire(bpf_usdt_cookie(ctx));
}

/*
 * A child inherits its parent's start time. A second program on the
 * tracepoint rather than a hook in bt_fork: it only runs its check when a
 * --start probe is armed, and bt_fork stays the mark-free hot path. It is
 * attached after bt_fork (libbpf attaches in object order, the tracepoint
 * calls in attach order), so in pidtree mode the child's key is already set.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(bt_mark_fork, struct task_struct *parent, struct task_struct *child)
{
	struct bt_mark_start *p, *c;
	struct sc_state *ps, *cs;

	if (!marks_start_armed)
		return 0;
	p = bpf_task_storage_get(&mark_starts, parent, 0, 0);
	if (!p)
		return 0;
	c = bpf_task_storage_get(&mark_starts, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!c) {
		count_lost();
		return 0;
	}
	c->ts = p->ts;
	c->mark_id = p->mark_id;
	if (!pidtree)
		return 0;
	/* pidtree watch mode: the child roots a container its parent is not in */
	cs = bpf_task_storage_get(&sc_states, child, 0, 0);
	if (!cs || !cs->key)
		return 0;
	ps = bpf_task_storage_get(&sc_states, parent, 0, 0);
	if (ps && ps->key == cs->key)
		return 0;
	mark_emit(child, c->ts, cs->key, c->mark_id, BT_MARK_START);
	return 0;
}

/*
 * cgroup mode: a task that holds a start time joins a tracked cgroup (the
 * runtime's child moving into the container's cgroup before its exec).
 */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(bt_mark_cgroup_attach, struct cgroup *dst, const char *path,
	     struct task_struct *task, bool threadgroup)
{
	struct bt_mark_start *s;
	__u64 id;

	if (!marks_start_armed || pidtree || BPF_CORE_READ(dst, root, hierarchy_id) != 0)
		return 0;
	id = BPF_CORE_READ(dst, kn, id);
	if (!cgroup_tracked(id))
		return 0;
	s = bpf_task_storage_get(&mark_starts, task, 0, 0);
	if (!s)
		return 0;
	mark_emit(task, s->ts, id, s->mark_id, BT_MARK_START);
	return 0;
}
