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
 * read again. A record the ring had no room for is counted lost and its
 * code object forgotten (read again at its next sample).
 *
 * iname_see() is a global function: the verifier checks it once, not at
 * each of the walks' turns (160 of Ruby's, 96 of CPython's), which call it
 * for every frame. Per frame, a hash lookup; per new code object, 6 to 10
 * reads of user memory.
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
	__type(value, __u8);
} iname_seen SEC(".maps");

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

/* @e's parts of code object @code of the process @ip is (its kind's layout). */
static __always_inline void iname_read(const struct bt_interp_proc *ip, __u64 code,
				       struct bt_iname_event *e)
{
	__u64 label = 0, path = 0, body;
	__s32 line = 0;
	int n;

	if (ip->kind == BT_INTERP_RUBY31) {
		body = iname_ptr(code + ip->iseq_body);
		if (body) {
			path = iname_ptr(body + ip->body_pathobj);
			label = iname_ptr(body + ip->body_label);
			e->line = (__s64)iname_ptr(body + ip->body_first_lineno) >> 1;	/* a Fixnum */
		}
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
	bpf_probe_read_user(&line, sizeof(line), (const void *)(code + ip->co_firstlineno));
	e->line = line;
	n = iname_py_str(ip, iname_ptr(code + ip->co_qualname), e->label);
	if (n >= 0) {
		e->label_len = n;
		e->flags |= BT_INAME_LABEL;
	}
	n = iname_py_str(ip, iname_ptr(code + ip->co_filename), e->file);
	if (n >= 0) {
		e->file_len = n;
		e->flags |= BT_INAME_FILE;
	}
}

/*
 * Code object @code (no entry bit) of the current process, registered as
 * @ip, in a sample of container @key: its names written the first time.
 * Always 0.
 */
__noinline int iname_see(const struct bt_interp_proc *ip, __u64 code, __u64 key)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct iname_key k = {};
	struct bt_iname_event *e;
	__u8 one = 1;

	if (!ip || !code || (ip->kind != BT_INTERP_PYTHON311 && ip->kind != BT_INTERP_RUBY31))
		return 0;
	k.code = code;
	k.tgid = t->tgid;
	k.gen = ip->gen;
	if (bpf_map_lookup_elem(&iname_seen, &k))
		return 0;
	if (bpf_map_update_elem(&iname_seen, &k, &one, BPF_NOEXIST))
		return 0;	/* another CPU's sample has it */
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		bpf_map_delete_elem(&iname_seen, &k);
		count_lost();
		return 0;
	}
	fill_hdr(&e->hdr, t, BT_EV_INAME, bpf_ktime_get_ns(), key);
	e->code = code;
	e->kind = ip->kind;
	e->flags = 0;
	e->line = 0;
	e->label_len = e->file_len = 0;
	e->pad = 0;
	iname_read(ip, code, e);
	submit(e);
	return 0;
}
