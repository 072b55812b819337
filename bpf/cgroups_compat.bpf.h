/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * cgroup mode of the compat object: boottrace_legacy.bpf.c built with
 * -DBT_COMPAT includes this (it uses the object's config, records and
 * emit()). Kernels from 4.18, where bpf_get_current_cgroup_id (helper 80)
 * came: a task is traced when its cgroup v2 id is tracked, as with the
 * modern object, with what the legacy object has instead of the rest (no
 * BTF, no global data, classic tracepoints, a perf buffer).
 *
 *   tracked     the tracked ids: containers and the cgroups nested in them
 *   filter      the cheapest "no" for the rest of the host, the modern
 *               object's direct-mapped table of ids (see boottrace.bpf.c)
 *               in an array map instead of .bss (global data is 5.2): its
 *               look-ups are inlined by the verifier, no helper call. A
 *               slot holds the tracked id that owns it, BT_FILTER_SHARED
 *               when two tracked ids share it (then `tracked` decides), or
 *               0. No compare-and-swap before 5.12: a slot is written with
 *               plain stores (here at mkdir, by the collector elsewhere),
 *               and two writers racing for one slot may leave it wrong
 *               until the collector reads the mkdir record, when it puts
 *               the slot right (collector/kernel/backend_perf.c, filter_ensure()).
 *
 * New cgroups (the classic cgroup_mkdir and cgroup_rmdir tracepoints): in
 * watch mode every new v2 cgroup is tracked at mkdir, before its first
 * task can run, as the modern object does; so is one made by a traced
 * task (a container making a cgroup of its own, as systemd, runc or a
 * nested collector do). The tracepoint has no parent id: the modern
 * object's rule, a cgroup whose parent is tracked, is "one made by a
 * traced task" here, which differs for a cgroup made in a container by a
 * task outside it (docs/legacy-object.md). The record goes to the
 * collector, which finds the parent from the path and drops what it does
 * not want. Before 5.5 the tracepoints carry no id helper 80 would return
 * (BT_LEGACY_CGROUP_IDS unset): the kernel tracks nothing at mkdir, every
 * v2 mkdir and rmdir goes to the collector, which takes the id from the
 * path (name_to_handle_at), tracks it if its parent is tracked (or in
 * watch mode), and the syscalls of the new cgroup's tasks before that are
 * not seen.
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BT_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u8);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BT_FILTER_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} filter SEC(".maps");

/* Whether cgroup @id is tracked: one inlined array load for most ids. */
static __always_inline int cgroup_tracked(__u64 id)
{
	__u32 slot = BT_FILTER_SLOT(id);
	__u64 *s = bpf_map_lookup_elem(&filter, &slot), v;

	if (!s)
		return 0;
	v = *s;
	if (v == id)
		return 1;
	if (v != BT_FILTER_SHARED)
		return 0;
	return bpf_map_lookup_elem(&tracked, &id) != NULL;
}

/* The current task's cgroup id if it is tracked, else 0 (no cgroup's id). */
static __always_inline __u64 current_tracked_cgroup(void)
{
	__u64 id = bpf_get_current_cgroup_id();

	return cgroup_tracked(id) ? id : 0;
}

/* Track cgroup @id (its first task may run before the collector reads the record). */
static __always_inline void cgroup_track(__u64 id)
{
	__u32 slot = BT_FILTER_SLOT(id);
	__u8 one = 1;
	__u64 *s, v;

	if (bpf_map_update_elem(&tracked, &id, &one, BPF_ANY)) {
		count_lost();	/* its tasks would go untraced */
		return;
	}
	s = bpf_map_lookup_elem(&filter, &slot);
	if (!s)
		return;
	v = *s;
	if (v == 0)
		*s = id;
	else if (v != id)
		*s = BT_FILTER_SHARED;
}

/*
 * A v2 cgroup was made or removed (@type BT_EV_CGROUP_MKDIR or _RMDIR).
 * hdr.cgroup_id is its id, 0 when the tracepoint carries none; parent_id
 * and parent_tracked are left to the collector.
 */
static __always_inline int cgroup_event(void *ctx, __u32 type)
{
	struct bt_legacy_config *cfg = get_config();
	union record *r;
	__u32 loc = 0;
	__u64 id = 0;
	int root = -1;

	if (!cfg || !(cfg->flags & BT_LEGACY_CGROUP))
		return 0;
	/* the v2 hierarchy is number 0 (cgrp_dfl_root) */
	if (ctx_read(ctx, cfg->cg_root, &root, sizeof(root)) || root != 0)
		return 0;
	if (cfg->flags & BT_LEGACY_CGROUP_IDS)
		ctx_read(ctx, cfg->cg_id, &id, sizeof(id));
	if (type == BT_EV_CGROUP_MKDIR) {
		/* with ids, the collector hears of the cgroups tracked here only */
		if (id && !(cfg->flags & BT_LEGACY_WATCH_MKDIR) && !current_tracked_cgroup())
			return 0;
		if (id)
			cgroup_track(id);
	} else if (id) {
		/* the filter slot stays: the collector frees it, no other id is this one */
		if (bpf_map_delete_elem(&tracked, &id))
			return 0;
	}
	r = get_record();
	if (!r) {
		count_lost();
		return 0;
	}
	fill_hdr(&r->cg.hdr, type, bpf_ktime_get_ns(), id, 0);
	r->cg.parent_id = 0;
	r->cg.parent_tracked = 0;
	r->cg.pad = 0;
	ctx_read(ctx, cfg->cg_path, &loc, sizeof(loc));
	if (bpf_probe_read_str(r->cg.path, sizeof(r->cg.path), (char *)ctx + (loc & 0xffff)) < 0)
		r->cg.path[0] = '\0';
	emit(ctx, r, sizeof(r->cg));
	return 0;
}

SEC("tracepoint/cgroup/cgroup_mkdir")
int bt_cgroup_mkdir(void *ctx)
{
	return cgroup_event(ctx, BT_EV_CGROUP_MKDIR);
}

SEC("tracepoint/cgroup/cgroup_rmdir")
int bt_cgroup_rmdir(void *ctx)
{
	return cgroup_event(ctx, BT_EV_CGROUP_RMDIR);
}
