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

SEC("usdt")
int bt_span(struct pt_regs *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 cookie = bpf_usdt_cookie(ctx), key;
	__u8 args = (__u8)(cookie >> 16), phase = (__u8)(cookie >> 8);
	struct bt_span_event *e;
	long a0 = 0, a1 = 0, a2 = 0;

	if (!current_container(t, &key))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return 0;
	}
	fill_hdr(&e->hdr, t, BT_EV_SPAN, bpf_ktime_get_ns(), key);
	e->kind = (__u8)cookie;
	e->phase = phase;
	e->name_len = 0;
	e->caller_len = 0;
	e->pad = 0;
	e->arg = 0;
	bpf_usdt_arg(ctx, 0, &a0);
	if (args == BT_SPAN_ARGS_PTRLEN) {
		/* HotSpot: (pointer, length), not NUL-terminated */
		bpf_usdt_arg(ctx, 1, &a1);
		if (a1 > BT_SPAN_TEXT_MAX - 1)
			a1 = BT_SPAN_TEXT_MAX - 1;
		if (a1 > 0 && a0 &&
		    !bpf_probe_read_user(e->name, (__u32)a1 & (BT_SPAN_TEXT_MAX - 1),
					 (const void *)a0))
			e->name_len = (__u16)a1;
	} else {
		e->name_len = span_str(e->name, (__u64)a0);
		if (args == BT_SPAN_ARGS_STR_CALLER && phase == BT_SPAN_ENTER) {
			bpf_usdt_arg(ctx, 1, &a1);
			bpf_usdt_arg(ctx, 2, &a2);
			e->caller_len = span_str(e->caller, (__u64)a1);
			e->arg = a2;
		} else if (bpf_usdt_arg_cnt(ctx) > 1 && !bpf_usdt_arg(ctx, 1, &a1)) {
			e->arg = a1;	/* python's done: found */
		}
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}
