/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The user stack's build ids, remembered (modern object, x86-64): what
 * the kernel said of a sample's frames, by address space and code region,
 * so that a sample whose frames are all known takes its user stack as bare
 * addresses and names them here.
 *
 * Why: bpf_get_stack(BPF_F_USER_BUILD_ID) looks up each frame's mapping
 * under the mm's lock, and from a perf event or sched_switch (interrupts
 * off) it lets go of that lock through an irq_work: an interrupt of its
 * own at every sample (docs/costs.md, Ruby samples: 7.5 us of 23).
 *
 * What: by the mm's x86 context id (mm->context.ctx_id, from a 64-bit
 * counter at each mm's birth, never used again: an exec or a fork makes a
 * new one, an address space gone takes its entries with it), a generation
 * of that mm, and the place: per 64 KiB region, the build id and load
 * bias of the mapping the kernel named frames of there, and the pages from
 * the first to the last it named (struct bid_code); per page, that the
 * kernel named no build id there (anonymous memory, nothing mapped).
 * Frames where no file can be (bid_no_file(): malloc's heap, values no
 * address can be: a broken frame-pointer chain's garbage) need neither.
 * An answer without one build id (the kernel's when the mm's lock was
 * busy) is not remembered. What it cannot tell: the pages between two
 * that the kernel named with one build id and bias are taken to be that
 * mapping's (a loader maps a file's segments into one reservation, its
 * text in one piece). A program that had mapped another file into the
 * middle of a library's text, within 64 KiB of pages of it sampled on
 * both sides, before either was sampled, would have that file's frames
 * named as the library's. One that maps it there later ends what was
 * remembered.
 *
 * A region's build id stays right as long as the mappings there stay:
 * only an unmap, a mapping put over one (MAP_FIXED, mremap's target,
 * remap_file_pages, shmat's SHM_REMAP) or a new mapping where nothing was
 * changes it (mprotect, madvise and a split keep the file and its
 * offsets; brk's pages are anonymous before and after). At the return of
 * each such call in any task (bt_sys_exit, buildids_unmapped()) the mm's
 * generation moves on when the range touches a region something is
 * remembered in: a filter of 1024 bits by region (struct bid_mm). The rest
 * of a boot's mapping calls (a Ruby boot's 450 munmaps a second: its
 * heap's pages, malloc's arenas) leave it be: the earlier try, a
 * generation moved by any change of the mappings (mm_lock_seq), missed at
 * nearly every sample (docs/costs.md). A compat (int 0x80) mapping call
 * moves the generation on whatever its range.
 *
 * The order that keeps it right without a lock: a sample that misses
 * reads the generation, sets its frames' region bits, then asks the
 * kernel (which takes the mm's lock), then writes what it said under the
 * generation it read. A mapping call returns (the mm's lock let go), then
 * reads the bits. Either the sample's bits were set before the call's
 * read (the generation moves on: what the sample wrote is never read), or
 * the kernel's answer came after the call. A generation moved on clears
 * the bits first, so a sample that reads the new generation sets its bits
 * after the clearing. Both sides' atomic operations order them on x86.
 *
 * Not on other architectures (no context id): the kernel is asked at
 * each sample there.
 *
 * Part of bpf/boottrace.bpf.c (included by profile.bpf.h).
 */

/* Whether stacks are taken and take their build ids from here (BOOTTRACE_TEST_NO_BUILD_ID_CACHE: not) */
const volatile bool buildids_cached = false;

#define BID_PAGE_SHIFT 12
#define BID_REGION_SHIFT 16		/* the filter's regions: 64 KiB */
#define BID_BITS 1024
#define BID_REGIONS_CHECKED 256		/* an unmap of more (16 MiB) moves the generation on */

struct bid_mm {
	__u64 gen;
	__u64 bits[BID_BITS / 64];	/* regions something is remembered in under gen */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2048);
	__type(key, __u64);		/* mm->context.ctx_id */
	__type(value, struct bid_mm);
} bid_mms SEC(".maps");

/*
 * What is remembered, by mm, generation and place: a region's code, where
 * the kernel named frames in it (BID_AT_REGION: the build id, the load
 * bias, the pages from first to last it named there, all of one mapping
 * with that bias), or a page the kernel named no build id in
 * (BID_AT_PAGE: anonymous memory, nothing mapped).
 */
#define BID_AT_REGION(ip) (((ip) >> BID_REGION_SHIFT) << 1)
#define BID_AT_PAGE(ip) ((((ip) >> BID_PAGE_SHIFT) << 1) | 1)

struct bid_key {
	__u64 mm;
	__u64 gen;
	__u64 at;
};

struct bid_code {
	unsigned char build_id[BT_BUILD_ID_SIZE];
	__u8 first, last;		/* the pages of the region named, by number in it */
	__u16 pad;
	__u64 bias;			/* an address's file offset is the address - bias */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct bid_key);
	__type(value, struct bid_code);
} bid_codes SEC(".maps");

/* A sample's bare user frames, this CPU's (a perf event's program and sched_switch's do not nest) */
struct bid_scratch {
	__u64 ip[BT_STACK_MAX];
	__u32 n;
	__u32 pad;
	__u64 brk_lo, brk_hi;		/* the mm's brk heap (anonymous) */
	__u64 top;			/* its task_size: nothing is mapped at or above */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bid_scratch);
} bid_scratches SEC(".maps");

/* Per CPU: samples named from here, samples the kernel named, generations moved on */
enum { BID_HIT, BID_MISS, BID_MOVED, BID_COUNTS };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BID_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} bid_counts SEC(".maps");

static __always_inline void bid_count(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&bid_counts, &what);

	if (n)
		*n += 1;
}

/* The bit of the filter for the region of @addr (a Fibonacci hash) */
static __always_inline __u32 bid_bit(__u64 addr)
{
	return (__u32)(((addr >> BID_REGION_SHIFT) * 0x9E3779B97F4A7C15ULL) >> 54) & (BID_BITS - 1);
}

/* @t's mm's context id, 0 when it has none (a kernel thread) or the architecture none */
static __always_inline __u64 bid_mm_id(struct task_struct *t)
{
#if defined(__TARGET_ARCH_x86)
	struct mm_struct *mm = t->mm;

	if (!buildids_cached || !mm)
		return 0;
	return mm->context.ctx_id;
#else
	return 0;
#endif
}

/*
 * Whether no file can be mapped at @ip, by the mm's bounds in @sc: where
 * the kernel names no build id, the address alone. Most of a broken
 * frame-pointer chain's garbage (a Ruby sample's: libruby keeps no frame
 * pointers) is so: pointers into malloc's heap, values no address can
 * be. Each is new, and remembered they would miss as often.
 */
static __always_inline bool bid_no_file(const struct bid_scratch *sc, __u64 ip)
{
	return ip < 65536 /* mmap_min_addr's default */ || ip >= sc->top ||
	       (ip >= sc->brk_lo && ip < sc->brk_hi);
}

/*
 * Set the region bits of the @sc->n frames in @m (before the kernel is
 * asked: see the order above). A global function: the verifier checks its
 * loop once.
 */
__noinline int bid_mark(const struct bid_scratch *sc, struct bid_mm *m)
{
	__u32 i, bit;

	if (!sc || !m)
		return 0;
	for (i = 0; i < BT_STACK_MAX && i < sc->n; i++) {
		if (bid_no_file(sc, sc->ip[i]))
			continue;	/* never remembered */
		bit = bid_bit(sc->ip[i]);
		__sync_fetch_and_or(&m->bits[(bit >> 6) & (BID_BITS / 64 - 1)], 1ULL << (bit & 63));
	}
	return 0;
}

/* The number in its region of the page of @ip */
static __always_inline __u8 bid_page_in(__u64 ip)
{
	return (ip >> BID_PAGE_SHIFT) & ((1 << (BID_REGION_SHIFT - BID_PAGE_SHIFT)) - 1);
}

/*
 * @e's user frames from what is remembered for mm @mm at generation
 * @gen, for the @sc->n frames of @sc: how many, or -1 when one is not
 * known (@e's frames then half written: the kernel's answer overwrites
 * them).
 */
__noinline int bid_lookup(struct bt_sample_event *e, const struct bid_scratch *sc, __u64 mm,
			  __u64 gen)
{
	struct bid_key k = { .mm = mm, .gen = gen };
	struct bt_stack_build_id *f;
	struct bid_code *c;
	__u64 ip;
	__u32 i;
	__u8 pg;

	if (!e || !sc)
		return -1;
	for (i = 0; i < BT_STACK_MAX && i < sc->n; i++) {
		ip = sc->ip[i];
		f = &e->ustack[i];
		k.at = BID_AT_REGION(ip);
		c = bpf_map_lookup_elem(&bid_codes, &k);
		pg = bid_page_in(ip);
		if (c && c->first <= pg && pg <= c->last) {
			f->status = BT_STACK_BUILD_ID_VALID;
			__builtin_memcpy(f->build_id, c->build_id, BT_BUILD_ID_SIZE);
			f->offset = ip - c->bias;
			continue;
		}
		k.at = BID_AT_PAGE(ip);
		if (!bid_no_file(sc, ip) && !bpf_map_lookup_elem(&bid_codes, &k))
			return -1;
		f->status = BT_STACK_BUILD_ID_IP;
		__builtin_memset(f->build_id, 0, BT_BUILD_ID_SIZE);
		f->ip = ip;
	}
	return i;
}

/* Whether build ids @a and @b are the same */
static __always_inline bool bid_same(const unsigned char *a, const unsigned char *b)
{
	unsigned char d = 0;
	int i;

#pragma unroll
	for (i = 0; i < BT_BUILD_ID_SIZE; i++)
		d |= a[i] ^ b[i];
	return !d;
}

/*
 * Remember @e's @n frames as the kernel named them, under mm @mm's
 * generation @gen, the frames' addresses in @sc (the same walk: the same
 * count, or nothing is remembered). A region's pages named with the build
 * id and bias it holds widen its pages; another build id or bias there (a
 * mapping's end, the next one's start) takes its place. An answer without
 * one build id is not remembered: the kernel's when the mm's lock was
 * busy (and when a stack has no file with one: asked again each time).
 */
__noinline int bid_remember(const struct bt_sample_event *e, const struct bid_scratch *sc,
			    __u64 mm, __u64 gen, int n)
{
	struct bid_key k = { .mm = mm, .gen = gen };
	const struct bt_stack_build_id *f;
	struct bid_code c = {}, *old;
	bool named = false;
	__u64 ip;
	__u32 i;
	__u8 pg;

	if (!e || !sc || n != (int)sc->n)
		return 0;
	for (i = 0; i < BT_STACK_MAX && i < sc->n; i++)
		if (e->ustack[i].status == BT_STACK_BUILD_ID_VALID)
			named = true;
	if (!named)
		return 0;
	for (i = 0; i < BT_STACK_MAX && i < sc->n; i++) {
		f = &e->ustack[i];
		ip = sc->ip[i];
		if (f->status == BT_STACK_BUILD_ID_IP && f->ip == ip) {
			k.at = BID_AT_PAGE(ip);
			__builtin_memset(&c, 0, sizeof(c));	/* its presence says it */
			bpf_map_update_elem(&bid_codes, &k, &c, BPF_ANY);
			continue;
		}
		if (f->status != BT_STACK_BUILD_ID_VALID)
			continue;
		k.at = BID_AT_REGION(ip);
		pg = bid_page_in(ip);
		__builtin_memcpy(c.build_id, f->build_id, BT_BUILD_ID_SIZE);
		c.bias = ip - f->offset;
		c.first = c.last = pg;
		old = bpf_map_lookup_elem(&bid_codes, &k);
		if (old && old->bias == c.bias && bid_same(old->build_id, c.build_id)) {
			if (old->first <= pg && pg <= old->last)
				continue;
			c.first = old->first < pg ? old->first : pg;
			c.last = old->last > pg ? old->last : pg;
		}
		bpf_map_update_elem(&bid_codes, &k, &c, BPF_ANY);
	}
	return 0;
}

/*
 * The current task's user stack into @e->ustack (its frames as build id +
 * offset where known), from @ctx as bpf_get_stack() takes it: the bytes
 * written, or bpf_get_stack()'s error.
 */
static __always_inline long buildids_take(void *ctx, struct bt_sample_event *e)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 mm = bid_mm_id(t), gen;
	struct bid_mm *m, fresh = {};
	struct bid_scratch *sc;
	__u32 zero = 0;
	long got;
	int n;

	if (!mm)
		goto ask;
	sc = bpf_map_lookup_elem(&bid_scratches, &zero);
	m = bpf_map_lookup_elem(&bid_mms, &mm);
	if (!m) {
		bpf_map_update_elem(&bid_mms, &mm, &fresh, BPF_NOEXIST);
		m = bpf_map_lookup_elem(&bid_mms, &mm);
	}
	if (!sc || !m)
		goto ask;
	sc->brk_lo = t->mm->start_brk;
	sc->brk_hi = t->mm->brk;
	sc->top = t->mm->task_size;
	got = bpf_get_stack(ctx, sc->ip, sizeof(sc->ip), BPF_F_USER_STACK);
	if (got <= 0)
		return got;
	sc->n = (__u32)got / sizeof(sc->ip[0]);
	gen = READ_ONCE(m->gen);
	n = bid_lookup(e, sc, mm, gen);
	if (n >= 0) {
		bid_count(BID_HIT);
		return n * (long)sizeof(e->ustack[0]);
	}
	bid_count(BID_MISS);
	bid_mark(sc, m);
	got = bpf_get_stack(ctx, e->ustack, sizeof(e->ustack),
			    BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
	if (got > 0)
		bid_remember(e, sc, mm, gen, (int)(got / sizeof(e->ustack[0])));
	return got;
ask:
	return bpf_get_stack(ctx, e->ustack, sizeof(e->ustack),
			     BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
}

/*
 * Whether the range of @len bytes at @start touches a region of @m's
 * filter (or is too long to look at).
 */
static __always_inline bool bid_touches(const struct bid_mm *m, __u64 start, __u64 len)
{
	__u64 first = start >> BID_REGION_SHIFT, last = (start + len - 1) >> BID_REGION_SHIFT, r;
	__u32 i, bit;

	if (!len)
		return false;
	if (last < first || last - first >= BID_REGIONS_CHECKED)
		return true;
	for (i = 0; i < BID_REGIONS_CHECKED; i++) {
		r = first + i;
		if (r > last)
			break;
		bit = bid_bit(r << BID_REGION_SHIFT);
		if (READ_ONCE(m->bits[(bit >> 6) & (BID_BITS / 64 - 1)]) & (1ULL << (bit & 63)))
			return true;
	}
	return false;
}

/*
 * The calls that may unmap, replace or make a mapping, by number: the
 * 64-bit ones and i386's (old mmap 90, munmap 91, ipc 117, mremap 163,
 * mmap2 192, remap_file_pages 257, shmat 397), a bit each.
 */
#define BID_CALL_WORDS 8
#define BID_CALL(nr, w) ((nr) >> 6 == (w) ? 1ULL << ((nr) & 63) : 0)
#define BID_CALLS(w)                                                                            \
	(BID_CALL(__NR_mmap, w) | BID_CALL(__NR_munmap, w) | BID_CALL(__NR_mremap, w) |        \
	 BID_CALL(__NR_shmat, w) | BID_CALL(__NR_remap_file_pages, w) | BID_CALL(90, w) |      \
	 BID_CALL(91, w) | BID_CALL(117, w) | BID_CALL(163, w) | BID_CALL(192, w) |            \
	 BID_CALL(257, w) | BID_CALL(397, w))
static const __u64 bid_calls[BID_CALL_WORDS] = {
	BID_CALLS(0), BID_CALLS(1), BID_CALLS(2), BID_CALLS(3),
	BID_CALLS(4), BID_CALLS(5), BID_CALLS(6), BID_CALLS(7),
};

/*
 * At a syscall's return (@ret) in any task (bt_sys_exit, while build ids
 * are remembered): a call that may have unmapped, replaced or made a
 * mapping moves its mm's generation on when its range touches a region
 * something is remembered in. A new mapping counts: a page remembered
 * without a build id (nothing mapped there then) may be a file's now.
 */
static __always_inline void buildids_unmapped(struct pt_regs *regs, long ret)
{
#if defined(__TARGET_ARCH_x86)
	__u64 nr = regs->orig_ax & ~0x40000000ULL /* x32's */, start = 0, len = 0, to = 0,
	      to_len = 0, mm;
	bool all = false, failed = (unsigned long)ret >= (unsigned long)-4095;
	struct task_struct *t;
	struct bid_mm *m;
	__u32 i;

	/* every syscall of the host comes here: one test of its number first */
	if (nr >= 64 * BID_CALL_WORDS || !((bid_calls[nr >> 6] >> (nr & 63)) & 1))
		return;
	t = bpf_get_current_task_btf();
	if ((nr == 90 || nr == 91 || nr == 117 || nr == 163 || nr == 192 || nr == 257 ||
	     nr == 397) && (t->thread_info.status & 0x0002 /* TS_COMPAT */)) {
		/* i386's old mmap, munmap, ipc (shmat), mremap, mmap2, remap_file_pages, shmat */
		all = true;
	} else if (nr == __NR_munmap || nr == __NR_remap_file_pages) {
		start = regs->di;
		len = regs->si;
	} else if (nr == __NR_mmap) {
		/* MAP_FIXED: its range was unmapped, the call failed or not */
		if (regs->r10 & 0x10 /* MAP_FIXED */)
			start = regs->di;
		else if (!failed)
			start = (__u64)ret;
		else
			return;
		len = regs->si;
	} else if (nr == __NR_mremap) {
		/* its old range, and its new one; a target given (MREMAP_FIXED) is unmapped first */
		start = regs->di;
		len = regs->si;
		if (regs->r10 & 2 /* MREMAP_FIXED */)
			all = true;
		else if (!failed)
			to = (__u64)ret, to_len = regs->dx;
	} else if (nr == __NR_shmat) {
		if (failed && !(regs->dx & 040000 /* SHM_REMAP */))
			return;
		all = true;	/* a segment's size is not in the call */
	} else {
		return;
	}
	mm = bid_mm_id(t);
	if (!mm)
		return;
	m = bpf_map_lookup_elem(&bid_mms, &mm);
	if (!m)
		return;
	if (!all && !bid_touches(m, start, len) && !bid_touches(m, to, to_len))
		return;
	/* the bits first, then the generation: a sample that reads the new one sets its bits after */
	for (i = 0; i < BID_BITS / 64; i++)
		WRITE_ONCE(m->bits[i], 0);
	__sync_fetch_and_add(&m->gen, 1);
	bid_count(BID_MOVED);
#endif
}
