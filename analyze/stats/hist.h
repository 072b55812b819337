/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hist: histograms of a phase's values, printed in the shape of bpftrace's
 * hist() and lhist():
 *
 *   [1M, 2M)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
 *
 * log2: bucket "(..., 0)" for negative values, "[0]", "[1]", then
 * [2^k, 2^(k+1)) labelled with K/M/G/T suffixes for powers of 1024.
 * linear:STEP: buckets [k*STEP, (k+1)*STEP) from 0 up, and "(..., 0)".
 * Buckets before the first and after the last non-empty one are trimmed;
 * empty buckets in between are shown. The bar of a bucket is
 * trunc(count / max_count * 52) '@'s.
 */
#ifndef ANALYZE_HIST_H
#define ANALYZE_HIST_H

#include <stdint.h>
#include <stdio.h>

#define HIST_BAR_WIDTH 52
#define HIST_MAX_BUCKETS 4096

enum hist_kind { HIST_LOG2, HIST_LINEAR };

struct hist_bucket {
	int64_t lo, hi;		/* [lo, hi); negative bucket: lo = INT64_MIN, hi = 0 */
	uint64_t count;
	char label[48];		/* bpftrace's label, "[1M, 2M)" */
};

/* hist_log2_index - bpftrace's bucket: 0 for v < 0, 1 for 0, 2 + log2(v). */
int hist_log2_index(int64_t v);

/* hist_log2_label - the label of log2 bucket @idx into @buf (48 bytes). */
void hist_log2_label(int idx, char *buf);

/*
 * hist_build - the trimmed buckets of @n values (any order) into *@out
 * (caller frees) and *@nout. @step is for HIST_LINEAR (> 0). Returns 0, or
 * -1 when out of memory or when a linear histogram would need more than
 * HIST_MAX_BUCKETS buckets (errno = E2BIG). n == 0 gives no buckets.
 */
int hist_build(const int64_t *v, size_t n, enum hist_kind kind, uint64_t step,
	       struct hist_bucket **out, size_t *nout);

/*
 * hist_print - print @nb buckets as bpftrace does. Returns 0, or -1 when
 * writing to @f failed.
 */
int hist_print(FILE *f, const struct hist_bucket *b, size_t nb);

#endif /* ANALYZE_HIST_H */
