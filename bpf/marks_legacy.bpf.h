/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Mark programs of the legacy object and its compat build, included by
 * boottrace_legacy.bpf.c (they use its maps, get_config(), current_task(),
 * fill_hdr(), emit() and emit_unbatched()): --mark and --start on kernel
 * 4.15 (and 4.18 with the compat object, the same way), the records of
 * bpf/marks.bpf.h (the modern object's) so that the collector reads them
 * alike.
 *
 * What the modern object uses and 4.15 lacks:
 *   bpf_get_attach_cookie (5.15)  BT_LEGACY_MAX_MARKS copies of one
 *                    program, bt_mark_0 .. bt_mark_7, each with its index
 *                    built in; the collector attaches copy i for --mark i
 *   libbpf's uprobe attach (the uprobe PMU, 4.17)  uprobe_events in
 *                    tracefs, then perf_event_open on the event's id, as
 *                    4.15 tools do (collector/kernel/backend_perf.c)
 *   USDT arguments, semaphores (ref_ctr_offset, 4.20)  marks carry no
 *                    arguments; a probe with a semaphore is refused
 *   task storage (5.11)           `mark_starts`, a hash map keyed by tid
 *
 * The programs are of type kprobe (libbpf's SEC("uprobe") without a target:
 * it loads them and never attaches them itself). A mark fires only in
 * tasks of traced containers: current_task(), as the syscall programs
 * do, so the rest of the host costs a uprobe hit and three helper calls,
 * and no record.
 *
 * --start (mark_start_mask in `config` says which copy): the probe keeps
 * bpf_ktime_get_ns() in mark_starts[tid]; sched_process_fork copies it to
 * the child (the Haconiwa script's @start[tid]), sched_process_exit drops
 * it. The container's start (BT_EV_MARK with BT_MARK_START, hdr.ts_ns =
 * the probe time) is reported when the time meets a traced container:
 *   - the probe fires in a task already traced (spawn mode: the command is
 *     the runtime; --pid), or
 *   - pidtree watch mode: a task holding a time becomes a container root
 *     (make_root), or
 *   - cgroup mode (compat object, 5.5+): a task holding a time joins a
 *     tracked cgroup (bt_cgroup_attach, at the end).
 * The collector takes the first report per container.
 */

/*
 * tid -> its --start time. Sized BT_MAX_TASKS by user space when a --start
 * probe is attached, else 1 entry (every map of the object is made at load,
 * used or not). Entries go at exit: a plain hash, preallocated as every
 * map here (PREEMPT_RT kernels refuse the others in tracing programs).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct bt_mark_start);
} mark_starts SEC(".maps");

/* @to gets @from's start time, if it has one: 0, or -1 when it could not. */
static __always_inline int mark_start_copy(__u32 from, __u32 to)
{
	struct bt_mark_start *p = bpf_map_lookup_elem(&mark_starts, &from), c;

	if (!p)
		return 0;
	/* through the stack: before 4.18 a map value cannot be a map helper's value */
	c.ts = p->ts;
	c.mark_id = p->mark_id;
	c.pad = 0;
	return bpf_map_update_elem(&mark_starts, &to, &c, BPF_ANY) ? -1 : 0;
}

/* sched_process_fork: @child inherits @parent's start time, if it has one. */
static __always_inline void mark_start_inherit(__u32 parent, __u32 child)
{
	if (mark_start_copy(parent, child) < 0)
		count_lost();	/* the container's start would be missing */
}

/* sched_process_exec by a thread that took its leader's pid (de_thread). */
static __always_inline void mark_start_move(__u32 old, __u32 tid)
{
	mark_start_copy(old, tid);
	bpf_map_delete_elem(&mark_starts, &old);
}

/*
 * Task @tid of process @tgid (parent @ppid) meets container @key: in
 * pidtree watch mode it roots it, and @holder is the current task (the
 * root itself, or its parent at fork, whose time the child has just
 * inherited); in cgroup mode it joins the container's cgroup, and holds
 * the time itself. If @holder holds a --start time, that is the
 * container's start. Pidtree: called after the BT_EV_ROOT record, on the
 * same CPU, so the collector knows the key when this arrives.
 */
static __always_inline void mark_start_root(void *ctx, struct bt_legacy_config *cfg, __u32 holder,
					    __u32 tid, __u32 tgid, __u32 ppid, __u64 key)
{
	struct bt_mark_start *s;
	union record *r;

	if (!(cfg->flags & BT_LEGACY_START))
		return;
	s = bpf_map_lookup_elem(&mark_starts, &holder);
	if (!s)
		return;
	r = get_record();
	if (!r) {
		count_lost();
		return;
	}
	fill_hdr_of(&r->mark.hdr, BT_EV_MARK, s->ts, key, tgid, tid, ppid);
	r->mark.mark_id = s->mark_id;
	r->mark.flags = BT_MARK_START;
	emit(ctx, r, sizeof(r->mark));
}

/* Copy @id of the mark program fired in the current task. */
static __always_inline int mark_fire(void *ctx, __u32 id)
{
	struct bt_legacy_config *cfg = get_config();
	struct bt_legacy_task *t;
	struct bt_mark_event e;
	struct bt_mark_start s;
	union stack_buf buf;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now;
	__u32 tid = (__u32)pid_tgid, flags = 0;

	if (!cfg)
		return 0;
	now = bpf_ktime_get_ns();
	if ((cfg->mark_start_mask >> id) & 1) {
		/* in any task: the runtime is usually outside the container */
		s.ts = now;
		s.mark_id = id;
		s.pad = 0;
		if (bpf_map_update_elem(&mark_starts, &tid, &s, BPF_ANY))
			count_lost();
		flags = BT_MARK_START;
	}
	t = current_task(cfg, tid, pid_tgid >> 32, &buf);
	if (!t)
		return 0;
	/* on the stack: 56 bytes, every one written (4.15 reads no uninitialised stack) */
	fill_hdr(&e.hdr, BT_EV_MARK, now, t->key, t->ppid);
	e.mark_id = id;
	e.flags = flags;
	/* a uprobe program: the task's syscall rows may still wait in a batch */
	emit_unbatched(ctx, &e, sizeof(e));
	return 0;
}

/*
 * The copies. A uretprobe is the same program on an "r:" event. perf wakes
 * the reader at a watermark; the collector's poll interval (10 ms in spawn
 * mode) bounds how late --until mark:LABEL sees the mark.
 */
#define BT_MARK_PROG(i)						\
	SEC("uprobe")						\
	int bt_mark_##i(void *ctx)				\
	{							\
		return mark_fire(ctx, i);			\
	}

BT_MARK_PROG(0)
BT_MARK_PROG(1)
BT_MARK_PROG(2)
BT_MARK_PROG(3)
BT_MARK_PROG(4)
BT_MARK_PROG(5)
BT_MARK_PROG(6)
BT_MARK_PROG(7)
_Static_assert(BT_LEGACY_MAX_MARKS == 8, "one BT_MARK_PROG per mark");

#ifdef BT_COMPAT
/*
 * --start in cgroup mode: a task that holds a start time joins a tracked
 * cgroup (the runtime's child writing itself to cgroup.procs before its
 * exec): the container's start, as bpf/marks.bpf.h's
 * bt_mark_cgroup_attach. Needs the cgroup's id in the record (5.5+);
 * loaded only with a --start probe.
 */
SEC("tracepoint/cgroup/cgroup_attach_task")
int bt_cgroup_attach(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	__u32 pid = 0;
	__u64 id = 0;
	int root = -1;

	if (!cfg || (cfg->flags & (BT_LEGACY_CGROUP | BT_LEGACY_CGROUP_IDS | BT_LEGACY_START)) !=
		    (BT_LEGACY_CGROUP | BT_LEGACY_CGROUP_IDS | BT_LEGACY_START))
		return 0;
	if (ctx_read(ctx, cfg->att_root, &root, sizeof(root)) || root != 0 ||
	    ctx_read(ctx, cfg->att_id, &id, sizeof(id)) || !cgroup_tracked(id) ||
	    ctx_read(ctx, cfg->att_pid, &pid, sizeof(pid)))
		return 0;
	/* the task moved (often by itself): its pid is its process's, as cgroup.procs takes it */
	mark_start_root(ctx, cfg, pid, pid, pid, 0, id);
	return 0;
}
#endif /* BT_COMPAT */
