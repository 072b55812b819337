/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The names of an interpreter's code objects, read by the sampling
 * program (BT_EV_INAME, bpf/boottrace.h): the first time a registered
 * process's samples show a code object (a CPython code object, a Ruby
 * iseq), its label (qualname), file and first line are read here and
 * written as a record of their own, before the sample that shows it. The
 * collector names the frames from those records: reading the names from
 * the process's memory when it writes the sample (a second later when it
 * is slowed, ASan's) found some objects freed and their memory reused
 * (Ruby's iseq of a file's top level, garbage once the file is loaded):
 * `? (?:0)`, or another object's name.
 *
 * Seen: an LRU hash of (code object, tgid, registration), so a pid used
 * again, or a process that exec'd and was registered again, has its names
 * read again. Its value is the object's tag: a hash of words that tell
 * which object sits at that address, read in one span as the walker sees
 * the frame (CPython: co_firstlineno to co_qualname, the co_filename and
 * co_qualname pointers among them; Ruby: the iseq's body pointer and the
 * body's first 120 bytes: its size, its parameters, its location's
 * pathobj and label VALUEs, first line and the code's extent). An
 * interpreter frees code objects and makes others at their addresses
 * (CPython's `<module>` code of each import, dropped once the module ran:
 * the next module's lands there; Ruby's iseqs the GC took, a gemspec's
 * block): a frame whose tag is not the one stored has its names read and
 * written again, and the collector takes the newer name for that address
 * (interp.c, interp_iname()); the record still comes before the sample.
 * A `<module>` qualname is the same interned str for every module: the
 * filename pointer (a str the module keeps) and the first line tell
 * modules apart. Not told apart: an object whose words all equal the
 * freed one's, its strings made again at the same addresses with other
 * bytes (Ruby: code of the same shape eval'd from two files in a row,
 * its path String's slot taken again, the GC run in between): that would
 * take reading the strings at every frame.
 * A record the ring had no room for is counted lost and its code object
 * forgotten (read again at its next sample).
 *
 * iname_see() is a global function: the verifier checks it once, not at
 * each of the walks' turns (160 of Ruby's, 96 of CPython's), which call it
 * for every frame. Per frame, one read of user memory (the tag's span of
 * the code object, of the iseq's body) and a hash lookup; per new code
 * object, 3 to 7 more reads (the strings) and a record.
 *
 * Part of bpf/boottrace.bpf.c (included by interp.bpf.h).
 */

/* 0: no names read here (BOOTTRACE_TEST_NO_INAMES, man collector): the walks call nothing */
const volatile __u8 inames_on = 1;

struct iname_key {
	__u64 code;
	__u32 tgid;
	__u32 gen;		/* bt_interp_proc.gen */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 32768);
	__type(key, struct iname_key);
	__type(value, __u64);		/* the object's tag */
} iname_seen SEC(".maps");

/*
 * The tag's span, 8-byte words: CPython's, 8 from co_firstlineno; Ruby's,
 * the body's first 15 (to the end of its location).
 */
#define INAME_SPAN_WORDS 16
#define INAME_PY_SPAN 64
#define INAME_RB_SPAN 120

/*
 * Where iname_see() copies the span: the walker's per-CPU scratch
 * (interp.bpf.h's struct interp_scratch), off the BPF stack, which the
 * off-CPU stacks' walk shares with bt_sched_switch's and the walker's
 * frames (512 bytes for the three; 656 with the span there).
 */
struct iname_span {
	__u64 w[INAME_SPAN_WORDS];
};

#define INAME_RB_T_STRING 0x05
#define INAME_RB_T_ARRAY 0x07
#define INAME_RB_FL_USER1 (1ULL << 13)	/* RString: not embedded; RArray: embedded */

static __always_inline __u64 iname_ptr(__u64 addr)
{
	__u64 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

_Static_assert((BT_INAME_TEXT & (BT_INAME_TEXT - 1)) == 0, "BT_INAME_TEXT: a power of 2 (a mask)");

/* @len bytes at @data into @out (BT_INAME_TEXT, cut): how many, or -1. */
static __always_inline int iname_copy(char *out, __u64 len, __u64 data)
{
	__u32 n = len > BT_INAME_TEXT - 1 ? BT_INAME_TEXT - 1 : (__u32)len;

	/*
	 * The bound again as a mask in the register the call takes: clang
	 * spilled len before the comparison and reloaded it for the call,
	 * and 6.1's verifier keeps no bound through such a spill ("R2 min
	 * value is negative": bt_profile did not load there, make vmtest)
	 */
	barrier_var(n);
	n &= BT_INAME_TEXT - 1;
	if (!data || bpf_probe_read_user(out, n, (const void *)data))
		return -1;
	return (int)n;
}

/* CPython str @addr into @out: its length, or -1 (interp.c's py_str). */
static __always_inline int iname_py_str(const struct bt_interp_proc *ip, __u64 addr, char *out)
{
	__u32 state = 0;
	__u64 len = 0;

	if (!addr || bpf_probe_read_user(&state, sizeof(state), (const void *)(addr + ip->str_state)) ||
	    !(state & (1u << 5)))
		return -1;	/* not compact: no string a code object names */
	if (state & (1u << 6)) {	/* ASCII: the bytes follow the header */
		if (bpf_probe_read_user(&len, sizeof(len), (const void *)(addr + ip->str_length)))
			return -1;
		return iname_copy(out, len, addr + ip->str_ascii_data);
	}
	if (bpf_probe_read_user(&len, sizeof(len), (const void *)(addr + ip->str_utf8_length)))
		return -1;
	return iname_copy(out, len, iname_ptr(addr + ip->str_utf8));
}

/* Ruby String @v into @out: its length, or -1 (interp.c's rb_str). */
static __always_inline int iname_rb_str(const struct bt_interp_proc *ip, __u64 v, char *out)
{
	__u64 flags, len = 0;

	if (!v || (v & 7))
		return -1;	/* a special constant */
	flags = iname_ptr(v);
	if ((flags & 0x1f) != INAME_RB_T_STRING)
		return -1;
	if (!(flags & INAME_RB_FL_USER1))
		return iname_copy(out, (flags >> 14) & 0x1f, v + ip->str_embed);
	if (bpf_probe_read_user(&len, sizeof(len), (const void *)(v + ip->str_heap_len)))
		return -1;
	return iname_copy(out, len, iname_ptr(v + ip->str_heap_ptr));
}

/* An iseq's pathobj @v (a String, or an Array [path, realpath]): its path, as iname_rb_str. */
static __always_inline int iname_rb_path(const struct bt_interp_proc *ip, __u64 v, char *out)
{
	__u64 flags;

	if (!v || (v & 7))
		return -1;
	flags = iname_ptr(v);
	if ((flags & 0x1f) == INAME_RB_T_ARRAY)
		v = flags & INAME_RB_FL_USER1 ? iname_ptr(v + ip->ary_embed) :
						iname_ptr(iname_ptr(v + ip->ary_heap_ptr));
	return iname_rb_str(ip, v, out);
}

/* word @off - @base of @span (INAME_SPAN_WORDS, 8-byte words), or 0 outside it */
static __always_inline __u64 iname_word(const __u64 *span, __u16 base, __u16 off)
{
	__u32 i = (__u32)(off - base) >> 3;

	return off >= base && i < INAME_SPAN_WORDS ? span[i & (INAME_SPAN_WORDS - 1)] : 0;
}

/*
 * @e's parts of code object @code of the process @ip is (its kind's
 * layout), from @span, iname_see()'s copy of the words the tag hashes.
 */
static __always_inline void iname_read(const struct bt_interp_proc *ip, const __u64 *span,
				       struct bt_iname_event *e)
{
	__u64 label, path;
	int n;

	if (ip->kind == BT_INTERP_RUBY31) {
		path = iname_word(span, 0, ip->body_pathobj);
		label = iname_word(span, 0, ip->body_label);
		e->line = (__s64)iname_word(span, 0, ip->body_first_lineno) >> 1;	/* a Fixnum */
		n = iname_rb_str(ip, label, e->label);
		if (n >= 0) {
			e->label_len = n;
			e->flags |= BT_INAME_LABEL;
		}
		n = iname_rb_path(ip, path, e->file);
		if (n >= 0) {
			e->file_len = n;
			e->flags |= BT_INAME_FILE;
		}
		return;
	}
	e->line = (__s32)span[0];	/* co_firstlineno, an int: the span's first 4 bytes */
	n = iname_py_str(ip, iname_word(span, ip->co_firstlineno, ip->co_qualname), e->label);
	if (n >= 0) {
		e->label_len = n;
		e->flags |= BT_INAME_LABEL;
	}
	n = iname_py_str(ip, iname_word(span, ip->co_firstlineno, ip->co_filename), e->file);
	if (n >= 0) {
		e->file_len = n;
		e->flags |= BT_INAME_FILE;
	}
}

/* A hash of @span's words and @body: the code object's tag. */
static __always_inline __u64 iname_tag(const __u64 *span, __u64 body)
{
	__u64 h = body;
	int i;

	/*
	 * A loop, not unrolled: unrolled, clang loaded the 16 words ahead and
	 * spilled them, iname_see()'s frame went past 128 bytes, and 6.1's
	 * verifier found bt_sched_switch's, the walker's and its own 544.
	 */
#pragma clang loop unroll(disable)
	for (i = 0; i < INAME_SPAN_WORDS; i++)
		h = (h ^ span[i]) * 0x9e3779b97f4a7c15ULL;	/* 2^64 / the golden ratio */
	return h;
}

/*
 * Code object @code (no entry bit) of the current process, registered as
 * @ip, in a sample of container @key: its names written the first time,
 * and again when its tag changed (another object at that address). Ruby:
 * @body, the iseq's body, read by the walker with the iseq's flags (0 for
 * CPython). @sp: where the span is copied (the walker's scratch). 1 when
 * its names' record was lost (the ring full), else 0.
 */
__noinline int iname_see(const struct bt_interp_proc *ip, __u64 code, __u64 body, __u64 key,
			 struct iname_span *sp)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct iname_key k = {};
	struct bt_iname_event *e;
	__u64 tag, *seen, *span;

	if (!ip || !code || !sp)
		return 0;
	span = sp->w;
	__builtin_memset(span, 0, sizeof(sp->w));
	/*
	 * The words the tag hashes, one read: CPython, PyCodeObject from
	 * co_firstlineno to co_qualname (3.11: 72 to 136, the 64 bytes: the
	 * counts of its locals, its names' tuples, co_filename, co_name,
	 * co_qualname); Ruby, the iseq's body to the end of its location
	 * (3.1: 120 bytes: its type and size, its parameters' counts, the
	 * location's pathobj, labels, first line, node and the code's
	 * extent, first and last line and column). A span that cannot be
	 * read hashes as zeros: its names are read in part, and read again
	 * once it can.
	 */
	if (ip->kind == BT_INTERP_PYTHON311)
		bpf_probe_read_user(span, INAME_PY_SPAN, (const void *)(code + ip->co_firstlineno));
	else if (ip->kind == BT_INTERP_RUBY31 && body)
		bpf_probe_read_user(span, INAME_RB_SPAN, (const void *)body);
	else if (ip->kind != BT_INTERP_RUBY31)
		return 0;
	/* Ruby's body pointer is hashed too: a body is freed and made again with its iseq */
	tag = iname_tag(span, body);
	k.code = code;
	k.tgid = t->tgid;
	k.gen = ip->gen;
	seen = bpf_map_lookup_elem(&iname_seen, &k);
	if (seen) {
		if (*seen == tag)
			return 0;
		*seen = tag;	/* another object at that address: its names now */
	} else if (bpf_map_update_elem(&iname_seen, &k, &tag, BPF_NOEXIST)) {
		return 0;	/* another CPU's sample has it */
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		bpf_map_delete_elem(&iname_seen, &k);
		count_lost();
		return 1;
	}
	fill_hdr(&e->hdr, t, BT_EV_INAME, bpf_ktime_get_ns(), key);
	e->code = code;
	e->kind = ip->kind;
	e->flags = 0;
	e->line = 0;
	e->label_len = e->file_len = 0;
	e->pad = 0;
	iname_read(ip, span, e);
	submit(e);
	return 0;
}
