// SPDX-License-Identifier: BSD-2-Clause
/* Data-driven linear bins for the PNG histograms: see bins.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats/bins.h"

#define MIN_BINS 5

size_t bins_cap(size_t n)
{
	size_t r = (size_t)ceil(sqrt((double)n)), cap = 2 * r;

	if (cap < 10)
		cap = 10;
	return cap > BINS_MAX ? BINS_MAX : cap;
}

/* 4 Q(p) for p = q/4 (q = 1 or 3): see bins.h, exact. */
static __int128 quartile_x4(const int64_t *x, size_t n, unsigned q)
{
	unsigned __int128 h = (unsigned __int128)(n - 1) * q;
	size_t j = (size_t)(h / 4), f = (size_t)(h % 4);
	__int128 v = (__int128)x[j] * 4;

	if (f)
		v += (__int128)f * ((__int128)x[j + 1] - x[j]);
	return v;
}

unsigned __int128 bins_iqr_x4(const int64_t *sorted, size_t n)
{
	return (unsigned __int128)(quartile_x4(sorted, n, 3) - quartile_x4(sorted, n, 1));
}

/*
 * The 1-2-2.5-5 series: the largest member <= @w (>= 1), and the next one
 * above a member (0 past 64 bits). 2.5 x 10^0 is not an integer: from 10 up.
 */
static uint64_t nice_down(uint64_t w)
{
	uint64_t p = 1;

	while (p <= w / 10)
		p *= 10;
	if (p > UINT64_MAX / 5)
		return p;	/* 10^19: the last power of ten in 64 bits */
	if (w >= 5 * p)
		return 5 * p;
	if (p >= 10 && 2 * w >= 5 * p)
		return p / 2 * 5;
	if (w >= 2 * p)
		return 2 * p;
	return p;
}

static uint64_t nice_up(uint64_t w)
{
	uint64_t p = 1;

	while (p <= w / 10)
		p *= 10;
	if (p > UINT64_MAX / 5)
		return 0;
	if (w == p)
		return 2 * p;
	if (w == 2 * p)
		return p >= 10 ? p / 2 * 5 : 5 * p;
	if (w < 5 * p)
		return 5 * p;
	return 10 * p;
}

/* The multiple of @w at or below @v; @v itself when that is past int64. */
static int64_t align_down(int64_t v, uint64_t w)
{
	__int128 q = (__int128)v / (__int128)w, lo;

	if ((__int128)v % (__int128)w < 0)
		q--;
	lo = q * (__int128)w;
	return lo < INT64_MIN ? v : (int64_t)lo;
}

/* Bins [lo, lo + w), ... up to the one holding @max. */
static unsigned __int128 count_for(int64_t lo, int64_t max, uint64_t w)
{
	return (unsigned __int128)(((uint64_t)max - (uint64_t)lo) / w) + 1;
}

static size_t distinct_upto(const int64_t *x, size_t n, size_t limit)
{
	size_t i, d = n ? 1 : 0;

	for (i = 1; i < n && d < limit; i++)
		if (x[i] != x[i - 1])
			d++;
	return d;
}

int bins_build(const int64_t *sorted, size_t n, struct bins *b)
{
	int64_t min, max;
	uint64_t range, w;
	size_t cap, kmin = 1, i;
	unsigned __int128 iqr4, k;
	double h, h_fd, h_st, h_min, h_cap;

	memset(b, 0, sizeof(*b));
	b->rule = BINS_EMPTY;
	if (!n)
		return 0;
	min = sorted[0];
	max = sorted[n - 1];
	range = (uint64_t)max - (uint64_t)min;
	cap = bins_cap(n);
	if (!range) {
		uint64_t mag = min < 0 ? (uint64_t)0 - (uint64_t)min : (uint64_t)min;

		b->rule = BINS_SINGLE;
		w = nice_down(mag / 10 ? mag / 10 : 1);
	} else {
		iqr4 = bins_iqr_x4(sorted, n);
		h_st = (double)range / (log2((double)n) + 1.0);
		h_fd = (double)iqr4 / 2.0 / cbrt((double)n);	/* 2 (iqr4 / 4) n^-1/3 */
		h = h_st;
		b->rule = BINS_STURGES;
		if (iqr4 && h_fd < h) {
			h = h_fd;
			b->rule = BINS_FD;
		}
		kmin = distinct_upto(sorted, n, MIN_BINS);
		h_min = (double)range / (double)kmin;
		if (h > h_min) {
			h = h_min;
			b->rule = BINS_MIN;
		}
		h_cap = (double)range / (double)cap;
		if (h < h_cap) {
			h = h_cap;
			b->rule = BINS_CAPPED;
		}
		/* (double)range rounds: never past 2^64 - 1 here */
		w = h < 1.0 ? 1 : h >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)h;
		w = nice_down(w);
	}
	b->lo = align_down(min, w);
	k = count_for(b->lo, max, w);
	while (k > cap) {
		uint64_t up = nice_up(w);
		int64_t lo;

		/* 10^19 ns: at most 2 bins anyway */
		if (!up || count_for((lo = align_down(min, up)), max, up) < kmin)
			break;
		w = up;
		b->lo = lo;
		k = count_for(lo, max, w);
		b->rule = BINS_CAPPED;
	}
	b->width = w;
	b->n = (size_t)k;
	b->count = calloc(b->n, sizeof(*b->count));
	if (!b->count) {
		memset(b, 0, sizeof(*b));
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t idx = ((uint64_t)sorted[i] - (uint64_t)b->lo) / w;

		b->count[idx < b->n ? idx : b->n - 1]++;
	}
	return 0;
}

void bins_release(struct bins *b)
{
	free(b->count);
	memset(b, 0, sizeof(*b));
}

int64_t bins_edge(const struct bins *b, size_t i)
{
	__int128 e = (__int128)b->lo + (__int128)i * (__int128)b->width;

	return e > INT64_MAX ? INT64_MAX : (int64_t)e;
}

const char *bins_rule_name(enum bins_rule r)
{
	switch (r) {
	case BINS_SINGLE: return "all values equal";
	case BINS_FD: return "Freedman-Diaconis";
	case BINS_STURGES: return "Sturges";
	case BINS_MIN: return "at least 5 bins";
	case BINS_CAPPED: return "bin count capped";
	default: return "no values";
	}
}
