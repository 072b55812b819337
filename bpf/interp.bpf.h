/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * An interpreter's frames in a profile sample (modern object): for a
 * process the collector registered in interp_procs (it found CPython 3.11
 * or Ruby 3.1 mapped: collector/profile/interp.c), the frame chain of the
 * interrupted thread, read from its memory, the way the OpenTelemetry
 * eBPF profiler, py-spy and rbspy read it. The code objects' addresses
 * are taken here, and the first time a process's samples show one (or
 * another object at its address), its names (bpf/inames.bpf.h): before
 * the sample's record is written, so the collector knows them when it
 * formats it.
 *
 * CPython 3.11: the thread state of the thread holding the GIL
 * (_PyRuntime.gilstate.tstate_current), its cframe's current frame, then
 * each frame's previous.
 *
 * Ruby 3.1: the main ractor (ruby_single_main_ractor, NULL once a second
 * ractor is made), the execution context running on it (its
 * threads.running_ec: the thread holding the GVL, the fiber it runs),
 * then its control frames from ec->cfp up to the end of its VM stack
 * (vm_stack + vm_stack_size VALUEs), each a Ruby frame when its iseq is
 * an imemo iseq, its pc is set and its magic (ep[0]) is not a dummy's
 * (C-method frames hold a method entry there; the dummy frames, nothing
 * or an empty iseq).
 *
 * The thread holding the GIL (GVL) is the thread running interpreted
 * code, and the one a sample most often interrupts: it is looked at
 * first, checked against the interrupted thread by its thread id as the
 * process sees it (native_thread_id, rb_thread_t.tid: gettid() in the
 * process's pid namespace). A thread that is not the holder (blocked, its
 * off-CPU stack taken in sched_switch: bpf/offcpu.bpf.h; or running C code
 * without the lock) is then looked for in the interpreter's thread list,
 * as py-spy and rbspy find a thread's own state: CPython's main
 * interpreter's threads.head → PyThreadState.next, Ruby's main ractor's
 * threads.set (rb_thread_t linked by lt_node), up to INTERP_THREADS of
 * them, matched by the same thread id. Its own frames, never another
 * thread's: the thread state's cframe->current_frame is the innermost
 * Python frame it left to block (time.sleep's caller); a Ruby thread's
 * ec->cfp, its innermost control frame (Kernel#sleep's C frame, skipped,
 * then its caller). CPython clears tstate_current when a thread lets go
 * of the GIL; Ruby 3.1 keeps running_ec set while a lone thread sleeps
 * (read from a live sleeping process), so there the holder's path still
 * finds it, and the list serves when threads take turns.
 *
 * A JVM (BT_INTERP_HOTSPOT) is walked by bpf/hotspot.bpf.h: its whole
 * user stack from the code cache on, not an interpreter's chain; V8
 * (BT_INTERP_V8, node) by bpf/v8.bpf.h, from its first JS frame on.
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

#include "bpf/hotspot.bpf.h"
#include "bpf/v8.bpf.h"

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

#include "bpf/inames.bpf.h"

/*
 * Ruby's control frames looked at per sample, at most: C-method frames
 * (Integer#times, Array#each: one per block call) are among them, so a
 * stack of 48 Ruby frames may take more: 160 frames, read 8 at a time,
 * then at most 2 reads of user memory each and the names' tag, or none
 * when the walk's memo has the frame (below).
 */
#define INTERP_RB_CFPS 160
#define RB_T_MASK 0x1f		/* RBasic.flags: the type */
#define RB_T_IMEMO 0x1a
#define RB_IMEMO_SHIFT 12	/* FL_USHIFT: imemo_type's bits */
#define RB_IMEMO_ISEQ 7
#define RB_FRAME_FINISH 0x20	/* VM_FRAME_FLAG_FINISH, in ep[0] */
#define RB_FRAME_MAGIC_MASK 0x7fff0001	/* VM_FRAME_MAGIC_MASK, in ep[0] */
#define RB_FRAME_MAGIC_DUMMY 0x79990001	/* VM_FRAME_MAGIC_DUMMY */

/*
 * The threads of an interpreter's list looked at, at most, for a thread
 * that is not the lock holder: 2 reads of user memory each. A boot's
 * interpreters run a few threads; a thread past the 32nd gets no frames.
 */
#define INTERP_THREADS 32

/*
 * CPython 3.11: the thread state of the thread whose id (in its pid
 * namespace) is @tid, from the main interpreter's list; 0 when none is.
 * A global function, as interp_own_ruby(): the verifier checks the list's
 * turns once, and the frame walk after it once, not after each turn the
 * search may end at (inlined, 6.1's verifier went past 1,000,000
 * instructions on bt_sched_switch: make vmtest).
 */
__noinline __u64 interp_own_python(const struct bt_interp_proc *ip, __u32 tid)
{
	__u64 ts, id;
	__u32 i;

	if (!ip)
		return 0;
	ts = interp_read_ptr(ip->tstate_addr + (__s64)ip->rt_interp);	/* interpreters.main */
	ts = ts ? interp_read_ptr(ts + ip->is_threads_head) : 0;
	for (i = 0; i < INTERP_THREADS && ts; i++) {
		id = 0;
		if (!bpf_probe_read_user(&id, sizeof(id), (const void *)(ts + ip->ts_tid)) &&
		    id == tid)
			return ts;
		ts = interp_read_ptr(ts + ip->ts_next);
	}
	return 0;
}

/*
 * Ruby 3.1: the execution context of the thread whose id is @tid, from
 * @ractor's threads.set (a ccan list: its head's next, each node's next,
 * back to the head); 0 when none is. A global function (interp_own_python()).
 */
__noinline __u64 interp_own_ruby(const struct bt_interp_proc *ip, __u64 ractor, __u32 tid)
{
	__u64 head, node, th;
	__u32 i, id;

	if (!ip)
		return 0;
	head = ractor + ip->rr_threads_set;
	node = interp_read_ptr(head);	/* list_head.n.next */
	for (i = 0; i < INTERP_THREADS && node && node != head; i++) {
		th = node - ip->th_lt_node;
		id = 0;
		if (!bpf_probe_read_user(&id, sizeof(id), (const void *)(th + ip->th_tid)) &&
		    id == tid)
			return interp_read_ptr(th + ip->th_ec);
		node = interp_read_ptr(node);	/* list_node.next */
	}
	return 0;
}

/*
 * Ruby: a walk's memo of the control frames it looked at, so that the
 * next sample's walk of the same stack reads none of them again. A
 * boot's stacks are deep (Rails: 100 and more control frames) and change
 * at their innermost end between two samples a millisecond apart: the
 * frames further out are the same frames, each still at its address with
 * the same pc (the instruction after its call), iseq and ep. Such a frame
 * is taken from the memo: no read of its iseq, its ep[0] or its names'
 * tag (3 reads of user memory and a hash lookup; docs/costs.md). The
 * control frames themselves are read RB_CFP_CHUNK bytes at a time (8 of
 * 3.1's), not one a read.
 *
 * A frame is remembered by its slot, its depth from the VM stack's end
 * (the outermost frame's slot is 0) modulo RB_MEMO_SLOTS, with its
 * address. The memo holds for one process's registration (tgid, gen):
 * another's, or a walk more than RB_MEMO_NS after the last, starts a new
 * epoch and every slot of the old one is forgotten. What it cannot see:
 * a frame that returned and whose iseq was freed, another iseq made at
 * its address with its instructions at the same address, and pushed at
 * the same depth with the same ep, between two samples. The tag would
 * name it again; the memo names it as the frame before. So each slot is
 * read whole again at every RB_MEMO_RECHECK-th walk at most (by turns:
 * slot + walk number), which bounds such a frame's wrong name to a few
 * samples.
 */
#define RB_MEMO_SLOTS 256		/* a power of 2, over INTERP_RB_CFPS */
#define RB_MEMO_RECHECK 8		/* a power of 2 */
#define RB_MEMO_NS 20000000ULL		/* 20 ms: two periods of 99 Hz */
#define RB_CFP_CHUNK 512		/* bytes: a power of 2, 8 control frames of 3.1's */

struct rb_frame_memo {
	__u64 cfp, pc, iseq, ep;
	__u64 out;		/* its iframe[] value, or 0: not a Ruby frame */
	__u64 epoch;		/* the memo's epoch it holds for (0: none) */
};

struct rb_walk_memo {
	__u64 ts;		/* the last walk's time */
	__u64 epoch;
	__u32 tgid, gen;	/* the process and registration it holds for */
	__u32 seq, pad;		/* walks in this epoch */
	struct rb_frame_memo m[RB_MEMO_SLOTS];
};

/*
 * The walkers' copies (Ruby: a chunk of control frames, cf, twice its
 * size for the verifier's bound of a read of any length up to it, the
 * walk's place in it, and an iseq's head, is; CPython: a frame's span
 * from f_code, f), iname_see()'s of the names' tag span, and Ruby's
 * memo, per CPU, off the BPF stack: an off-CPU stack's walk runs under
 * bt_sched_switch's frame with iname_see()'s after it, 512 bytes for the
 * three. Entry 0 for samples, 1 for off-CPU stacks (a sample's NMI can
 * come while sched_switch walks). 13.3 KB, under a per-CPU value's 32 KB.
 */
struct interp_scratch {
	__u64 f[8];
	__u64 is[4];
	__u64 cf[2 * RB_CFP_CHUNK / 8];
	struct {
		__u64 end, depth;	/* the VM stack's end, the innermost frame's depth */
		__u32 k, have;		/* cf's frame to take next, and how many it holds */
		__u64 iseq, body;	/* rb_cfp()'s frame whose names to see, when see */
		__u32 slot, see;	/* and its memo's slot */
	} walk;
	struct iname_span span;
	struct rb_walk_memo memo;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct interp_scratch);
} interp_scratches SEC(".maps");

static __always_inline struct interp_scratch *interp_scratch(const struct bt_sample_event *e)
{
	__u32 slot = e->hdr.type == BT_EV_OFFSTACK ? 1 : 0;

	return bpf_map_lookup_elem(&interp_scratches, &slot);
}

/*
 * Ruby 3.1: what control frame (@iseq, @ep) is in @e's iframe[] (read
 * from user memory): its iseq with the entry bit, or 0 when it is no Ruby
 * frame; sc->is, the iseq's head (its body, for iname_see()).
 */
static __always_inline __u64 rb_frame(struct interp_scratch *sc, __u64 iseq, __u64 ep)
{
	__u64 flags, *is = sc->is;

	/*
	 * The iseq's flags and body in one read (rb_iseq_t: flags,
	 * wrapper, body; 3.1: body 16), the body for iname_see()'s tag:
	 * the iseq's first 32 bytes, in its 40-byte heap slot.
	 */
	__builtin_memset(is, 0, sizeof(sc->is));
	if (iseq)
		bpf_probe_read_user(is, sizeof(sc->is), (const void *)iseq);	/* zeroed if not there */
	flags = is[0];
	if ((flags & RB_T_MASK) != RB_T_IMEMO || ((flags >> RB_IMEMO_SHIFT) & 0xf) != RB_IMEMO_ISEQ)
		return 0;	/* a C method's frame, or a dummy */
	flags = ep ? interp_read_ptr(ep) : 0;
	if ((flags & RB_FRAME_MAGIC_MASK) == RB_FRAME_MAGIC_DUMMY)
		return 0;	/* rb_vm_call_cfunc's, an empty <main> named after $0 */
	return iseq | (flags & RB_FRAME_FINISH ? BT_IFRAME_ENTRY : 0);
}

/*
 * Ruby 3.1: control frame @i of a walk (its address @cfp) into @e's
 * iframe[], taken from the memo or read (rb_frame()); the chunk of
 * control frames it is in read first when the walk's last is used up
 * (sc->walk: the walk's state, in memory). A frame read, not remembered,
 * is left in sc->walk for its caller to see its names (sc->walk.see):
 * iname_see() called from here would make bt_sched_switch's chain of
 * frames four deep, over 512 bytes on 6.1. 1 when iframe[] is full, else 0.
 *
 * A global function: the verifier checks a frame's work once, not at each
 * of the walk's INTERP_RB_CFPS turns (inlined, the memo's comparisons
 * took bt_profile past 1,000,000 instructions).
 */
__noinline int rb_cfp(struct bt_sample_event *e, const struct bt_interp_proc *ip,
		      struct interp_scratch *sc, __u64 cfp, __u32 i)
{
	struct rb_walk_memo *memo;
	struct rb_frame_memo *m;
	__u64 pc, iseq, ep, out, left, *cf;
	__u32 n, len, slot, off;

	if (!e || !ip || !sc || ip->cfp_size < 64 || ip->cfp_size > RB_CFP_CHUNK ||
	    e->iframes >= BT_IFRAMES_MAX)
		return 1;
	sc->walk.see = 0;
	cf = sc->cf;
	memo = &sc->memo;
	if (sc->walk.k >= sc->walk.have) {
		/* the next chunk: as many frames as fit, up to the stack's end */
		left = (sc->walk.end - cfp) / ip->cfp_size;
		sc->walk.have = left > RB_CFP_CHUNK / ip->cfp_size ? RB_CFP_CHUNK / ip->cfp_size : left;
		len = sc->walk.have * ip->cfp_size;
		if (len > RB_CFP_CHUNK)
			len = RB_CFP_CHUNK;
		barrier_var(len);
		len &= 2 * RB_CFP_CHUNK - 1;	/* for 6.1's verifier, as iname_copy() */
		if (len < 64 || bpf_probe_read_user(cf, len, (const void *)cfp)) {
			/* a page not there: this frame alone (zeroed if not there: no pc) */
			sc->walk.have = 1;
			bpf_probe_read_user(cf, 64, (const void *)cfp);
		}
		sc->walk.k = 0;
	}
	off = sc->walk.k++ * ip->cfp_size;
	pc = cf[((off + ip->cfp_pc) >> 3) & (2 * RB_CFP_CHUNK / 8 - 1)];
	if (!pc)
		return 0;	/* a C method's frame, or no frame */
	iseq = cf[((off + ip->cfp_iseq) >> 3) & (2 * RB_CFP_CHUNK / 8 - 1)];
	ep = cf[((off + ip->cfp_ep) >> 3) & (2 * RB_CFP_CHUNK / 8 - 1)];
	slot = (__u32)(sc->walk.depth - 1 - i) & (RB_MEMO_SLOTS - 1);
	m = &memo->m[slot];
	if (m->epoch == memo->epoch && ((slot + memo->seq) & (RB_MEMO_RECHECK - 1)) &&
	    m->cfp == cfp && m->pc == pc && m->iseq == iseq && m->ep == ep) {
		out = m->out;
	} else {
		out = rb_frame(sc, iseq, ep);
		m->cfp = cfp;
		m->pc = pc;
		m->iseq = iseq;
		m->ep = ep;
		m->out = out;
		m->epoch = memo->epoch;
		if (out && inames_on) {
			sc->walk.see = 1;
			sc->walk.iseq = iseq;
			sc->walk.body = sc->is[(ip->iseq_body >> 3) & 3];
			sc->walk.slot = slot;
		}
	}
	if (!out)
		return 0;
	n = e->iframes;
	if (n >= BT_IFRAMES_MAX)
		return 1;
	e->iframe[n] = out;
	e->iframes = n + 1;
	return 0;
}

/* Ruby 3.1: @e's iframe[], the iseqs of @t's execution context (the running one's, or its own). */
static __always_inline void interp_walk_ruby(struct task_struct *t, struct bt_sample_event *e,
					     const struct bt_interp_proc *ip)
{
	__u64 ractor, ec, cfp, end, now, size = 0;
	__u32 i, tid = 0, me = interp_ns_tid(t);
	struct interp_scratch *sc = interp_scratch(e);
	struct rb_walk_memo *memo;

	if (!sc)
		return;
	memo = &sc->memo;

	ractor = interp_read_ptr(ip->tstate_addr);
	if (!ractor)
		return;		/* several ractors */
	ec = interp_read_ptr(ractor + ip->rr_running_ec);
	if (!ec || bpf_probe_read_user(&tid, sizeof(tid),
				       (const void *)(interp_read_ptr(ec + ip->ec_thread) + ip->th_tid)) ||
	    tid != me)
		ec = interp_own_ruby(ip, ractor, me);
	if (!ec)
		return;		/* not a Ruby thread of the main ractor's (or past INTERP_THREADS) */
	if (bpf_probe_read_user(&size, sizeof(size), (const void *)(ec + ip->ec_vm_stack_size)))
		return;
	end = interp_read_ptr(ec + ip->ec_vm_stack) + size * 8;
	cfp = interp_read_ptr(ec + ip->ec_cfp);
	/*
	 * A control frame's pc, iseq and ep taken from its chunk's copy
	 * (3.1: a frame of 64 bytes, pc 0, iseq 16, ep 32; a smaller frame,
	 * or one larger than a chunk, is no layout this walker knows).
	 */
	if (ip->cfp_size < 64 || ip->cfp_size > RB_CFP_CHUNK || !cfp || cfp >= end)
		return;
	sc->walk.end = end;
	sc->walk.depth = (end - cfp) / ip->cfp_size;
	sc->walk.k = sc->walk.have = 0;
	now = bpf_ktime_get_ns();
	if (memo->tgid != t->tgid || memo->gen != ip->gen || now - memo->ts > RB_MEMO_NS) {
		memo->epoch++;		/* every slot forgotten */
		memo->tgid = t->tgid;
		memo->gen = ip->gen;
		memo->seq = 0;
	}
	memo->ts = now;
	memo->seq++;
	for (i = 0; i < INTERP_RB_CFPS && cfp < end; i++, cfp += ip->cfp_size) {
		if (rb_cfp(e, ip, sc, cfp, i))
			break;
		/* its names' record lost: not remembered, its names read again at its next sample */
		if (sc->walk.see && iname_see(ip, sc->walk.iseq, sc->walk.body, e->hdr.cgroup_id, &sc->span))
			memo->m[sc->walk.slot & (RB_MEMO_SLOTS - 1)].epoch = 0;
	}
	e->interp_kind = ip->kind;
}

/* The bytes of a CPython frame read from its f_code on: up to is_entry, within 3.11's 72 */
#define INTERP_PY_FRAME_SPAN 40

/* CPython 3.11: @e's iframe[], the code objects of @t's thread state's frames. */
static __always_inline void interp_walk_python(struct task_struct *t, struct bt_sample_event *e,
					       const struct bt_interp_proc *ip)
{
	__u64 tstate, frame, code, tid = 0, *fr;
	__u32 i, n = 0, iprev, ient, me = interp_ns_tid(t);
	struct interp_scratch *sc = interp_scratch(e);
	__u8 entry = 0;

	if (!sc)
		return;
	fr = sc->f;

	tstate = interp_read_ptr(ip->tstate_addr);	/* the GIL holder's, or NULL */
	if (!tstate || bpf_probe_read_user(&tid, sizeof(tid), (const void *)(tstate + ip->ts_tid)) ||
	    tid != me)
		tstate = interp_own_python(ip, me);
	if (!tstate)
		return;		/* not a thread of the main interpreter's (or past INTERP_THREADS) */
	frame = interp_read_ptr(tstate + ip->ts_cframe);
	frame = frame ? interp_read_ptr(frame + ip->cf_frame) : 0;
	/*
	 * Each frame's f_code, previous and is_entry in one read (3.11:
	 * 32, 48 and 68 of a _PyInterpreterFrame of 72 bytes and more): the
	 * 40 bytes from f_code on, taken from the copy (one read of user
	 * memory for three; docs/costs.md).
	 */
	if (ip->fr_previous < ip->fr_code || ip->fr_previous + 8 > ip->fr_code + INTERP_PY_FRAME_SPAN ||
	    ip->fr_is_entry < ip->fr_code || ip->fr_is_entry >= ip->fr_code + INTERP_PY_FRAME_SPAN)
		return;		/* not a layout this walker knows */
	iprev = (ip->fr_previous - ip->fr_code) >> 3;
	ient = ip->fr_is_entry - ip->fr_code;
	for (i = 0; i < BT_IFRAMES_MAX && frame; i++) {
		if (bpf_probe_read_user(fr, INTERP_PY_FRAME_SPAN, (const void *)(frame + ip->fr_code)))
			break;
		code = fr[0];
		if (!code)
			break;
		if (inames_on)
			iname_see(ip, code, 0, e->hdr.cgroup_id, &sc->span);
		entry = (__u8)(fr[(ient >> 3) & 7] >> ((ient & 7) * 8));
		e->iframe[i] = code | (entry ? BT_IFRAME_ENTRY : 0);
		n = i + 1;
		frame = fr[iprev & 7];
	}
	e->interp_kind = ip->kind;
	e->iframes = n;
}

/*
 * CPython's or Ruby's frames of the current task into @e (its process's
 * @ip): a global function, which the verifier checks once per program,
 * not at each caller (the sampling program's three captures, the off-CPU
 * stacks' in sched_switch): inlined, each copy of the walks' turns and of
 * the thread lists' was checked again, at each load (docs/costs.md says
 * what the one check still adds to the collector's start). Always 0.
 */
__noinline int interp_walk_own(struct bt_sample_event *e, const struct bt_interp_proc *ip)
{
	struct task_struct *t = bpf_get_current_task_btf();

	if (!e || !ip)
		return 0;
	if (ip->kind == BT_INTERP_RUBY31)
		interp_walk_ruby(t, e, ip);
	else if (ip->kind == BT_INTERP_PYTHON311)
		interp_walk_python(t, e, ip);
	return 0;
}

/*
 * The JVM's and V8's walkers of the current task's stack into @e, as
 * global functions for the reason interp_walk_own() is one: inlined in
 * bt_profile, with the pidtree mode's lookups before them, 6.1's verifier
 * went past 1,000,000 instructions (make vmtest, test_collector_profile_kernel
 * in pidtree mode). Always 0.
 */
__noinline int interp_walk_hotspot(struct bt_sample_event *e)
{
	if (e)
		hotspot_walk(bpf_get_current_task_btf(), e);
	return 0;
}

__noinline int interp_walk_v8(struct bt_sample_event *e, const struct bt_interp_proc *ip)
{
	if (e && ip)
		v8_walk(bpf_get_current_task_btf(), e, ip);
	return 0;
}

/*
 * Fill @e's iframe[] when the current task's process is a registered
 * interpreter (@ip, its entry in interp_procs, else NULL), and write the
 * names of the code objects its samples had not shown yet (inames.bpf.h).
 */
static __always_inline void interp_walk(struct bt_sample_event *e, const struct bt_interp_proc *ip)
{
	e->interp_kind = BT_INTERP_NONE;
	e->iframes = 0;
	if (!ip)
		return;
	/* one walker a path: the verifier then walks each once, not after each other's */
	switch (ip->kind) {
	case BT_INTERP_HOTSPOT:
		interp_walk_hotspot(e);
		return;
	case BT_INTERP_RUBY31:
	case BT_INTERP_PYTHON311:
		interp_walk_own(e, ip);
		return;
	case BT_INTERP_V8:
		interp_walk_v8(e, ip);
		return;
	default:
		return;
	}
}

/*
 * The same for the current task, blocked (bpf/offcpu.bpf.h): CPython's
 * and Ruby's frames only. A JVM's and node's walkers go down the user
 * stack from the registers a sample interrupted, not from a thread's
 * state; off-CPU they would start in libc's syscall wrapper, a walk not
 * tried here.
 */
static __always_inline void interp_walk_blocked(struct bt_sample_event *e,
						const struct bt_interp_proc *ip)
{
	e->interp_kind = BT_INTERP_NONE;
	e->iframes = 0;
	/* a pointer that may be NULL is no global function's argument on every kernel: checked here */
	if (ip)
		interp_walk_own(e, ip);
}
