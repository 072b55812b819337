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
 * profile.bpf.h's. A CPython 3.11 or Ruby 3.1 process's thread gets its
 * interpreter frames too, as a sample does (bpf/interp.bpf.h): blocked in
 * a syscall it has let go of its interpreter's lock (the GIL, the GVL),
 * so the walker finds its own thread state in the interpreter's thread
 * list. The record is built in this CPU's offcpu_copies entry, the frames
 * walked (and the names of new code objects written, BT_EV_INAME) before
 * it goes to the ring: the names come first, as for a sample. A JVM's and
 * node's frames are not walked off-CPU (interp_walk_blocked()). Host
 * tasks get none (their rows are the runtime's side, at a rate of the
 * host's).
 *
 * A task that blocks again where it blocked last (the same user pc,
 * stack pointer, syscall, top BT_OFFCPU_SAME_BYTES of its user stack,
 * and interpreter frames: a server's loop around epoll_wait, a pipe's
 * reader) gets a BT_EV_OFFSTACK_SAME record instead, its header alone:
 * the collector names the last stack again. A worst case's cost (a
 * ping-pong: every block the same) is then a 512-byte read, not a 16 KiB
 * copy and its unwinding (or, with frame pointers only, a walk that looks
 * up each frame's build id); an interpreter's thread's, its frames' walk
 * too. The interpreter frames are part of "the same place": two Python
 * functions that call time.sleep() from the same C stack (the eval
 * loop's, byte for byte alike at the same depth) are two places.
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
 * the collector with --offcpu-stacks on): their own, so that a sample
 * never writes over one half built (a sched_switch runs with interrupts
 * off, but a perf event of another clock could come as an NMI). Also
 * where offcpu_same() reads the top of a stack, frame pointers or not.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* the possible CPUs, set by the collector */
	__type(key, __u32);
	__type(value, struct bt_sample_copy);
} offcpu_copies SEC(".maps");

/* Where a task last blocked with its stack taken (in its sched state); ip 0: nowhere. */
struct bt_offcpu_last {
	__u64 ip, sp, nr, hash;
};

/* The bytes of user stack from sp that tell one place from another. */
#define BT_OFFCPU_SAME_BYTES 512

/*
 * Where @t blocks now, into @cur, its top of stack read into @c (whose
 * copy is to be overwritten; its c->s.iframe[], the interpreter frames
 * walked already, folded in): whether it is @last. @cur->ip 0 when it
 * cannot be told (no registers, the stack not readable).
 */
static __always_inline bool offcpu_same(struct task_struct *t, struct bt_sample_copy *c,
					const struct bt_offcpu_last *last, struct bt_offcpu_last *cur)
{
#if defined(__TARGET_ARCH_x86)
	struct bt_pt_regs *r = (struct bt_pt_regs *)bpf_task_pt_regs(t);
	__u64 h = 0xcbf29ce484222325ULL, w;
	int i;

	cur->ip = r->ip;
	cur->sp = r->sp;
	cur->nr = r->orig_ax;
	cur->hash = 0;
	if (!cur->ip || bpf_probe_read_user(c->stack, BT_OFFCPU_SAME_BYTES, (const void *)cur->sp)) {
		cur->ip = 0;
		return false;
	}
	for (i = 0; i < BT_OFFCPU_SAME_BYTES / 8; i++) {
		__builtin_memcpy(&w, &c->stack[i * 8], 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	/* the code objects (iseqs) of its interpreter frames, innermost first */
	for (i = 0; i < BT_IFRAMES_MAX; i++) {
		if (i >= c->s.iframes)
			break;
		h = (h ^ c->s.iframe[i]) * 0x100000001b3ULL;
	}
	cur->hash = h;
	return last->ip == cur->ip && last->sp == cur->sp && last->nr == cur->nr &&
	       last->hash == cur->hash;
#else
	cur->ip = 0;
	return false;
#endif
}

/*
 * Task @t (current) leaves its CPU at @now in state @letter, in
 * container @key: its stacks, when it blocks; @last, where it last did
 * (updated).
 */
static __always_inline void offcpu_stack(void *ctx, struct task_struct *t, __u64 key, __u8 letter,
					 __u64 now, struct bt_offcpu_last *last)
{
	struct bt_offcpu_last cur = { 0 };
	const struct bt_interp_proc *ip;
	struct bt_sample_copy *c;
	struct bt_event_hdr *h;
	__u32 cpu, tgid;

	if (!offcpu_stacks || (letter != 'S' && letter != 'D') || key == BT_KEY_HOST)
		return;
	cpu = bpf_get_smp_processor_id();
	c = bpf_map_lookup_elem(&offcpu_copies, &cpu);
	if (!c) {
		/* no entry for this CPU (not sized: cannot be, but the verifier asks) */
		stack_plain(ctx, t, key, BT_EV_OFFSTACK, now, 0, NULL);
		last->ip = 0;
		return;
	}
	/* the interpreter frames first: where it blocks is they as much as its C stack */
	tgid = t->tgid;
	ip = bpf_map_lookup_elem(&interp_procs, &tgid);
	fill_hdr(&c->s.hdr, t, BT_EV_OFFSTACK, now, key);	/* the names' record reads its cgroup */
	interp_walk_blocked(&c->s, ip);
	if (offcpu_same(t, c, last, &cur)) {
		h = bpf_ringbuf_reserve(&events, sizeof(*h), 0);
		if (!h) {
			count_lost();
			last->ip = 0;	/* the collector's last may not be this one */
			return;
		}
		fill_hdr(h, t, BT_EV_OFFSTACK_SAME, now, key);
		bpf_ringbuf_submit(h, wake_flags(h, sizeof(*h)));
		return;
	}
	stack_take(ctx, 0, &c->s);	/* the header is filled above */
	if (stack_out(t, c, offcpu_stack_bytes) < 0)
		cur.ip = 0;
	*last = cur;
}
