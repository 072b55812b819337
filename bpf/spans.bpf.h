/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Span programs of the modern object (--spans on), included at the end of
 * boottrace.bpf.c after marks.bpf.h (they use its maps, current_container()
 * and usdt.bpf.h).
 *
 * One USDT program, attached by the collector (collector/kernel/spans.c)
 * to each interpreter probe it knows, in each interpreter file a traced
 * process runs, for every process (pid -1): the cookie (BT_SPAN_COOKIE)
 * says which probe. Tasks outside the traced containers cost one uprobe
 * hit and a filter lookup, no record. The record carries the probe's
 * strings; the collector pairs the enters and returns of each thread into
 * spans (a require that raises has no return: the collector pops by name),
 * so the kernel keeps no per-task state.
 *
 * The probes have semaphores (Ruby, Python): libbpf passes their offsets
 * to the kernel (uprobe ref_ctr_offset, Linux 4.20), which counts them up
 * in every process that maps the file, also those that start later.
 */

/* A string the task passed, into @dst; its length without the NUL, or 0. */
static __always_inline __u16 span_str(char *dst, __u64 ptr)
{
	long n;

	if (!ptr)
		return 0;
	n = bpf_probe_read_user_str(dst, BT_SPAN_TEXT_MAX, (const void *)ptr);
	return n > 1 ? (__u16)(n - 1) : 0;
}

/*
 * The probe's spec (libbpf's usdt.bpf.h), looked up once a run: its
 * bpf_usdt_cookie(), bpf_usdt_arg() and bpf_usdt_arg_cnt() each look it
 * up again, a subprogram call, a helper call and a map lookup each: with
 * 4 to 5 calls a run they were 40% of the program's run time (about 500
 * of 1,100 ns, docs/costs.md). NULL: none (the run writes nothing).
 */
static __always_inline struct __bpf_usdt_spec *span_spec(struct pt_regs *ctx)
{
	int id = __bpf_usdt_spec_id(ctx);

	return id < 0 ? NULL : bpf_map_lookup_elem(&__bpf_usdt_specs, &id);
}

/*
 * Argument @i of the probe, as bpf_usdt_arg() reads it, from @spec; a kind
 * of argument this file does not know (a libbpf newer than it) is left
 * to bpf_usdt_arg(). 0 or -errno, *@res 0 then.
 */
static __always_inline int span_arg(struct pt_regs *ctx, const struct __bpf_usdt_spec *spec,
				    __u32 i, long *res)
{
	const struct __bpf_usdt_arg_spec *a;
	unsigned long val;

	*res = 0;
	if (i >= BPF_USDT_MAX_ARG_CNT || i >= spec->arg_cnt)
		return -ENOENT;
	a = &spec->args[i];
	switch (a->arg_type) {
	case BPF_USDT_ARG_CONST:
		val = a->val_off;
		break;
	case BPF_USDT_ARG_REG:
		if (bpf_probe_read_kernel(&val, sizeof(val), (void *)ctx + a->reg_off))
			return -EFAULT;
		break;
	case BPF_USDT_ARG_REG_DEREF:
		if (bpf_probe_read_kernel(&val, sizeof(val), (void *)ctx + a->reg_off) ||
		    bpf_probe_read_user(&val, sizeof(val), (void *)val + a->val_off))
			return -EFAULT;
		break;
	default:
		return bpf_usdt_arg(ctx, i, res);
	}
	val <<= a->arg_bitshift;
	if (a->arg_signed)
		val = (unsigned long)((long)val >> a->arg_bitshift);
	else
		val >>= a->arg_bitshift;
	*res = (long)val;
	return 0;
}

SEC("usdt")
int bt_span(struct pt_regs *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct __bpf_usdt_spec *spec;
	struct bt_span_event *e;
	long a0 = 0, a1 = 0, a2 = 0;
	__u8 args, phase, kind;
	__u64 key;

	/* the cgroup read as sys_enter reads it: every process runs the probe */
	if (!current_container_direct(t, &key))
		return 0;
	spec = span_spec(ctx);
	if (!spec)
		return 0;
	kind = (__u8)spec->usdt_cookie;
	phase = (__u8)(spec->usdt_cookie >> 8);
	args = (__u8)(spec->usdt_cookie >> 16);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return 0;
	}
	fill_hdr(&e->hdr, t, BT_EV_SPAN, bpf_ktime_get_ns(), key);
	e->kind = kind;
	e->phase = phase;
	e->name_len = 0;
	e->caller_len = 0;
	e->pad = 0;
	e->arg = 0;
	span_arg(ctx, spec, 0, &a0);
	if (args == BT_SPAN_ARGS_PTRLEN) {
		/* HotSpot: (pointer, length), not NUL-terminated */
		span_arg(ctx, spec, 1, &a1);
		if (a1 > BT_SPAN_TEXT_MAX - 1)
			a1 = BT_SPAN_TEXT_MAX - 1;
		if (a1 > 0 && a0 &&
		    !bpf_probe_read_user(e->name, (__u32)a1 & (BT_SPAN_TEXT_MAX - 1),
					 (const void *)a0))
			e->name_len = (__u16)a1;
	} else {
		e->name_len = span_str(e->name, (__u64)a0);
		if (args == BT_SPAN_ARGS_STR_CALLER && phase == BT_SPAN_ENTER) {
			span_arg(ctx, spec, 1, &a1);
			span_arg(ctx, spec, 2, &a2);
			e->caller_len = span_str(e->caller, (__u64)a1);
			e->arg = a2;
		} else if (kind == BT_SPAN_IMPORT && !span_arg(ctx, spec, 1, &a1)) {
			/*
			 * Python's done: found. Not asked of another probe
			 * (Ruby's returns have 3 arguments, which no row
			 * shows).
			 */
			e->arg = a1;
		}
	}
	/*
	 * Batched wake-ups (wake_at()), as rows: with 0 (the ring's
	 * adaptive wake-up) a reader that kept up was woken at each record,
	 * an irq_work and a wake-up in the traced task: 5,152 ns a run
	 * against 770 batched, and a `require` of a loaded feature (two
	 * runs) 15.5 us of CPU against 4.9, untraced 1.4
	 * (bench/spans/require_loop.rb, BOOTTRACE_BPF_STATS=1).
	 */
	submit(e);
	return 0;
}
