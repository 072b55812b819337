/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An interpreter's frames in a profile sample (modern object): for a
 * process the collector registered in interp_procs (it found CPython 3.11
 * mapped: collector/profile/interp.c), the frame chain of the interrupted
 * thread, read from its memory, the way the OpenTelemetry eBPF profiler
 * and py-spy read it: the thread state of the thread holding the GIL
 * (_PyRuntime.gilstate.tstate_current), its cframe's current frame, then
 * each frame's previous. Only the code objects' addresses are taken here;
 * the collector reads their names while the process lives.
 *
 * The thread holding the GIL is the thread running Python code; the
 * interrupted thread is checked against it by its thread id as the
 * process sees it (native_thread_id is gettid() in the process's pid
 * namespace), so a thread running C code without the GIL (or another
 * thread's sample) gets no Python frames, never another thread's.
 *
 * Part of bpf/boottrace.bpf.c (included by profile.bpf.h). Reads of user
 * memory can fail (a page not present: a perf_event program cannot fault
 * it in): the chain then ends there.
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);			/* tgid */
	__type(value, struct bt_interp_proc);
} interp_procs SEC(".maps");

/* @t's thread id in its own pid namespace (the deepest level of its struct pid). */
static __always_inline __u32 interp_ns_tid(struct task_struct *t)
{
	struct pid *pid = BPF_CORE_READ(t, thread_pid);
	__u32 off = bpf_core_field_offset(pid->numbers[0].nr);
	__u32 size = bpf_core_field_size(pid->numbers[0]);
	unsigned int level;
	int nr = 0;

	if (!pid)
		return 0;
	level = BPF_CORE_READ(pid, level);
	if (level > 32)
		return 0;
	bpf_probe_read_kernel(&nr, sizeof(nr), (const char *)pid + off + level * size);
	return (__u32)nr;
}

static __always_inline __u64 interp_read_ptr(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* Fill @e's iframe[] when @t's process is a registered interpreter. */
static __always_inline void interp_walk(struct task_struct *t, struct bt_sample_event *e)
{
	__u32 tgid = e->hdr.pid;
	struct bt_interp_proc *ip = bpf_map_lookup_elem(&interp_procs, &tgid);
	__u64 tstate, frame, code, tid = 0;
	__u8 entry = 0;
	__u32 i, n = 0;

	e->interp_kind = BT_INTERP_NONE;
	e->iframes = 0;
	if (!ip || ip->kind != BT_INTERP_PYTHON311)
		return;
	tstate = interp_read_ptr(ip->tstate_addr);
	if (!tstate)
		return;		/* no thread holds the GIL */
	if (bpf_probe_read_user(&tid, sizeof(tid), (const void *)(tstate + ip->ts_tid)) ||
	    tid != interp_ns_tid(t))
		return;
	frame = interp_read_ptr(tstate + ip->ts_cframe);
	frame = frame ? interp_read_ptr(frame + ip->cf_frame) : 0;
	for (i = 0; i < BT_IFRAMES_MAX && frame; i++) {
		code = interp_read_ptr(frame + ip->fr_code);
		if (!code)
			break;
		entry = 0;
		bpf_probe_read_user(&entry, sizeof(entry), (const void *)(frame + ip->fr_is_entry));
		e->iframe[i] = code | (entry ? BT_IFRAME_ENTRY : 0);
		n = i + 1;
		frame = interp_read_ptr(frame + ip->fr_previous);
	}
	e->interp_kind = ip->kind;
	e->iframes = n;
}
