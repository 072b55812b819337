/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Host rows of the modern object (docs/tsv-format.md, Host rows): while
 * user space sets host_rows (client mode, during each boot; --sched host,
 * the whole trace), every task outside the traced containers gets fork,
 * exec, exit and scheduler records, keyed BT_KEY_HOST, not its syscalls:
 * the runtime's side of a boot (the client, dockerd, containerd, the shim,
 * runc), which the analyzer's critical path follows. Part of
 * bpf/boottrace.bpf.c (included there, after current_container()), in a
 * file of its own as pidtree.bpf.h is.
 *
 * Off, it costs the untraced tasks of the fork, exec, exit and
 * sched_switch programs one load and a branch, and nothing elsewhere
 * (sys_enter and sys_exit never look at it).
 */

/* Set and cleared by user space (the skeleton's .bss, mapped) while it runs. */
__u32 host_rows;
/*
 * When host_rows was last set (bpf_ktime_get_ns()'s clock), by user space
 * before it: a host task that left its CPU before then and comes back
 * after has its interval from then (sched.bpf.h, host_unseen_*()), so
 * that a task's time from then on is known whatever it was doing.
 */
__u64 host_rows_since;
/* The collector's own process: its rows would feed themselves (each read is a switch). */
const volatile __u32 self_tgid = 0;

/*
 * Whether task @t, outside every traced container, gets host rows now:
 * not the idle task (tid 0, one per CPU), not the collector's threads.
 */
static __always_inline bool host_task(struct task_struct *t, __u64 *key)
{
	if (!READ_ONCE(host_rows) || !t->pid || t->tgid == self_tgid)
		return false;
	*key = BT_KEY_HOST;
	return true;
}

/*
 * Whether task @t (maybe not current) is in a traced container, and which:
 * cgroup mode, its own cgroup (a child made by CLONE_INTO_CGROUP is in
 * its container from the start); pidtree mode, its key.
 */
static __always_inline bool task_container(struct task_struct *t, __u64 *key)
{
	if (pidtree)
		return pidtree_container(t, key);
	return cgroup_container(BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id), key);
}

/* host_task() for @t, maybe not current, whose container is not known yet. */
static __always_inline bool host_task_of(struct task_struct *t, __u64 *key)
{
	__u64 k;

	if (!READ_ONCE(host_rows) || task_container(t, &k))
		return false;
	return host_task(t, key);
}
