/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * V8's JS frames in a profile sample (modern object, x86-64): for a
 * process the collector registered in interp_procs as BT_INTERP_V8 (it
 * found node's v8dbg_* symbols: collector/profile/v8.c), the user stack
 * walked by frame pointers from the sampled registers. V8's generated
 * code (the interpreter's builtins, Sparkplug's baseline code, TurboFan's
 * and Maglev's) keeps a frame pointer, as node's C++ does: each frame
 * holds, below its saved fp, either a typed frame's marker (a Smi: an
 * entry, exit, stub or builtin frame) or a JS frame's context, and then
 * the frame's JSFunction (v8dbg_off_fp_context, v8dbg_off_fp_function).
 * A frame is a JS frame when both slots hold heap objects and the
 * function's map says a JSFunction: the walker keeps its address (the
 * collector names it from the process's memory), any other frame its pc.
 *
 * The native frames before the first JS frame are bpf_get_stack()'s
 * (with build ids): only counted here, as the JVM's walker counts them.
 *
 * Reads of user memory can fail (a page not present): the stack ends
 * there. JSFunctions move (the GC compacts): the collector names them
 * as soon as the sample comes, and checks what it reads.
 *
 * Part of bpf/boottrace.bpf.c (included by interp.bpf.h).
 */

/*
 * What one step of the walk keeps (a per-CPU scratch): what a step finds
 * is stored here, not kept in registers, so that the verifier sees one
 * state a step whatever the step's reads found (bt_profile: 702,000
 * instructions verified with the answers in registers).
 */
struct v8_walk {
	__u64 pc, fp;
	__u64 fr[4];		/* fp - 16: function, context or marker, saved fp, return address */
	__u64 map;		/* the function slot's map */
	__u64 js;		/* 1: a JS frame */
	__u16 type;		/* the map's instance type */
	__u16 pad[3];
	__u32 lead;		/* native frames before the first JS frame */
	__u32 pad2;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8_walk);
} v8_walks SEC(".maps");

#define V8_PC_MASK ((1ULL << 48) - 1)

/* Read @w's frame at fp: 0, or -1 at the chain's end. */
static __always_inline int v8_read(struct v8_walk *w)
{
	if (!w->fp || bpf_probe_read_user(w->fr, sizeof(w->fr), (const void *)(w->fp - 16)))
		return -1;
	return 0;
}

/* @w's slot at @off from its fp (-16 .. 8) */
static __always_inline __u64 v8_slot(const struct v8_walk *w, __s16 off)
{
	return w->fr[((__u32)(off + 16) >> 3) & 3];
}

/*
 * Whether @w's frame (read) is a JS frame, into w->js: its context and
 * function slots hold heap objects (a Smi there: a typed frame's marker),
 * and the function's map says a JSFunction. Reads from what may not be
 * an address fail, or read what is not a map: no branch needed past the
 * first (which spares most native frames two reads).
 */
static __always_inline void v8_check(const struct bt_interp_proc *ip, struct v8_walk *w)
{
	__u64 fn = v8_slot(w, ip->fp_function), ctx = v8_slot(w, ip->fp_context);

	w->map = 0;
	w->type = 0;
	w->js = 0;
	if (!(fn & ctx & 1))
		return;		/* a Smi: a typed frame's marker; or not V8's frame */
	bpf_probe_read_user(&w->map, sizeof(w->map), (const void *)(fn - 1 + ip->obj_map));
	bpf_probe_read_user(&w->type, sizeof(w->type), (const void *)(w->map - 1 + ip->map_type));
	w->js = fn & ctx & w->map & 1;
	if (w->type < ip->fn_type_lo || w->type > ip->fn_type_hi)
		w->js = 0;
}

/* Up @w's chain: the caller's pc and fp. 0, or -1 at the chain's end. */
static __always_inline int v8_step(struct v8_walk *w)
{
	__u64 fp = w->fr[2];

	w->pc = w->fr[3];
	w->fp = fp > w->fp ? fp : 0;	/* the stack grows down: a chain gone wrong must not loop */
	return w->pc ? 0 : -1;
}

/* Fill @e's iframe[] with the user stack from its first JS frame on, when @t's process is V8's. */
static __always_inline void v8_walk(struct task_struct *t, struct bt_sample_event *e,
				    const struct bt_interp_proc *ip)
{
#if defined(__TARGET_ARCH_x86)
	__u32 zero = 0, i;
	__u64 v;
	struct v8_walk *w = bpf_map_lookup_elem(&v8_walks, &zero);
	struct pt_regs *r;
	bool js = false;

	if (!w)
		return;
	r = (struct pt_regs *)bpf_task_pt_regs(t);
	w->pc = r->ip;
	w->fp = r->bp;
	w->lead = 0;
	e->iframe[0] = BT_HS_LEAD << 60;
	e->iframes = 1;
	/* the native frames before the first JS frame, as bpf_get_stack() walks them */
	for (i = 0; i < BT_STACK_MAX; i++) {
		if (v8_read(w))
			break;
		v8_check(ip, w);
		if (w->js) {
			js = true;
			break;
		}
		w->lead++;
		if (v8_step(w))
			break;
	}
	/* then the JS frames, and the native ones between and below them */
	for (i = 0; js && i < BT_IFRAMES_MAX; i++) {
		if (i && v8_read(w))
			break;
		v8_check(ip, w);
		/* a JS frame: its JSFunction; another: its pc */
		v = w->pc ^ ((w->pc ^ v8_slot(w, ip->fp_function)) & (0 - w->js));
		if (hs_emit(e, (BT_HS_NATIVE + w->js) << 60 | (v & V8_PC_MASK)) || v8_step(w))
			break;
	}
	/* no JS frame: all of bpf_get_stack()'s frames */
	e->iframe[0] = BT_HS_LEAD << 60 | (e->iframes > 1 ? w->lead : BT_STACK_MAX);
	e->interp_kind = BT_INTERP_V8;
#endif
}
