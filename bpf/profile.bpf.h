/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Profile samples of the modern object (--profile, docs/tsv-format.md,
 * Profile rows). User space opens a CPU-clock perf event per CPU, firing
 * every period_ns of that CPU's time, and attaches bt_profile to each
 * (collector/profile/profile.c). The program takes the stacks of the task it
 * interrupted when that task is traced (or a host task while host rows
 * are written, bpf/host.bpf.h), and writes one record: the kernel stack
 * as addresses, the user stack as build id + file offset where the kernel
 * can read the build id (BPF_F_USER_BUILD_ID), else as addresses.
 * collector/profile/frames.c turns them into frames.
 *
 * Part of bpf/boottrace.bpf.c (included there, after host.bpf.h), in a
 * file of its own as sched.bpf.h is.
 *
 * It runs in interrupt context, maybe while another of this object's
 * programs is half-way on the same CPU (a tp_btf program does not keep a
 * perf_event program out): so it touches neither this CPU's pending
 * batch nor the pidtree task cache, and reserves its record in the ring
 * buffer itself (a full ring: counted lost, as every record is).
 */

#include "bpf/interp.bpf.h"

/* The period of the perf events, ns: the sample's weight (0: --profile off). */
const volatile __u32 profile_period_ns = 0;

/*
 * Whether @t, the interrupted task, is traced, and its key: the cgroup
 * filter (cgroup mode), its task storage without the cache (pidtree
 * mode), or a host task while host rows are on.
 */
static __always_inline bool profile_task(struct task_struct *t, __u64 *key)
{
	struct sc_state *st;

	if (!t->pid)
		return false;	/* the idle task */
	if (pidtree) {
		st = bpf_task_storage_get(&sc_states, t, 0, 0);
		if (st && st->key) {
			*key = st->key;
			return true;
		}
		return host_task(t, key);
	}
	if (cgroup_container(bpf_get_current_cgroup_id(), key))
		return true;
	return host_task(t, key);
}

SEC("perf_event")
int bt_profile(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct bt_sample_event *e;
	__u64 key;
	long n;

	if (!profile_task(t, &key))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return 0;
	}
	fill_hdr(&e->hdr, t, BT_EV_SAMPLE, bpf_ktime_get_ns(), key);
	e->cpu = bpf_get_smp_processor_id();
	e->period_ns = profile_period_ns;
	/* from the interrupted registers: empty when it came in user mode */
	n = bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), 0);
	e->kstack_bytes = n;
	n = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack), BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
	e->ustack_bytes = n;
	interp_walk(t, e);
	bpf_ringbuf_submit(e, wake_flags(e, sizeof(*e)));
	return 0;
}
