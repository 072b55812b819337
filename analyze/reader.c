// SPDX-License-Identifier: BSD-2-Clause
/* Streaming TSV reader and row validator: see reader.h. */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "analyze/reader.h"

/* Per-field helpers, inlined so that their constant arguments fold away. */
#define HOT static inline __attribute__((always_inline))
#define PAD 64			/* readable bytes past the data (8-byte loads) */
#define MAX_META 256

enum state { ST_VERSION, ST_META, ST_ROWS };

struct tsv_reader {
	const char *name;
	int fd;
	unsigned flags;
	enum state state;
	char *buf;
	size_t pos, end;	/* unread data is buf[pos, end) */
	bool eof;
	bool ranged;		/* pread(2) from off while off < limit */
	uint64_t off, limit;
	uint64_t nread;		/* bytes read into buf so far */
	uint64_t lineno, skipped;
	bool trailer;
	uint64_t lost, events;
#ifdef __SSE2__
	size_t (*fast)(const char *p, struct tsv_row *row, bool ids);	/* fast_path */
#endif
	char *meta[MAX_META];	/* "key\0value" */
	size_t nmeta;
	bool err_at_line;	/* err is "NAME:LINE: " + msg */
	char msg[400];
	char err[512];
};

static const char *const colnames[TSV_NFIELDS] = {
	"ts_ns", "container", "cgroup_id", "pid", "tid", "ppid",
	"comm", "event", "name", "ret", "dur_ns", "detail",
};

static int fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}

/* Copy at most 40 bytes of a field for a message, with ? for odd bytes. */
static const char *excerpt(const char *p, size_t n, char *out)
{
	size_t i, k = n > 40 ? 40 : n;

	for (i = 0; i < k; i++) {
		unsigned char c = (unsigned char)p[i];

		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (n > k) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
	return out;
}

int tsv_parse_int(const char *s, size_t n, bool is_signed, uint64_t *out)
{
	bool neg = false;
	uint64_t v = 0, limit;
	size_t i = 0;

	if (n && s[0] == '-' && is_signed) {
		neg = true;
		i = 1;
	}
	if (i == n)
		return -1;
	limit = !is_signed ? UINT64_MAX : neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX;
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		if (v > (limit - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = neg ? (uint64_t)0 - v : v;
	return 0;
}

/*
 * Integers eight digits at a time (SWAR): no loop whose length depends on
 * the number, so no mispredicted branch per field. Little-endian: the first
 * digit is the lowest byte (a big-endian build takes tsv_parse_int()).
 */
#define SWAR_OK (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

static inline uint64_t load64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Are bytes 0..@n-1 of @x (1 <= @n <= 8) all '0'..'9'? A byte passes when
 * its high nibble is 3 and stays 3 after adding 6; a carry out of a byte
 * comes only from a byte >= 0xfa, which fails already. */
static inline bool swar_digits(uint64_t x, unsigned n)
{
	const uint64_t hi = 0xf0f0f0f0f0f0f0f0ULL, three = 0x3030303030303030ULL;
	uint64_t mask = n >= 8 ? ~0ULL : (1ULL << (8 * n)) - 1;
	uint64_t bad = ((x & hi) ^ three) | (((x + 0x0606060606060606ULL) & hi) ^ three);

	return (bad & mask) == 0;
}

/* The value of the @n (1..8) digits in the low bytes of @x. */
static inline uint64_t swar_value(uint64_t x, unsigned n)
{
	x = (x & 0x0f0f0f0f0f0f0f0fULL) << (8 * (8 - n)); /* leading zeros */
	x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffULL;
	x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffULL;
	return (x * 10000 + (x >> 32)) & 0xffffffffULL;
}

/*
 * An unsigned field: 0, -1 malformed, -2 past 64 bits (as tsv_parse_int()).
 * Up to 16 digits cannot overflow; longer ones take the exact loop. Without
 * @convert the digits are only checked.
 */
HOT int parse_u(const char *s, size_t n, bool convert, uint64_t *out)
{
	uint64_t x, y;

	if (!SWAR_OK || n - 1 >= 16) { /* also n == 0 */
		/* checked in full (past 64 bits?), but stored only if asked */
		int rc = tsv_parse_int(s, n, false, &x);

		if (rc == 0 && convert)
			*out = x;
		return rc;
	}
	x = load64(s);
	if (n <= 8) {
		if (!swar_digits(x, (unsigned)n))
			return -1;
		if (convert)
			*out = swar_value(x, (unsigned)n);
		return 0;
	}
	y = load64(s + n - 8);
	if (!swar_digits(x, 8) || !swar_digits(y, 8))
		return -1;
	if (convert)
		*out = swar_value(x, (unsigned)n - 8) * 100000000 + swar_value(y, 8);
	return 0;
}

/* A signed field (ret). */
HOT int parse_i(const char *s, size_t n, uint64_t *out)
{
	size_t neg = n && s[0] == '-';
	int rc;

	if (n - neg - 1 >= 16)
		return tsv_parse_int(s, n, true, out);
	rc = parse_u(s + neg, n - neg, true, out);
	if (rc == 0 && neg)
		*out = (uint64_t)0 - *out;
	return rc;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* The name of the field byte @i of @line is in, for messages. */
static const char *col_at(const char *line, size_t i)
{
	size_t nf = 0, k;

	for (k = 0; k < i; k++)
		nf += line[k] == '\t';
	return nf < TSV_NFIELDS ? colnames[nf] : "an extra field";
}

/*
 * Check the backslash or control byte at @i. Returns the index to scan on
 * from, or (size_t)-1 with a message. A TAB is never part of a valid
 * escape, so the fields can be split without looking at the escapes.
 */
static size_t special(const char *line, size_t len, size_t i, char *err, size_t errsz)
{
	unsigned char c = (unsigned char)line[i];
	char ex[48];

	if (c == '\\') {
		char e = i + 1 < len ? line[i + 1] : '\0';
		size_t k = e == 'x' ? 4 : 2;

		switch (e) {
		case '\\': case 't': case 'n': case 'r':
			return i + 2;
		case 'x':
			if (i + 3 < len && is_hex(line[i + 2]) && is_hex(line[i + 3]))
				return i + 4;
			break;
		case 'N': /* a whole field */
			if ((i == 0 || line[i - 1] == '\t') && (i + 2 == len || line[i + 2] == '\t'))
				return i + 2;
			break;
		}
		fail(err, errsz, "bad escape '%s' in %s",
		     excerpt(line + i, len - i < k ? len - i : k, ex), col_at(line, i));
		return (size_t)-1;
	}
	if (c == 0)
		fail(err, errsz, "NUL byte in %s (binary data?)", col_at(line, i));
	else
		fail(err, errsz, "control byte 0x%02x in %s", c, col_at(line, i));
	return (size_t)-1;
}

/* Without the popcnt instruction (not in baseline x86-64) a libgcc call. */
static inline unsigned popcount64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/*
 * Bit i of *@t / *@s: byte @c + i of the line (@c < @len) is a TAB / needs a
 * look (a backslash or another byte <= 0x1f). Bytes past the line give no
 * bit, and none is read: a 16-byte block that would cross the end is loaded
 * as the line's last 16 bytes instead, its bits shifted down.
 */
static inline void chunk_masks(const char *line, size_t len, size_t c,
			       uint64_t *t, uint64_t *s)
{
	uint64_t tm = 0, sm = 0;
	size_t k;

#ifdef __SSE2__
	if (len >= 16) {
		const __m128i vtab = _mm_set1_epi8('\t'), v1f = _mm_set1_epi8(0x1f),
			vbs = _mm_set1_epi8('\\');

		for (k = 0; k < 4; k++) {
			size_t b = c + 16 * k, at = b < len - 16 ? b : len - 16;
			__m128i x = _mm_loadu_si128((const __m128i *)(line + at));
			uint64_t tt = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vtab));
			uint64_t ss = (unsigned)_mm_movemask_epi8(_mm_or_si128(
				_mm_cmpeq_epi8(_mm_max_epu8(x, v1f), v1f),
				_mm_cmpeq_epi8(x, vbs)));

			/* b - at < 64; past the end it is >= 16: no bits left */
			tm |= (tt >> (b - at)) << (16 * k);
			sm |= ((ss & ~tt) >> (b - at)) << (16 * k);
		}
		*t = tm;
		*s = sm;
		return;
	}
#endif
	for (k = 0; k < 64 && c + k < len; k++) {
		unsigned char ch = (unsigned char)line[c + k];

		if (ch == '\t')
			tm |= 1ULL << k;
		else if (ch <= 0x1f || ch == '\\')
			sm |= 1ULL << k;
	}
	*t = tm;
	*s = sm;
}

/* Room in split()'s @tab: 11 TABs, and 12 more written at once. */
#define TAB_SLOTS 24

/*
 * The exact path, for what fast_row() leaves (escapes, long lines, errors)
 * and for tsv_parse_row(): find the TABs of @line — the positions of the
 * first 11 go to @tab, all a row of 12 fields has — and check every escape
 * and control byte, in order, so that the first fault is the one reported.
 * Returns the number of fields, or -1 with a message. 64 bytes at a time,
 * the TAB positions written without a branch per TAB.
 */
static int split(const char *line, size_t len, uint32_t *tab, char *err, size_t errsz)
{
	size_t nf = 0, skip = 0, c;

	for (c = 0; c < len; c += 64) {
		uint64_t t, s, m;
		size_t j;

		chunk_masks(line, len, c, &t, &s);
		if (nf < TSV_NFIELDS) {
			/* garbage past the last TAB is never read: see above */
			for (m = t, j = 0; j < TSV_NFIELDS; j++, m &= m - 1)
				tab[nf + j] = (uint32_t)(c + (size_t)__builtin_ctzll(m | 1ULL << 63));
		}
		nf += popcount64(t);
		while (s) {
			size_t at = c + (size_t)__builtin_ctzll(s);

			s &= s - 1;
			if (at < skip)
				continue; /* inside an escape already checked */
			skip = special(line, len, at, err, errsz);
			if (skip == (size_t)-1)
				return -1;
		}
	}
	return (int)nf + 1;
}

/* Integer column @col of @row: its value into *@v, or its \N bit. */
HOT int int_field(struct tsv_row *row, int col, bool is_signed, bool convert, uint64_t *v)
{
	const struct tsv_field *f = &row->f[col];

	*v = 0;
	if (tsv_is_null(f->p, f->n)) {
		row->null |= 1u << col;
		return 0;
	}
	return is_signed ? parse_i(f->p, f->n, v) : parse_u(f->p, f->n, convert, v);
}

/*
 * Convert or check the integer columns of @row, whose fields are set, in
 * column order. Returns 0, or the first failure (-1 malformed, -2 past 64
 * bits) with its column in *@col.
 */
HOT int parse_ints(struct tsv_row *row, bool ids, int *col)
{
	uint64_t v[TSV_NFIELDS];
	int rc;

	row->null = 0;
	/* Written out, not a loop, so that each call folds for its column. */
#define INT_COL(c, is_signed, convert) \
	if ((rc = int_field(row, (*col = c), is_signed, convert, &v[c])) != 0) \
		return rc
	INT_COL(TSV_TS_NS, false, true);
	INT_COL(TSV_CGROUP_ID, false, ids);
	INT_COL(TSV_PID, false, ids);
	INT_COL(TSV_TID, false, ids);
	INT_COL(TSV_PPID, false, ids);
	INT_COL(TSV_RET, true, true);
	INT_COL(TSV_DUR_NS, false, true);
#undef INT_COL
	row->ts_ns = v[TSV_TS_NS];
	row->cgroup_id = v[TSV_CGROUP_ID];
	row->pid = (int64_t)v[TSV_PID];
	row->tid = (int64_t)v[TSV_TID];
	row->ppid = (int64_t)v[TSV_PPID];
	row->ret = (int64_t)v[TSV_RET];
	row->dur_ns = v[TSV_DUR_NS];
	return 0;
}

static int parse_row(const char *line, size_t len, struct tsv_row *row, unsigned flags,
		     char *err, size_t errsz)
{
	uint32_t tab[TAB_SLOTS];
	size_t k;
	int nf, col, rc;
	char ex[48];

	if (len > TSV_MAX_LINE)
		return fail(err, errsz, "line longer than %u bytes", TSV_MAX_LINE);
	nf = split(line, len, tab, err, errsz);
	if (nf < 0)
		return -1;
	if (nf != TSV_NFIELDS)
		return fail(err, errsz, "expected %d fields, got %d", TSV_NFIELDS, nf);
	row->f[0].p = line;
	row->f[0].n = tab[0];
	for (k = 1; k < TSV_NFIELDS - 1; k++) {
		row->f[k].p = line + tab[k - 1] + 1;
		row->f[k].n = tab[k] - tab[k - 1] - 1;
	}
	row->f[k].p = line + tab[k - 1] + 1;
	row->f[k].n = (uint32_t)(len - tab[k - 1] - 1);
	rc = parse_ints(row, !(flags & TSV_NO_IDS), &col);
	if (rc == -2)
		return fail(err, errsz, "%s out of range (past 64 bits): '%s'", colnames[col],
			    excerpt(row->f[col].p, row->f[col].n, ex));
	if (rc < 0) {
		if (col == TSV_TS_NS && len == sizeof(TSV_HEADER) - 1 &&
		    memcmp(line, TSV_HEADER, len) == 0)
			return fail(err, errsz, "duplicate header line");
		return fail(err, errsz, "bad integer in %s: '%s'", colnames[col],
			    excerpt(row->f[col].p, row->f[col].n, ex));
	}
	if (row->f[TSV_CONTAINER].n == 0)
		return fail(err, errsz, "empty container");
	if (row->f[TSV_EVENT].n == 0)
		return fail(err, errsz, "empty event");
	return 0;
}

#ifdef __SSE2__
typedef unsigned __int128 u128;

/* fast_row() stores a struct tsv_field as one 16-byte register. */
_Static_assert(sizeof(struct tsv_field) == 16 && offsetof(struct tsv_field, n) == 8 &&
	       sizeof(const char *) == 8, "struct tsv_field layout");

/* fast_row() reads lines of up to FAST_WINDOW - 1 bytes. */
#define FAST_WINDOW 128

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
 * The common row, fast: a line of at most FAST_WINDOW - 1 bytes whose only
 * backslashes are whole-field \N and whose integers are plain — that is,
 * one that parse_row() accepts. At @p, with FAST_WINDOW bytes of data
 * there, and @w their masks: the LF, the TABs and the bytes that need a look
 * are found by loads at fixed offsets (independent, unlike a field-by-field
 * search, and without a branch per TAB), replacing memchr() and split().
 * @tabs, @fields and @value: the helpers for the CPU. Returns the bytes
 * taken, LF included, with the row in @row; or 0 for any other line, which
 * the exact path then reads (and says what is wrong).
 */
HOT size_t fast_row(const char *p, const struct window *w, struct tsv_row *row, bool ids,
		    tabs_fn *tabs, fields_fn *fields, digits_fn *value)
{
	u128 T, NL, S;
	/* up to 127 TABs, 16 bytes written at once, 16 read */
	uint8_t pos[FAST_WINDOW + 16];
	unsigned at, len, nt;
	int col;

	NL = (u128)w->nl[1] << 64 | w->nl[0];
	if (!NL || p[0] == '#')
		return 0;
	len = ctz128(NL);
	T = ((u128)w->t[1] << 64 | w->t[0]) & below[len];
	S = ((u128)w->sp[1] << 64 | w->sp[0]) & below[len] & ~T;
	for (; S; S &= S - 1) {
		at = ctz128(S);
		if (!(p[at] == '\\' && p[at + 1] == 'N' && (at == 0 || p[at - 1] == '\t') &&
		      (at + 2 == len || p[at + 2] == '\t')))
			return 0;
	}
	nt = tabs(T, len, pos);
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
static size_t fast_row_sse2(const char *p, struct tsv_row *row, bool ids)
{
	struct window w;

	window_sse2(p, &w);
	return fast_row(p, &w, row, ids, tabs_table, fields_sse2, digits_value);
}

static TARGET_AVX2 size_t fast_row_avx2(const char *p, struct tsv_row *row, bool ids)
{
	struct window w;

	window_avx2(p, &w);
	return fast_row(p, &w, row, ids, tabs_table, fields_sse2, digits_value_avx2);
}

static TARGET_AVX512 size_t fast_row_avx512(const char *p, struct tsv_row *row, bool ids)
{
	struct window w;

	window_avx512(p, &w);
	return fast_row(p, &w, row, ids, tabs_avx512, fields_avx512, digits_value_avx2);
}

/*
 * The tables and the fast_row() for this CPU, once per process; after that
 * both are only read. ANALYZE_SIMD=sse2 or avx2 in the environment keeps to
 * that instruction set (to test its path on a CPU with more).
 */
typedef size_t fast_fn(const char *p, struct tsv_row *row, bool ids);
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
#endif

int tsv_parse_row(const char *line, size_t len, struct tsv_row *row,
		  char *err, size_t errsz)
{
	return parse_row(line, len, row, 0, err, errsz);
}

struct tsv_reader *tsv_reader__new(const char *name, int fd, unsigned flags)
{
	struct tsv_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->buf = malloc(TSV_READ_BUF + PAD);
	if (!r->buf) {
		free(r);
		return NULL;
	}
	memset(r->buf + TSV_READ_BUF, 0, PAD);
#ifdef __SSE2__
	pthread_once(&fast_once, fast_init);
	r->fast = fast_path;
#endif
	r->name = name;
	r->fd = fd;
	r->flags = flags;
	return r;
}

struct tsv_reader *tsv_reader__new_range(const char *name, int fd, unsigned flags,
					 uint64_t start, uint64_t end)
{
	struct tsv_reader *r = tsv_reader__new(name, fd, flags);

	if (!r)
		return NULL;
	r->state = ST_ROWS;
	r->ranged = true;
	r->off = start;
	r->limit = end;
	return r;
}

void tsv_reader__free(struct tsv_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nmeta; i++)
		free(r->meta[i]);
	free(r->buf);
	free(r);
}

static void format_err(struct tsv_reader *r)
{
	snprintf(r->err, sizeof(r->err), "%s:%llu: %s", r->name,
		 (unsigned long long)r->lineno, r->msg);
}

static int rfail(struct tsv_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rfail(struct tsv_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->err_at_line = true;
	format_err(r);
	return -1;
}

static int ioerr(struct tsv_reader *r)
{
	snprintf(r->err, sizeof(r->err), "%s: read error: %s", r->name, strerror(errno));
	return -2;
}

enum { LINE_OK = 1, LINE_EOF = 0, LINE_IOERR = -2, LINE_LONG = -3, LINE_TRUNC = -4 };

/* Fill the buffer; returns bytes read, 0 at end of input, -1 on error. */
static ssize_t fill(struct tsv_reader *r)
{
	size_t want = TSV_READ_BUF - r->end;
	ssize_t n;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		want += r->pos;
		r->pos = 0;
	}
	if (want > TSV_READ_CHUNK)
		want = TSV_READ_CHUNK;
	if (r->ranged && r->limit - r->off < want)
		want = (size_t)(r->limit - r->off);
	if (!want)
		return 0;
	do
		n = r->ranged ? pread(r->fd, r->buf + r->end, want, (off_t)r->off) :
				read(r->fd, r->buf + r->end, want);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		r->end += (size_t)n;
		r->nread += (uint64_t)n;
		r->off += (uint64_t)n;
	}
	return n;
}

/* The next line without its LF; see the LINE_ codes. */
static inline int next_line(struct tsv_reader *r, const char **line, size_t *len)
{
	bool discarding = false;

	for (;;) {
		char *s = r->buf + r->pos;
		char *nl = memchr(s, '\n', r->end - r->pos);
		ssize_t n;

		if (nl) {
			r->pos = (size_t)(nl + 1 - r->buf);
			if (discarding)
				return LINE_LONG;
			*line = s;
			*len = (size_t)(nl - s);
			if (*len > TSV_MAX_LINE)
				return LINE_LONG;
			return LINE_OK;
		}
		if (discarding || r->end - r->pos > TSV_MAX_LINE) {
			/*
			 * Keep no more than the limit: drop up to the end. Only a
			 * row is skipped: a header line that long is fatal, so
			 * there is no reading on to its end (of /dev/zero, say).
			 */
			if (!(r->flags & TSV_LENIENT) || r->state != ST_ROWS)
				return LINE_LONG;
			discarding = true;
			r->pos = r->end = 0;
		}
		if (r->eof) {
			if (r->pos == r->end && !discarding)
				return LINE_EOF;
			*line = s;
			*len = r->end - r->pos;
			r->pos = r->end;
			return discarding ? LINE_LONG : LINE_TRUNC;
		}
		n = fill(r);
		if (n < 0)
			return LINE_IOERR;
		if (n == 0)
			r->eof = true;
	}
}

static int parse_trailer(struct tsv_reader *r, const char *line, size_t len)
{
	const char *p, *end = line + len, *sp;

	if (len < 8 || memcmp(line, "# lost=", 7) != 0)
		return 0;
	p = line + 7;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || tsv_parse_int(p, (size_t)(sp - p), false, &r->lost) < 0 ||
	    (size_t)(end - sp) < 8 || memcmp(sp, " events=", 8) != 0 ||
	    tsv_parse_int(sp + 8, (size_t)(end - sp - 8), false, &r->events) < 0)
		return rfail(r, "malformed trailer (expected '# lost=N events=M')");
	r->trailer = true;
	return 0;
}

static int parse_meta(struct tsv_reader *r, const char *line, size_t len)
{
	const char *eq;
	char *m;
	size_t i;

	if (len < 3 || line[1] != ' ' || !(eq = memchr(line, '=', len)) || eq == line + 2)
		return rfail(r, "bad metadata line (expected '# key=value')");
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20)
			return rfail(r, "control byte 0x%02x in metadata line",
				     (unsigned char)line[i]);
	if (r->nmeta == MAX_META)
		return rfail(r, "more than %d metadata lines", MAX_META);
	m = malloc(len - 1);
	if (!m)
		return rfail(r, "out of memory");
	memcpy(m, line + 2, len - 2);
	m[len - 2] = '\0';
	m[eq - (line + 2)] = '\0';
	r->meta[r->nmeta++] = m;
	return 0;
}

int tsv_reader_header(struct tsv_reader *r)
{
	const char *line = NULL;
	size_t len = 0;

	while (r->state != ST_ROWS) {
		int rc = next_line(r, &line, &len);

		if (rc == LINE_IOERR)
			return ioerr(r);
		if (rc == LINE_EOF) {
			if (r->state == ST_VERSION) {
				r->lineno = 1;
				return rfail(r, "empty input (no '%s' line)", TSV_VERSION_LINE);
			}
			return rfail(r, "no header line (file cut short?)");
		}
		r->lineno++;
		if (rc == LINE_LONG)
			return rfail(r, "line longer than %u bytes", TSV_MAX_LINE);
		if (rc == LINE_TRUNC)
			return rfail(r, "truncated line (no newline at end of file)");
		if (r->state == ST_VERSION) {
			if (len == sizeof(TSV_VERSION_LINE) - 1 &&
			    memcmp(line, TSV_VERSION_LINE, len) == 0) {
				r->state = ST_META;
				continue;
			}
			if (len > 16 && memcmp(line, "# boottrace-tsv ", 16) == 0)
				return rfail(r, "unsupported format version (expected '%s')",
					     TSV_VERSION_LINE);
			return rfail(r, "not a boottrace TSV (expected '%s')", TSV_VERSION_LINE);
		}
		if (len && line[0] == '#') {
			if (parse_meta(r, line, len) < 0)
				return -1;
			continue;
		}
		if (len == sizeof(TSV_HEADER) - 1 && memcmp(line, TSV_HEADER, len) == 0) {
			r->state = ST_ROWS;
			continue;
		}
		return rfail(r, "expected the header line '%s'",
			     "ts_ns\\tcontainer\\t...\\tdetail");
	}
	return 0;
}

int tsv_reader_next(struct tsv_reader *r, struct tsv_row *row)
{
	const char *line = NULL;
	size_t len = 0;

	if (r->state != ST_ROWS) {
		int rc = tsv_reader_header(r);

		if (rc < 0)
			return rc;
	}
	for (;;) {
		int rc;

#ifdef __SSE2__
		/* the last line or two of a buffer take the exact path */
		if (r->end - r->pos >= FAST_WINDOW) {
			size_t took = r->fast(r->buf + r->pos, row, !(r->flags & TSV_NO_IDS));

			if (took) {
				r->pos += took;
				r->lineno++;
				return 1;
			}
		}
#endif
		rc = next_line(r, &line, &len);
		if (rc == LINE_OK && len && line[0] != '#') {
			r->lineno++;
			if (parse_row(line, len, row, r->flags, r->msg, sizeof(r->msg)) == 0)
				return 1;
			if (r->flags & TSV_LENIENT) {
				r->skipped++;
				continue;
			}
			r->err_at_line = true;
			format_err(r);
			return -1;
		}
		if (rc == LINE_IOERR)
			return ioerr(r);
		if (rc == LINE_EOF)
			return 0;
		r->lineno++;
		if (rc == LINE_LONG || rc == LINE_TRUNC) {
			if (r->flags & TSV_LENIENT) {
				r->skipped++;
				continue;
			}
			if (rc == LINE_LONG)
				return rfail(r, "line longer than %u bytes", TSV_MAX_LINE);
			return rfail(r, "truncated line (no newline at end of file)");
		}
		if (len) { /* a '#' line */
			if (parse_trailer(r, line, len) < 0)
				return -1;
			continue;
		}
		if (r->flags & TSV_LENIENT) {
			r->skipped++;
			continue;
		}
		return rfail(r, "empty line");
	}
}

uint64_t tsv_reader_consumed(const struct tsv_reader *r)
{
	return r->nread - (r->end - r->pos);
}

void tsv_reader_rebase(struct tsv_reader *r, uint64_t lines)
{
	r->lineno += lines;
	if (r->err_at_line)
		format_err(r);
}

const char *tsv_reader_error(const struct tsv_reader *r)
{
	return r->err;
}

uint64_t tsv_reader_line(const struct tsv_reader *r)
{
	return r->lineno;
}

uint64_t tsv_reader_skipped(const struct tsv_reader *r)
{
	return r->skipped;
}

bool tsv_reader_trailer(const struct tsv_reader *r, uint64_t *lost, uint64_t *events)
{
	if (r->trailer) {
		if (lost)
			*lost = r->lost;
		if (events)
			*events = r->events;
	}
	return r->trailer;
}

const char *tsv_reader_meta(const struct tsv_reader *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nmeta; i++)
		if (strcmp(r->meta[i], key) == 0)
			return r->meta[i] + strlen(r->meta[i]) + 1;
	return NULL;
}
