/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * reader_int: private to reader.c and reader_fast.c. The integer field
 * helpers both parse rows with (inlined into each), and the fast path's
 * entry: reader.c asks reader_fast.c once for the fast_row() of the CPU.
 */
#ifndef ANALYZE_READER_INT_H
#define ANALYZE_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analyze/read/reader.h"

/* Per-field helpers, inlined so that their constant arguments fold away. */
#define HOT static inline __attribute__((always_inline))

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

#ifdef __SSE2__
/* fast_row() reads lines of up to FAST_WINDOW - 1 bytes; longer ones,
 * up to FAST_LONG - 1 bytes, whose TABs are all in the first FAST_WINDOW */
#define FAST_WINDOW 128
#define FAST_LONG 256

typedef size_t fast_fn(const char *p, size_t avail, struct tsv_row *row, bool ids);

/* The fast_row() for this CPU, chosen once per process: see reader_fast.c. */
fast_fn *tsv_fast_path(void);
#endif

#endif
