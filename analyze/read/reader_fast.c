// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reader's fast path: common rows split and parsed with SSE2, AVX2 or
 * AVX-512, whichever the CPU has; any other line is left to reader.c's
 * exact path.
 */
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/reader_int.h"

#ifdef __SSE2__
#include <immintrin.h>

typedef unsigned __int128 u128;

/* fast_row() stores a struct tsv_field as one 16-byte register. */
_Static_assert(sizeof(struct tsv_field) == 16 && offsetof(struct tsv_field, n) == 8 &&
	       sizeof(const char *) == 8, "struct tsv_field layout");

/*
 * The lowest set bit of @m, which is not 0. Without a branch: which word
 * holds the LF varies from row to row, and a mispredicted branch per row
 * costs more than the arithmetic.
 */
static inline unsigned ctz128(u128 m)
{
	uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
	uint64_t use_hi = (uint64_t)0 - (lo == 0);

	return (unsigned)__builtin_ctzll((lo & ~use_hi) | (hi & use_hi)) +
	       (unsigned)(use_hi & 64);
}

/*
 * Tables for fast_row(), filled once by fast_init(): bit_pos[b], the
 * positions (0..7) of the set bits of @b, one per byte from the lowest;
 * bit_count[b], how many; below[i], the bits under bit i of a 128-bit mask
 * (a variable 128-bit shift costs a dozen instructions); iota64, right_align.
 */
static uint64_t bit_pos[256];
static uint8_t bit_count[256];
static u128 below[FAST_WINDOW + 1];
/* iota64[i] = i, for vpcompressb */
static uint8_t iota64[64];
/* right_align[n]: a shuffle that moves n bytes to the top of 16, zeros below */
static uint8_t right_align[17][16] __attribute__((aligned(16)));

static void fill_tables(void)
{
	unsigned b, i;

	for (b = 0; b < 256; b++) {
		for (i = 0; i < 8; i++) {
			if (b & (1u << i)) {
				bit_pos[b] |= (uint64_t)i << (8 * bit_count[b]);
				bit_count[b]++;
			}
		}
	}
	for (i = 0; i < FAST_WINDOW; i++)
		below[i] = ((u128)1 << i) - 1;
	below[FAST_WINDOW] = ~(u128)0;
	for (i = 0; i < 64; i++)
		iota64[i] = (uint8_t)i;
	for (b = 0; b <= 16; b++)
		for (i = 0; i < 16; i++)
			right_align[b][i] = i < 16 - b ? 0x80 : (uint8_t)(i - (16 - b));
}

/* Bytes [@a, @b) of a line of fewer than 128 bytes, as bits. */
static inline u128 byte_range(unsigned a, unsigned b)
{
	return below[b] & ~below[a];
}

/* The value of 1..16 digits at @s, known to be digits. */
HOT uint64_t digits_value(const char *s, unsigned n)
{
	uint64_t x = load64(s);

	if (n <= 8)
		return swar_value(x, n);
	return swar_value(x, n - 8) * 100000000 + swar_value(load64(s + n - 8), 8);
}

typedef uint64_t digits_fn(const char *s, unsigned n);

/*
 * The integer columns of a fast_row() line when all of them are plain:
 * 1 to 16 digits (ret: maybe after a '-'), so none is \N, malformed or past
 * 64 bits. @bad: the line's bytes that are neither digits nor TABs; @pos:
 * the TABs; @value: digits_value() or a faster one for the CPU. Returns 1
 * with the values in @row, 0 to leave it to parse_ints(), which checks
 * field by field and says what is wrong.
 */
HOT int plain_ints(u128 bad, const uint8_t *pos, struct tsv_row *row, bool ids,
		   digits_fn *value)
{
	const struct tsv_field *f = row->f;
	unsigned neg = f[TSV_RET].n && f[TSV_RET].p[0] == '-';
	u128 ints = byte_range(0, pos[0]) | byte_range(pos[1] + 1u, pos[5]) |
		    byte_range(pos[8] + 1u + neg, pos[10]);
	uint64_t ret;

	if ((bad & ints) ||
	    ((f[TSV_TS_NS].n - 1) | (f[TSV_CGROUP_ID].n - 1) | (f[TSV_PID].n - 1) |
	     (f[TSV_TID].n - 1) | (f[TSV_PPID].n - 1) | (f[TSV_RET].n - neg - 1) |
	     (f[TSV_DUR_NS].n - 1)) >= 16)
		return 0;
	row->null = 0;
	row->ts_ns = value(f[TSV_TS_NS].p, f[TSV_TS_NS].n);
	ret = value(f[TSV_RET].p + neg, f[TSV_RET].n - neg);
	row->ret = (int64_t)(neg ? (uint64_t)0 - ret : ret);
	row->dur_ns = value(f[TSV_DUR_NS].p, f[TSV_DUR_NS].n);
	row->cgroup_id = row->pid = row->tid = row->ppid = 0;
	if (ids) {
		row->cgroup_id = value(f[TSV_CGROUP_ID].p, f[TSV_CGROUP_ID].n);
		row->pid = (int64_t)value(f[TSV_PID].p, f[TSV_PID].n);
		row->tid = (int64_t)value(f[TSV_TID].p, f[TSV_TID].n);
		row->ppid = (int64_t)value(f[TSV_PPID].p, f[TSV_PPID].n);
	}
	return 1;
}

/*
 * The positions of the TABs @T of a line of @len bytes into @pos (room for
 * FAST_WINDOW + 8), in order; returns how many. A byte of the mask at a time
 * from bit_pos: the stores depend only on the running count (clearing the
 * lowest bit of the mask each step makes one long chain). Garbage past a
 * byte's count is overwritten by the next byte's, or past the 11th TAB not
 * read. The last 4 bytes only for a line of 96 or more.
 */
typedef unsigned tabs_fn(u128 T, unsigned len, uint8_t *pos);

HOT unsigned tabs_table(u128 T, unsigned len, uint8_t *pos)
{
	uint64_t lo = (uint64_t)T, hi = (uint64_t)(T >> 64);
	unsigned nt = 0;

#define TAB_BYTE(k) do { \
		unsigned b_ = (unsigned)(((k) < 8 ? lo >> (8 * (k)) : hi >> (8 * ((k) - 8))) & 0xff); \
		uint64_t at8_ = bit_pos[b_] + 0x0101010101010101ULL * (8 * (k)); \
		memcpy(pos + nt, &at8_, 8); \
		nt += bit_count[b_]; \
	} while (0)
	TAB_BYTE(0); TAB_BYTE(1); TAB_BYTE(2); TAB_BYTE(3);
	TAB_BYTE(4); TAB_BYTE(5); TAB_BYTE(6); TAB_BYTE(7);
	TAB_BYTE(8); TAB_BYTE(9); TAB_BYTE(10); TAB_BYTE(11);
	if (len >= 96) {
		TAB_BYTE(12); TAB_BYTE(13); TAB_BYTE(14); TAB_BYTE(15);
	}
#undef TAB_BYTE
	return nt;
}

/*
 * The fields of a fast_row() line at @p from @pos: its 11 TAB positions,
 * then its length. Starts and lengths 16 at a time, then each struct
 * tsv_field (pointer, length, padding) built in a register and stored whole.
 */
typedef void fields_fn(const char *p, const uint8_t *pos, struct tsv_row *row);

HOT void fields_sse2(const char *p, const uint8_t *pos, struct tsv_row *row)
{
	const __m128i z = _mm_setzero_si128(), base = _mm_set1_epi64x((long long)(uintptr_t)p);
	__m128i end = _mm_loadu_si128((const __m128i *)pos);
	__m128i st8 = _mm_slli_si128(_mm_add_epi8(end, _mm_set1_epi8(1)), 1);
	__m128i ln8 = _mm_sub_epi8(end, st8);
	__m128i st16[2] = { _mm_unpacklo_epi8(st8, z), _mm_unpackhi_epi8(st8, z) };
	__m128i ln16[2] = { _mm_unpacklo_epi8(ln8, z), _mm_unpackhi_epi8(ln8, z) };
	__m128i *out = (__m128i *)row->f;
	unsigned k;

#pragma GCC unroll 3
	for (k = 0; k < 3; k++) {
		__m128i st32 = k < 2 ? (k ? _mm_unpackhi_epi16(st16[0], z) :
					   _mm_unpacklo_epi16(st16[0], z)) :
				       _mm_unpacklo_epi16(st16[1], z);
		__m128i ln32 = k < 2 ? (k ? _mm_unpackhi_epi16(ln16[0], z) :
					   _mm_unpacklo_epi16(ln16[0], z)) :
				       _mm_unpacklo_epi16(ln16[1], z);
		__m128i a = _mm_add_epi64(_mm_unpacklo_epi32(st32, z), base);
		__m128i b = _mm_add_epi64(_mm_unpackhi_epi32(st32, z), base);
		__m128i la = _mm_unpacklo_epi32(ln32, z), lb = _mm_unpackhi_epi32(ln32, z);

		_mm_storeu_si128(out + 4 * k, _mm_unpacklo_epi64(a, la));
		_mm_storeu_si128(out + 4 * k + 1, _mm_unpackhi_epi64(a, la));
		_mm_storeu_si128(out + 4 * k + 2, _mm_unpacklo_epi64(b, lb));
		_mm_storeu_si128(out + 4 * k + 3, _mm_unpackhi_epi64(b, lb));
	}
}

/* The masks of a fast_row() window: bit i is byte i of the window. */
struct window {
	uint64_t t[2];		/* TAB */
	uint64_t nl[2];		/* LF */
	uint64_t sp[2];		/* a backslash or any byte <= 0x1f */
	uint64_t dg[2];		/* a digit */
};

/* 16 bytes at a time: 6 blocks hold most lines, the last 2 only if not. */
HOT void window_sse2(const char *p, struct window *w)
{
	const __m128i vtab = _mm_set1_epi8('\t'), vnl = _mm_set1_epi8('\n'),
		v1f = _mm_set1_epi8(0x1f), vbs = _mm_set1_epi8('\\'),
		v0 = _mm_set1_epi8('0'), v9 = _mm_set1_epi8(9);

	memset(w, 0, sizeof(*w));
#define BLOCK(k) do { \
		__m128i x_ = _mm_loadu_si128((const __m128i *)(p + 16 * (k))); \
		uint64_t tt_ = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x_, vtab)); \
		uint64_t nn_ = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x_, vnl)); \
		uint64_t ss_ = (unsigned)_mm_movemask_epi8(_mm_or_si128( \
			_mm_cmpeq_epi8(_mm_max_epu8(x_, v1f), v1f), _mm_cmpeq_epi8(x_, vbs))); \
		uint64_t dd_ = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8( \
			_mm_max_epu8(_mm_sub_epi8(x_, v0), v9), v9)); \
		w->t[(k) / 4] |= tt_ << (16 * ((k) % 4)); \
		w->nl[(k) / 4] |= nn_ << (16 * ((k) % 4)); \
		w->sp[(k) / 4] |= ss_ << (16 * ((k) % 4)); \
		w->dg[(k) / 4] |= dd_ << (16 * ((k) % 4)); \
	} while (0)
	BLOCK(0); BLOCK(1); BLOCK(2); BLOCK(3); BLOCK(4); BLOCK(5);
	if (!(w->nl[0] | w->nl[1])) {
		BLOCK(6); BLOCK(7);
	}
#undef BLOCK
}

/* The same with AVX2, 32 bytes at a time (for CPUs that have it). */
#define TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))

static inline __attribute__((always_inline)) TARGET_AVX2
void window_avx2(const char *p, struct window *w)
{
	const __m256i vtab = _mm256_set1_epi8('\t'), vnl = _mm256_set1_epi8('\n'),
		v1f = _mm256_set1_epi8(0x1f), vbs = _mm256_set1_epi8('\\'),
		v0 = _mm256_set1_epi8('0'), v9 = _mm256_set1_epi8(9);

	memset(w, 0, sizeof(*w));
#define BLOCK(k) do { \
		__m256i x_ = _mm256_loadu_si256((const __m256i *)(p + 32 * (k))); \
		uint64_t tt_ = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x_, vtab)); \
		uint64_t nn_ = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x_, vnl)); \
		uint64_t ss_ = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256( \
			_mm256_cmpeq_epi8(_mm256_max_epu8(x_, v1f), v1f), \
			_mm256_cmpeq_epi8(x_, vbs))); \
		uint64_t dd_ = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8( \
			_mm256_max_epu8(_mm256_sub_epi8(x_, v0), v9), v9)); \
		w->t[(k) / 2] |= tt_ << (32 * ((k) % 2)); \
		w->nl[(k) / 2] |= nn_ << (32 * ((k) % 2)); \
		w->sp[(k) / 2] |= ss_ << (32 * ((k) % 2)); \
		w->dg[(k) / 2] |= dd_ << (32 * ((k) % 2)); \
	} while (0)
	BLOCK(0); BLOCK(1); BLOCK(2);
	if (!(w->nl[0] | w->nl[1])) {
		BLOCK(3);
	}
#undef BLOCK
}

/*
 * With AVX-512 (BW, VBMI2): compares give the masks directly, 64 bytes at a
 * time, and vpcompressb the TAB positions, a word of the mask at once.
 */
#define TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi2,avx2,bmi,bmi2,popcnt")))

static inline __attribute__((always_inline)) TARGET_AVX512
void window_avx512(const char *p, struct window *w)
{
	const __m512i vtab = _mm512_set1_epi8('\t'), vnl = _mm512_set1_epi8('\n'),
		v1f = _mm512_set1_epi8(0x1f), vbs = _mm512_set1_epi8('\\'),
		v0 = _mm512_set1_epi8('0'), v9 = _mm512_set1_epi8(9);
	unsigned k;

#pragma GCC unroll 2
	for (k = 0; k < 2; k++) {
		__m512i x = _mm512_loadu_si512((const void *)(p + 64 * k));

		w->t[k] = _mm512_cmpeq_epi8_mask(x, vtab);
		w->nl[k] = _mm512_cmpeq_epi8_mask(x, vnl);
		w->sp[k] = _mm512_cmple_epu8_mask(x, v1f) | _mm512_cmpeq_epi8_mask(x, vbs);
		w->dg[k] = _mm512_cmple_epu8_mask(_mm512_sub_epi8(x, v0), v9);
	}
}

static inline TARGET_AVX512 unsigned tabs_avx512(u128 T, unsigned len, uint8_t *pos)
{
	uint64_t lo = (uint64_t)T, hi = (uint64_t)(T >> 64);
	const __m512i iota = _mm512_loadu_si512((const void *)iota64);
	unsigned c0 = (unsigned)__builtin_popcountll(lo);

	(void)len;
	/* 16 positions per word are enough: a row has 11 TABs */
	_mm_storeu_si128((__m128i *)pos,
			 _mm512_castsi512_si128(_mm512_maskz_compress_epi8(lo, iota)));
	_mm_storeu_si128((__m128i *)(pos + c0), _mm512_castsi512_si128(
		_mm512_maskz_compress_epi8(hi, _mm512_add_epi8(iota, _mm512_set1_epi8(64)))));
	return c0 + (unsigned)__builtin_popcountll(hi);
}

/* fields_sse2() with 64-byte registers: four fields per store. */
static inline TARGET_AVX512 void fields_avx512(const char *p, const uint8_t *pos,
					       struct tsv_row *row)
{
	const __m512i base = _mm512_set1_epi64((long long)(uintptr_t)p);
	const __m512i lo4 = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
	const __m512i hi4 = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
	__m128i end = _mm_loadu_si128((const __m128i *)pos);
	__m128i st8 = _mm_slli_si128(_mm_add_epi8(end, _mm_set1_epi8(1)), 1);
	__m128i ln8 = _mm_sub_epi8(end, st8);
	__m512i st = _mm512_add_epi64(_mm512_cvtepu8_epi64(st8), base);
	__m512i ln = _mm512_cvtepu8_epi64(ln8);
	__m512i st2 = _mm512_add_epi64(_mm512_cvtepu8_epi64(_mm_srli_si128(st8, 8)), base);
	__m512i ln2 = _mm512_cvtepu8_epi64(_mm_srli_si128(ln8, 8));

	_mm512_storeu_si512((void *)&row->f[0], _mm512_permutex2var_epi64(st, lo4, ln));
	_mm512_storeu_si512((void *)&row->f[4], _mm512_permutex2var_epi64(st, hi4, ln));
	_mm512_storeu_si512((void *)&row->f[8], _mm512_permutex2var_epi64(st2, lo4, ln2));
}

/*
 * digits_value() with SSSE3/SSE4.1 multiply-adds (in the AVX2 variant): the
 * digits right-aligned in a register by a shuffle, then summed in pairs,
 * fours and eights. Reads 16 bytes at @s: within fast_row()'s window but
 * for the last 15, which are in the reader's buffer.
 */
static inline TARGET_AVX2 uint64_t digits_value_avx2(const char *s, unsigned n)
{
	__m128i x = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)s), _mm_set1_epi8('0'));
	uint64_t v;

	x = _mm_shuffle_epi8(x, _mm_loadu_si128((const __m128i *)right_align[n]));
	x = _mm_maddubs_epi16(x, _mm_setr_epi8(10, 1, 10, 1, 10, 1, 10, 1,
					       10, 1, 10, 1, 10, 1, 10, 1));
	x = _mm_madd_epi16(x, _mm_setr_epi16(100, 1, 100, 1, 100, 1, 100, 1));
	x = _mm_packus_epi32(x, x);
	x = _mm_madd_epi16(x, _mm_setr_epi16(10000, 1, 10000, 1, 10000, 1, 10000, 1));
	v = (uint64_t)_mm_cvtsi128_si64(x);
	return (v & 0xffffffff) * 100000000 + (v >> 32);
}

/*
 * Whether @n bytes at @p hold no TAB, backslash or other byte below 0x20:
 * the part of a long line's last field past fast_row()'s window, which
 * then needs no look. Without an early exit: the compiler vectorizes it.
 */
HOT bool plain_tail(const char *p, size_t n)
{
	unsigned bad = 0;
	size_t i;

	for (i = 0; i < n; i++)
		bad |= ((unsigned char)p[i] < 0x20) | (p[i] == '\\');
	return !bad;
}

/*
 * The common row, fast: a line of at most FAST_WINDOW - 1 bytes whose only
 * backslashes are whole-field \N and whose integers are plain — that is,
 * one that parse_row() accepts. At @p, with FAST_WINDOW bytes of data
 * there, and @w their masks: the LF, the TABs and the bytes that need a look
 * are found by loads at fixed offsets (independent, unlike a field-by-field
 * search, and without a branch per TAB), replacing memchr() and split().
 * A line of up to FAST_LONG - 1 bytes too, when its 11 TABs are in the
 * window and the rest (of its last field) is plain_tail(): @avail, the
 * bytes of data at @p (at least FAST_WINDOW), bounds the search for its LF.
 * @tabs, @fields and @value: the helpers for the CPU. Returns the bytes
 * taken, LF included, with the row in @row; or 0 for any other line, which
 * the exact path then reads (and says what is wrong).
 */
HOT size_t fast_row(const char *p, size_t avail, const struct window *w, struct tsv_row *row,
		    bool ids, tabs_fn *tabs, fields_fn *fields, digits_fn *value)
{
	u128 T, NL, S;
	/* up to 127 TABs, 16 bytes written at once, 16 read */
	uint8_t pos[FAST_WINDOW + 16];
	unsigned at, len, wlen, nt;
	int col;

	NL = (u128)w->nl[1] << 64 | w->nl[0];
	if (p[0] == '#')
		return 0;
	if (NL) {
		len = wlen = ctz128(NL);
	} else {
		/* a longer line whose last field runs past the window (a sched
		 * row's detail, 130 to 160 bytes): the rest plain text */
		const char *nl = avail > FAST_WINDOW ?
			memchr(p + FAST_WINDOW, '\n', (avail < FAST_LONG ? avail : FAST_LONG) - FAST_WINDOW) :
			NULL;

		if (!nl || !plain_tail(p + FAST_WINDOW, (size_t)(nl - p) - FAST_WINDOW))
			return 0;
		len = (unsigned)(nl - p);
		wlen = FAST_WINDOW;
	}
	T = ((u128)w->t[1] << 64 | w->t[0]) & below[wlen];
	S = ((u128)w->sp[1] << 64 | w->sp[0]) & below[wlen] & ~T;
	for (; S; S &= S - 1) {
		at = ctz128(S);
		if (!(p[at] == '\\' && p[at + 1] == 'N' && (at == 0 || p[at - 1] == '\t') &&
		      (at + 2 == len || p[at + 2] == '\t')))
			return 0;
	}
	nt = tabs(T, wlen, pos);
	if (nt != TSV_NFIELDS - 1)
		return 0;
	pos[TSV_NFIELDS - 1] = (uint8_t)len;
	fields(p, pos, row);
	if (!plain_ints(~((u128)w->dg[1] << 64 | w->dg[0]) & ~T, pos, row, ids, value) &&
	    parse_ints(row, ids, &col) != 0)
		return 0;
	if (!row->f[TSV_CONTAINER].n || !row->f[TSV_EVENT].n)
		return 0;
	return (size_t)len + 1;
}

/* fast_row() with the masks of each instruction set; see fast_path. */
static size_t fast_row_sse2(const char *p, size_t avail, struct tsv_row *row, bool ids)
{
	struct window w;

	window_sse2(p, &w);
	return fast_row(p, avail, &w, row, ids, tabs_table, fields_sse2, digits_value);
}

static TARGET_AVX2 size_t fast_row_avx2(const char *p, size_t avail, struct tsv_row *row, bool ids)
{
	struct window w;

	window_avx2(p, &w);
	return fast_row(p, avail, &w, row, ids, tabs_table, fields_sse2, digits_value_avx2);
}

static TARGET_AVX512 size_t fast_row_avx512(const char *p, size_t avail, struct tsv_row *row,
					     bool ids)
{
	struct window w;

	window_avx512(p, &w);
	return fast_row(p, avail, &w, row, ids, tabs_avx512, fields_avx512, digits_value_avx2);
}

/*
 * The tables and the fast_row() for this CPU, once per process; after that
 * both are only read. ANALYZE_SIMD=sse2 or avx2 in the environment keeps to
 * that instruction set (to test its path on a CPU with more).
 */
static fast_fn *fast_path = fast_row_sse2;
static pthread_once_t fast_once = PTHREAD_ONCE_INIT;

static void fast_init(void)
{
	const char *simd = getenv("ANALYZE_SIMD");
	bool upto_sse2 = simd && strcmp(simd, "sse2") == 0;
	bool upto_avx2 = upto_sse2 || (simd && strcmp(simd, "avx2") == 0);

	fill_tables();
	__builtin_cpu_init();
	if (upto_sse2 || !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2") ||
	    !__builtin_cpu_supports("popcnt"))
		return;
	fast_path = fast_row_avx2;
	if (!upto_avx2 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2"))
		fast_path = fast_row_avx512;
}

fast_fn *tsv_fast_path(void)
{
	pthread_once(&fast_once, fast_init);
	return fast_path;
}
#endif
