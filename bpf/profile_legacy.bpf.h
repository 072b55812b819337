/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Profile samples of the compat object (--profile): what bpf/profile.bpf.h
 * does in the modern object, on the helpers of 4.18. User space opens a
 * CPU-clock perf event per CPU and attaches bt_profile to each
 * (collector/kernel/profile_events.c); the program takes the stacks of the task it
 * interrupted when that task is traced (its cgroup is tracked, cgroup
 * mode; it is in `tasks`, pidtree mode), with bpf_get_stack (4.18): the
 * kernel stack as addresses, the user stack as build id + file offset
 * (BPF_F_USER_BUILD_ID, 4.18), and writes one struct bt_sample_event to
 * the perf event array, from a per-CPU map value (it is 2.6 KB: no
 * stack holds it). Part of bpf/boottrace_legacy.bpf.c in the compat build
 * only: bpf_get_stack is past the legacy object's 4.15 (which has
 * bpf_get_stackid into a stack map; not built).
 *
 * No nesting to fear: a perf event's program is not run while another
 * BPF program runs on that CPU (bpf_overflow_handler and the classic
 * tracepoints both count bpf_prog_active), so a sample that falls in one
 * of this object's programs is not taken, and the `scratch` record of an
 * interrupted program is never this one's. No task entry is made here
 * (current_task() adopts; an interrupt does not).
 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_sample_event);
} samples SEC(".maps");

/* The key of the current task if it is traced (and its parent, if known), else 0. */
static __always_inline __u64 sample_key(struct bt_legacy_config *cfg, __u32 tid, __u32 *ppid)
{
	struct bt_legacy_task *t;

	if (cgroup_mode(cfg))
		return current_tracked_cgroup();
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t)
		return 0;
	*ppid = t->ppid;
	return t->key;
}

SEC("perf_event")
int bt_profile(void *ctx)
{
	struct bt_legacy_config *cfg = get_config();
	__u64 id = bpf_get_current_pid_tgid(), key;
	__u32 zero = 0, tid = (__u32)id, ppid = 0;
	struct bt_sample_event *e;

	if (!cfg || !cfg->profile_period_ns || !tid)
		return 0;	/* off, or the idle task */
	key = sample_key(cfg, tid, &ppid);
	if (!key)
		return 0;
	e = bpf_map_lookup_elem(&samples, &zero);
	if (!e) {
		count_lost();
		return 0;
	}
	fill_hdr_of(&e->hdr, BT_EV_SAMPLE, bpf_ktime_get_ns(), key, id >> 32, tid, ppid);
	e->cpu = bpf_get_smp_processor_id();
	e->period_ns = cfg->profile_period_ns;
	/* from the interrupted registers: empty when it came in user mode */
	e->kstack_bytes = bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), 0);
	e->ustack_bytes = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack),
					BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
	e->interp_kind = BT_INTERP_NONE;	/* the modern object's alone (bpf/interp.bpf.h) */
	e->iframes = 0;
	emit_unbatched(ctx, e, sizeof(*e));
	return 0;
}
