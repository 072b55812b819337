/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Profile samples of the modern object (--profile, docs/tsv-format.md,
 * Profile rows). User space opens a CPU-clock perf event per CPU, firing
 * every period_ns of that CPU's time, and attaches bt_profile to each
 * (collector/kernel/profile_events.c). The program takes the stacks of the task it
 * interrupted when that task is traced (or a host task while host rows
 * are written, bpf/host.bpf.h), and writes one record: the kernel stack
 * as addresses, the user stack as build id + file offset where the kernel
 * can read the build id (BPF_F_USER_BUILD_ID; its pages' build ids
 * remembered: bpf/buildids.bpf.h), else as addresses.
 * collector/profile/frames.c turns them into frames. With
 * --profile-unwind=dwarf|auto (profile_stack_bytes) the record also holds
 * the user registers and the top of the user stack, for the collector to
 * unwind by CFI (collector/profile/unwind.c): a record of variable size,
 * built in sample_copies and copied to the ring at its length. The
 * capture (stack_fill(), stack_take(), stack_out()) is the
 * off-CPU stacks' too (bpf/offcpu.bpf.h), from sched_switch.
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
#include "bpf/buildids.bpf.h"

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

/*
 * --profile-unwind=dwarf|auto: the bytes of user stack each sample copies
 * (--profile-stack, collector/options.c; 0: frame pointers only, no copy).
 */
const volatile __u32 profile_stack_bytes = 0;

/*
 * A sample with its user registers and stack (bpf/boottrace.h,
 * bt_sample_ustack), built here and copied to the ring buffer at its
 * length. 72 KB: more than a per-CPU array's value may be (32 KB,
 * PCPU_MIN_UNIT_SIZE), so an array with an entry per CPU (max_entries
 * set by the collector), indexed by this CPU. A perf event's program does
 * not nest in another on the same CPU (bpf_prog_active), so the entry is
 * this sample's alone. The page past BT_USTACK_COPY_MAX is for the
 * verifier: a copy of at most a page from any offset up to the maximum.
 */
struct bt_sample_copy {
	struct bt_sample_event s;
	struct bt_sample_ustack u;
	__u8 stack[BT_USTACK_COPY_MAX + 4096];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* the possible CPUs, set by the collector */
	__type(key, __u32);
	__type(value, struct bt_sample_copy);
} sample_copies SEC(".maps");

/*
 * Fill @e's stacks and weight @period: the kernel's by address, the
 * user's by frame pointers, of the current task, from @ctx (a perf
 * event's: the interrupted registers; a tracepoint's: where it fired, for
 * the off-CPU stacks of bpf/offcpu.bpf.h, which fill the header first).
 */
static __always_inline void stack_take(void *ctx, __u32 period, struct bt_sample_event *e)
{
	e->cpu = bpf_get_smp_processor_id();
	e->period_ns = period;
	/*
	 * A perf event's: empty when it came in user mode. An off-CPU stack
	 * begins with the program's own frames and the tracepoint's
	 * (bt_sched_switch, bpf_trace_run4, __traceiter_sched_switch), not
	 * always all of them (the unwinder passes over the program's now and
	 * then): the collector drops what is above __schedule
	 * (collector/profile/frames.c)
	 */
	e->kstack_bytes = bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), 0);
	e->ustack_bytes = buildids_take(ctx, e);
}

/* Fill @e's header (record @type, time @ts, container @key) and stack_take()'s part. */
static __always_inline void stack_fill(void *ctx, struct task_struct *t, __u64 key, __u32 type,
				       __u64 ts, __u32 period, struct bt_sample_event *e)
{
	fill_hdr(&e->hdr, t, type, ts, key);
	stack_take(ctx, period, e);
}

/*
 * @t's user registers (saved at its entry to the kernel, or by the
 * interrupt that came in user mode: task_pt_regs() either way on x86-64)
 * and up to @want bytes of its stack from sp, into @c. The copy
 * goes a page at a time, as far as the pages are readable: a thread's
 * stack may end (its mapping's top) less than the size asked above sp,
 * and bpf_probe_read_user() takes all of a read or nothing.
 */
static __always_inline void stack_copy_ustack(struct task_struct *t, __u64 want,
					     struct bt_sample_copy *c)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	__u64 got = 0, len, sp;
	int i;

	c->u.regs[0] = r->ax;
	c->u.regs[1] = r->dx;
	c->u.regs[2] = r->cx;
	c->u.regs[3] = r->bx;
	c->u.regs[4] = r->si;
	c->u.regs[5] = r->di;
	c->u.regs[6] = r->bp;
	c->u.regs[7] = r->sp;
	c->u.regs[8] = r->r8;
	c->u.regs[9] = r->r9;
	c->u.regs[10] = r->r10;
	c->u.regs[11] = r->r11;
	c->u.regs[12] = r->r12;
	c->u.regs[13] = r->r13;
	c->u.regs[14] = r->r14;
	c->u.regs[15] = r->r15;
	c->u.regs[16] = r->ip;
	sp = r->sp;
	if (want > BT_USTACK_COPY_MAX)
		want = BT_USTACK_COPY_MAX;
	for (i = 0; i < BT_USTACK_COPY_MAX / 4096 + 1; i++) {
		if (got >= want || got > BT_USTACK_COPY_MAX)
			break;
		len = 4096 - ((sp + got) & 4095);	/* to the page's end */
		if (len > want - got)
			len = want - got;
		if (len > 4096)
			break;
		if (bpf_probe_read_user(&c->stack[got], len, (const void *)(sp + got)))
			break;
		got += len;
	}
	c->u.stack_bytes = got;
#else
	/* no registers known on this architecture: the frame-pointer stack alone */
	c->u.stack_bytes = 0;
	__builtin_memset(c->u.regs, 0, sizeof(c->u.regs));
#endif
}

/*
 * Does sample @s hold frames the collector names from the process's
 * memory as it reads the sample: the JVM's and node's (an interpreter's
 * too when the sampling program reads no names, inames.bpf.h)? Such a
 * sample wakes the collector at once: a JVM exits milliseconds after its
 * boot, and with the wake-ups batched its names were read up to a poll
 * period, 10 ms, later (under load a JVM's last 50 ms of samples were read
 * after it was gone). The rest are batched (wake_at()).
 */
static __always_inline bool named_late(const struct bt_sample_event *s)
{
	return s->interp_kind == BT_INTERP_HOTSPOT || s->interp_kind == BT_INTERP_V8 ||
	       (s->interp_kind != BT_INTERP_NONE && !inames_on);
}

/* The wake-up flags of sample record @s of @size at ring offset @off. */
static __always_inline __u64 sample_wake(const struct bt_sample_event *s, __u64 off, __u64 size)
{
	return named_late(s) ? BPF_RB_FORCE_WAKEUP : wake_at(off, size);
}

/*
 * Record @c (its sample built: stacks, interpreter frames) to the ring,
 * with @want bytes of the current task @t's user stack copied after it
 * (0: the record alone, frame pointers only). 0, or -1 when the record
 * was lost (counted).
 */
static __always_inline int stack_out(struct task_struct *t, struct bt_sample_copy *c, __u64 want)
{
	__u64 size;

	if (!want) {
		size = sizeof(c->s);
		goto out;
	}
	/* a JVM's Java stack, node's JS stack: walked already, nothing for the collector to unwind */
	if ((c->s.interp_kind == BT_INTERP_HOTSPOT || c->s.interp_kind == BT_INTERP_V8) &&
	    c->s.iframes > 1)
		c->u.stack_bytes = 0;
	else
		stack_copy_ustack(t, want, c);
	size = sizeof(c->s) + sizeof(c->u) + c->u.stack_bytes;
	if (size > sizeof(*c))
		size = sizeof(*c);
out:
	if (bpf_ringbuf_output(&events, c, size,
			       sample_wake(&c->s, bpf_ringbuf_query(&events, BPF_RB_PROD_POS), size))) {
		count_lost();
		return -1;
	}
	return 0;
}

/*
 * A record of @type (time @ts, weight @period) with the current task @t's
 * stacks and @want bytes of its user stack copied, built in this CPU's
 * entry of @copies (an array as sample_copies) and copied to the ring at
 * its length; its interpreter's frames walked when @ip (its entry in
 * interp_procs; NULL: none walked). The sampling program's capture; the
 * off-CPU stacks build theirs in parts (stack_fill(), their walk,
 * stack_out()). 0, or -1 when the record was lost (counted).
 */
static __always_inline int stack_with_ustack(void *ctx, struct task_struct *t, __u64 key,
					     __u32 type, __u64 ts, __u32 period, void *copies,
					     __u64 want, const struct bt_interp_proc *ip)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bt_sample_copy *c = bpf_map_lookup_elem(copies, &cpu);

	if (!c) {
		count_lost();
		return -1;
	}
	stack_fill(ctx, t, key, type, ts, period, &c->s);
	interp_walk(&c->s, ip);
	return stack_out(t, c, want);
}

/* The same without the user stack copied (frame pointers only). */
static __always_inline int stack_plain(void *ctx, struct task_struct *t, __u64 key, __u32 type,
				       __u64 ts, __u32 period, const struct bt_interp_proc *ip)
{
	struct bt_sample_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_lost();
		return -1;
	}
	stack_fill(ctx, t, key, type, ts, period, e);
	interp_walk(e, ip);
	bpf_ringbuf_submit(e, named_late(e) ? BPF_RB_FORCE_WAKEUP : wake_flags(e, sizeof(*e)));
	return 0;
}

/*
 * A sample of a CPython or Ruby process, built here and copied to the
 * ring: the names of its new code objects (inames.bpf.h) go to the ring
 * while it is walked, and must come before it (a record reserved first
 * is read first). A per-CPU array (3.4 KB, under PCPU_MIN_UNIT_SIZE).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_sample_event);
} sample_named SEC(".maps");

static __always_inline int sample_interp(struct bpf_perf_event_data *ctx, struct task_struct *t,
					 __u64 key, const struct bt_interp_proc *ip)
{
	__u32 zero = 0;
	struct bt_sample_event *e = bpf_map_lookup_elem(&sample_named, &zero);

	if (!e) {
		count_lost();
		return 0;
	}
	stack_fill(ctx, t, key, BT_EV_SAMPLE, bpf_ktime_get_ns(), profile_period_ns, e);
	interp_walk(e, ip);
	if (bpf_ringbuf_output(&events, e, sizeof(*e),
			       sample_wake(e, bpf_ringbuf_query(&events, BPF_RB_PROD_POS), sizeof(*e))))
		count_lost();
	return 0;
}

SEC("perf_event")
int bt_profile(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	const struct bt_interp_proc *ip;
	__u32 tgid;
	__u64 key;

	if (!profile_task(t, &key))
		return 0;
	tgid = t->tgid;
	ip = bpf_map_lookup_elem(&interp_procs, &tgid);
	if (profile_stack_bytes)
		stack_with_ustack(ctx, t, key, BT_EV_SAMPLE, bpf_ktime_get_ns(), profile_period_ns,
				  &sample_copies, profile_stack_bytes, ip);
	else if (inames_on && ip && (ip->kind == BT_INTERP_PYTHON311 || ip->kind == BT_INTERP_RUBY31))
		sample_interp(ctx, t, key, ip);
	else
		stack_plain(ctx, t, key, BT_EV_SAMPLE, bpf_ktime_get_ns(), profile_period_ns, ip);
	return 0;
}
