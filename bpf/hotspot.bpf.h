/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The JVM's frames in a profile sample (modern object, x86-64): for a
 * process the collector registered in hotspot_procs (it found libjvm.so
 * mapped and read its VMStructs: collector/profile/hotspot.c), the user
 * stack walked from the sampled registers through HotSpot's own frame
 * layouts, the way the JVM's stack walker (frame::sender()) and the
 * OpenTelemetry eBPF profiler's HotSpot unwinder go:
 *
 *  - native code (libjvm, libc, a JNI library): frame pointers, as
 *    bpf_get_stack() walks them (libjvm keeps them: 3,061 of its
 *    functions begin with push %rbp in Debian's openjdk-17);
 *  - the code cache: the CodeBlob holding the pc, found through its
 *    CodeHeap's segment map (a byte a segment: 0 where a block starts,
 *    else how many segments back to go), then by what the blob is:
 *    - the interpreter (AbstractInterpreter::_code's range): a frame
 *      pointer frame whose slots hold the Method* and the bytecode
 *      pointer (in r13 while the sampled frame runs), its caller's sp
 *      and pc;
 *    - an nmethod: compiled code keeps no frame pointer; its frame is
 *      CodeBlob::_frame_size words, the return address last: unwound by
 *      size (in the prologue, by what it has pushed so far; a pc at the
 *      deoptimization handler is the one the JVM saved in the frame);
 *    - a stub: by its frame size, or by frame pointer when it has none
 *      (StubRoutines: the call stub, which leads back into libjvm's
 *      JavaCalls::call_helper, builds a frame-pointer frame).
 * Only addresses are taken here (a Method* and a bytecode index, a pc);
 * the collector names them from the JVM's memory.
 *
 * Reads of user memory can fail (a page not present: a perf_event
 * program cannot fault it in): the stack then ends there. A wrong turn
 * (a pc at an epilogue the heuristics miss) ends it in garbage that the
 * collector's naming does not accept.
 *
 * Part of bpf/boottrace.bpf.c (included by interp.bpf.h).
 */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);		/* JVMs at once */
	__type(key, __u32);			/* tgid */
	__type(value, struct bt_hotspot_proc);
} hotspot_procs SEC(".maps");

/*
 * The CodeBlob fields read (JDK 17's end at 104: _name; 25's at 64) and
 * an nmethod's (JDK 17's _orig_pc_offset is at 300, 25's at 208).
 */
#define HS_BLOB_BYTES 128
#define HS_NM_BYTES 320
/* The buffer they are read into: a power of two that holds them, for the verifier's masks. */
#define HS_BLOB_SPAN 512
/*
 * Segment map hops at most: a block's later segments count back to its
 * start at most 254 segments at a time, so 12 hops reach 3,048 segments
 * back (190 KiB of 64-byte segments), beyond any nmethod of a boot (the
 * OpenTelemetry profiler's longest seen is 9 hops, on JDK 8).
 */
#define HS_SEGMAP_HOPS 12
/*
 * Frames looked at per sample: the native ones before the code cache (at
 * most BT_STACK_MAX, as bpf_get_stack() takes), then as many as iframe[]
 * holds. Two loops, not one of both: the verifier walks a loop's body
 * once per turn, and the Java step is the long one (bt_profile: 289,000
 * instructions verified with one loop of 160 turns).
 */
#define HS_STEPS BT_IFRAMES_MAX
/* An interpreted frame's fp is at most this far above the sp: else the frame is not built yet. */
#define HS_FRAME_MAX 0x10000
/* Slots past a compiled frame's size where its return address is looked for (pushed words). */
#define HS_RA_SLOTS 6

/* What one sample's walk keeps (a per-CPU scratch: the verifier sees one state per step). */
struct hs_walk {
	__u64 pc, sp, fp, bcp;
	__u64 slot[10];			/* an interpreted frame: fp - 64 .. fp + 8 */
	__u64 ra[HS_RA_SLOTS + 1];	/* a compiled frame's end: saved fp, return address... */
	__u8 code[16];			/* at a top compiled frame's pc - 1 */
	__u8 blob[HS_BLOB_SPAN + 8];	/* the CodeBlob (and nmethod) header */
	__u32 lead;			/* native frames before the code cache */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_walk);
} hs_walks SEC(".maps");

#define HS_PC_MASK ((1ULL << 48) - 1)

static __always_inline __u64 hs_u64(const struct hs_walk *w, __u32 off)
{
	__u64 v;

	__builtin_memcpy(&v, &w->blob[off & (HS_BLOB_SPAN - 1)], sizeof(v));
	return v;
}

static __always_inline __s32 hs_s32(const struct hs_walk *w, __u32 off)
{
	__s32 v;

	__builtin_memcpy(&v, &w->blob[off & (HS_BLOB_SPAN - 1)], sizeof(v));
	return v;
}

/* Append @v to @e's frames: 0, or -1 when full. */
static __always_inline int hs_emit(struct bt_sample_event *e, __u64 v)
{
	__u32 n = e->iframes;

	if (n >= BT_IFRAMES_MAX)
		return -1;
	e->iframe[n] = v;
	e->iframes = n + 1;
	return 0;
}

static __always_inline bool hs_in_cache(const struct bt_hotspot_proc *hp, __u64 pc)
{
	return pc >= hp->cc_lo && pc < hp->cc_hi;
}

/* The CodeBlob holding @pc: its address, or 0 (no heap holds it, a free segment, a read failed). */
static __always_inline __u64 hs_blob(const struct bt_hotspot_proc *hp, __u64 pc)
{
	__u64 lo = 0, segmap = 0, seg;
	__u32 shift = 0, i;
	__u8 tag = 0xff;

	for (i = 0; i < BT_HS_HEAPS; i++)
		if (i < hp->nheaps && pc >= hp->heap[i].lo && pc < hp->heap[i].hi) {
			lo = hp->heap[i].lo;
			segmap = hp->heap[i].segmap;
			shift = hp->heap[i].shift & 31;
			break;
		}
	if (!lo)
		return 0;
	seg = (pc - lo) >> shift;
	for (i = 0; i < HS_SEGMAP_HOPS; i++) {
		if (bpf_probe_read_user(&tag, sizeof(tag), (const void *)(segmap + seg)))
			return 0;
		if (tag == 0 || tag == 0xff)
			break;
		seg -= tag;
	}
	return tag ? 0 : lo + (seg << shift) + hp->heapblock;
}

/*
 * One frame-pointer step from @w's fp: its caller's pc, sp and fp.
 * @up: the next fp must be above this one (below the Java frames, where
 * a chain gone wrong must not loop). 0, or -1 at the chain's end.
 */
static __always_inline int hs_fp_step(struct hs_walk *w, bool up)
{
	__u64 fr[2];

	if (!w->fp || bpf_probe_read_user(fr, sizeof(fr), (const void *)w->fp))
		return -1;
	w->sp = w->fp + 16;
	w->pc = fr[1];
	w->fp = up && fr[0] <= w->fp ? 0 : fr[0];
	return w->pc ? 0 : -1;
}

/* Return from a frame whose return address is at sp (nothing else pushed). */
static __always_inline int hs_pc_only(struct hs_walk *w)
{
	__u64 ra;

	if (bpf_probe_read_user(&ra, sizeof(ra), (const void *)w->sp))
		return -1;
	w->pc = ra;
	w->sp += 8;
	return 0;
}

/* Return from a frame that pushed fp below its return address (and nothing else). */
static __always_inline int hs_fp_pc(struct hs_walk *w)
{
	__u64 fr[2];

	if (bpf_probe_read_user(fr, sizeof(fr), (const void *)w->sp))
		return -1;
	w->fp = fr[0];
	w->pc = fr[1];
	w->sp += 16;
	return 0;
}

/*
 * Return from a frame of @size bytes from sp, its return address last and
 * the caller's fp below it. Compiled code may have pushed a few words
 * more than its size says (x86-64): the return address is the first of
 * the next HS_RA_SLOTS words that points into the code cache, as
 * async-profiler and the OpenTelemetry profiler look for it.
 */
static __always_inline int hs_sized(const struct bt_hotspot_proc *hp, struct hs_walk *w,
				    __u64 size)
{
	__u32 k;

	if (bpf_probe_read_user(w->ra, sizeof(w->ra), (const void *)(w->sp + size - 16)))
		return -1;
	for (k = 0; k < HS_RA_SLOTS; k++)
		if (hs_in_cache(hp, w->ra[k + 1])) {
			w->fp = w->ra[k];
			w->pc = w->ra[k + 1];
			w->sp += size + 8 * k;
			return 0;
		}
	return -1;
}

/* An interpreted frame at @w (the interpreter's code holds the pc). */
static __always_inline int hs_interpreted(const struct bt_hotspot_proc *hp, struct hs_walk *w,
					  struct bt_sample_event *e, bool top)
{
	__u64 method, bcp, code = 0, bci = BT_HS_BCI_NONE;
	__u32 im = ((__u32)(hp->if_method + 64) >> 3) & 7, ib = ((__u32)(hp->if_bcp + 64) >> 3) & 7,
	      is = ((__u32)(hp->if_sender_sp + 64) >> 3) & 7;

	if (w->fp < w->sp || w->fp - w->sp > HS_FRAME_MAX) {
		/* a method's entry, before its frame: the return address is on top */
		if (!top || hs_emit(e, BT_HS_STUB << 60 | (w->pc & HS_PC_MASK)))
			return -1;
		return hs_pc_only(w);
	}
	if (bpf_probe_read_user(w->slot, sizeof(w->slot), (const void *)(w->fp - 64)))
		return -1;
	method = w->slot[im];
	bcp = top ? w->bcp : w->slot[ib];	/* r13 holds it while the frame runs */
	if (method && !bpf_probe_read_user(&code, sizeof(code),
					    (const void *)(method + hp->method_const)) &&
	    code && bcp >= code + hp->const_size && bcp - code - hp->const_size < BT_HS_BCI_NONE)
		bci = bcp - code - hp->const_size;
	if (hs_emit(e, BT_HS_INTERP << 60 | bci << 44 | ((method >> 3) & ((1ULL << 44) - 1))))
		return -1;
	w->sp = w->slot[is];
	w->fp = w->slot[8];
	w->pc = w->slot[9];
	return 0;
}

/*
 * Whether a top frame's pc is in an epilogue, after its frame was freed:
 * at a ret, at the pop of fp (then fp and the return address are left),
 * or after that pop or a leave, before the ret (a safepoint poll between).
 * @w->code holds the bytes from pc - 1. 1: the return address on top, 2:
 * fp and the return address, 0: not seen.
 */
static __always_inline int hs_epilogue(struct hs_walk *w)
{
	int i;

	if (bpf_probe_read_user(w->code, sizeof(w->code), (const void *)(w->pc - 1)))
		return 0;
	if (w->code[1] == 0xc3)			/* ret */
		return 1;
	for (i = 2; i < (int)sizeof(w->code); i++)
		if (w->code[i] == 0xc3)
			break;
	if (i == (int)sizeof(w->code))
		return 0;			/* no ret ahead: not an epilogue */
	if (w->code[1] == 0x5d)			/* pop %rbp */
		return 2;
	if (w->code[0] == 0x5d || w->code[0] == 0xc9)	/* just after pop %rbp, leave */
		return 1;
	return 0;
}

/* A frame in a code blob (not the interpreter) at @w, whose header is in w->blob. */
static __always_inline int hs_blob_frame(const struct bt_hotspot_proc *hp, struct hs_walk *w,
					 struct bt_sample_event *e, __u64 blob, bool top)
{
	__u64 name = hs_u64(w, hp->cb_name), size, code, pc = w->pc, deopt, orig = 0;
	__s32 fco;
	char kind[4] = {};
	bool nm;

	size = (__u64)(hs_s32(w, hp->cb_frame_size) & 0xffff) * 8;
	code = hp->flags & BT_HS_F_CODE_OFFSET ? blob + (__u32)hs_s32(w, hp->cb_code) :
						 hs_u64(w, hp->cb_code);
	fco = hs_s32(w, hp->cb_frame_complete);
	if (hp->flags & BT_HS_F_FCO16)
		fco = (__s16)fco;
	bpf_probe_read_user(kind, sizeof(kind), (const void *)name);
	/* "nmethod", "native nmethod" (a JNI method's wrapper) */
	nm = (kind[0] == 'n' && kind[1] == 'm' && kind[2] == 'e' && kind[3] == 't') ||
	     (kind[0] == 'n' && kind[1] == 'a' && kind[2] == 't' && kind[3] == 'i');
	if (nm && !top &&
	    !bpf_probe_read_user(&w->blob[HS_BLOB_BYTES], HS_NM_BYTES - HS_BLOB_BYTES,
				 (const void *)(blob + HS_BLOB_BYTES))) {
		deopt = hp->flags & BT_HS_F_DEOPT_OFFSET ? blob + (__u32)hs_s32(w, hp->nm_deopt) :
							   hs_u64(w, hp->nm_deopt);
		/* deoptimized: the JVM moved its pc into the frame, and returns to its handler */
		if (pc == deopt &&
		    !bpf_probe_read_user(&orig, sizeof(orig),
					 (const void *)(w->sp + hs_s32(w, hp->nm_orig_pc))) &&
		    hs_in_cache(hp, orig))
			pc = orig;
	}
	if (hs_emit(e, (nm ? BT_HS_COMPILED : BT_HS_STUB) << 60 | (pc & HS_PC_MASK)))
		return -1;
	if (kind[0] == 'v' || kind[0] == 'i')	/* "vtable chunks", "itable chunks": no frame */
		return hs_pc_only(w);
	if (top && fco > 0 && w->pc < code + fco)	/* in the prologue */
		return w->pc + 4 >= code + fco ? hs_fp_pc(w) : hs_pc_only(w);
	if (top && nm) {
		switch (hs_epilogue(w)) {
		case 1:
			return hs_pc_only(w);
		case 2:
			return hs_fp_pc(w);
		}
	}
	if (!size) {				/* StubRoutines: frame pointers */
		if (hs_fp_step(w, false))
			return -1;
		return 0;
	}
	return hs_sized(hp, w, size);
}

/*
 * One frame in the code cache at @w: 0, or -1 at the end of the walk. A
 * global function: the verifier checks a frame's kinds once, not again at
 * each of the walk's HS_STEPS turns (6.1's went past 1,000,000
 * instructions on bt_profile in pidtree mode: make vmtest).
 */
__noinline int hs_java_frame(const struct bt_hotspot_proc *hp, struct hs_walk *w,
			     struct bt_sample_event *e, int top)
{
	__u64 blob;

	if (!hp || !w || !e)
		return -1;
	if (w->pc >= hp->interp_lo && w->pc < hp->interp_hi)
		return hs_interpreted(hp, w, e, top);
	blob = hs_blob(hp, w->pc);
	if (!blob || bpf_probe_read_user(w->blob, HS_BLOB_BYTES, (const void *)blob))
		return -1;
	return hs_blob_frame(hp, w, e, blob, top);
}

/* Fill @e's iframe[] with the user stack from the code cache on, when @t's process is a JVM. */
static __always_inline void hotspot_walk(struct task_struct *t, struct bt_sample_event *e)
{
#if defined(__TARGET_ARCH_x86)
	__u32 tgid = e->hdr.pid, zero = 0, i;
	struct bt_hotspot_proc *hp = bpf_map_lookup_elem(&hotspot_procs, &tgid);
	struct hs_walk *w = bpf_map_lookup_elem(&hs_walks, &zero);
	struct pt_regs *r;

	if (!hp || !w)
		return;
	r = (struct pt_regs *)bpf_task_pt_regs(t);
	w->pc = r->ip;
	w->sp = r->sp;
	w->fp = r->bp;
	w->bcp = r->r13;		/* the interpreter's bytecode pointer register */
	w->lead = 0;
	e->iframe[0] = BT_HS_LEAD << 60;
	e->iframes = 1;
	/* the native frames before the code cache, as bpf_get_stack() walks them */
	for (i = 0; i < BT_STACK_MAX && !hs_in_cache(hp, w->pc); i++) {
		w->lead++;
		if (hs_fp_step(w, false))
			break;
	}
	/* then the JVM's frames, and the native ones below them */
	for (i = 0; i < HS_STEPS; i++) {
		if (hs_in_cache(hp, w->pc)) {
			if (hs_java_frame(hp, w, e, w->lead == 0 && i == 0))
				break;
		} else if (i == 0 || hs_emit(e, BT_HS_NATIVE << 60 | (w->pc & HS_PC_MASK)) ||
			   hs_fp_step(w, true)) {
			break;	/* never reached the code cache, or the chain's end */
		}
	}
	/* no Java frame: all of bpf_get_stack()'s frames */
	e->iframe[0] = BT_HS_LEAD << 60 | (e->iframes > 1 ? w->lead : BT_STACK_MAX);
	e->interp_kind = BT_INTERP_HOTSPOT;
#endif
}
