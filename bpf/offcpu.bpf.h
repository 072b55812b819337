/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Off-CPU stacks of the modern object (--offcpu-stacks on, the default
 * with --sched on; docs/tsv-format.md, Scheduler rows): when a traced
 * task leaves its CPU blocked (S or D) its stacks are taken there, in
 * sched_switch, where it is still the current task: the kernel's (the
 * way into schedule()), the user's by frame pointers and, as samples do
 * with --profile-unwind=dwarf|auto, its user registers and the top of its
 * user stack for the collector to unwind by CFI. One BT_EV_OFFSTACK record
 * (a struct bt_sample_event, period 0, hdr.ts_ns the switch-out's time),
 * before the interval's sched row; the collector gives it a stack id, as
 * a sample's, and the row names it (stack=ID). The capture is
 * profile.bpf.h's. No interpreter frames: a thread blocked in a syscall
 * has let go of its interpreter's lock (the GIL, the GVL), which is what
 * the walker follows. Host tasks get none (their rows are the runtime's
 * side, at a rate of the host's).
 *
 * Part of bpf/boottrace.bpf.c (included there, after profile.bpf.h and
 * before sched.bpf.h, which calls offcpu_stack()).
 */

/* --offcpu-stacks on (with --sched on). */
const volatile bool offcpu_stacks = false;
/* Bytes of user stack copied per off-CPU stack (0: frame pointers only, no copy). */
const volatile __u32 offcpu_stack_bytes = 0;

/*
 * The off-CPU stacks' copies, as sample_copies (an entry per CPU, set by
 * the collector): their own, so that a sample never writes over one half
 * built (a sched_switch runs with interrupts off, but a perf event of
 * another clock could come as an NMI).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* the possible CPUs, set by the collector */
	__type(key, __u32);
	__type(value, struct bt_sample_copy);
} offcpu_copies SEC(".maps");

/*
 * Task @t (current) leaves its CPU at @now in state @letter, in
 * container @key: its stacks, when it blocks.
 */
static __always_inline void offcpu_stack(void *ctx, struct task_struct *t, __u64 key, __u8 letter,
					 __u64 now)
{
	if (!offcpu_stacks || (letter != 'S' && letter != 'D') || key == BT_KEY_HOST)
		return;
	if (offcpu_stack_bytes)
		stack_with_ustack(ctx, t, key, BT_EV_OFFSTACK, now, 0, &offcpu_copies,
				  offcpu_stack_bytes, false);
	else
		stack_plain(ctx, t, key, BT_EV_OFFSTACK, now, 0, false);
}
