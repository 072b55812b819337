/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * compare: --compare A B, per phase: counts, medians and p90 of each side,
 * the difference of the medians and a Mann-Whitney U test (stats.h), then
 * the Hodges-Lehmann shift of B against A with its exact 95% interval
 * (shift.h); and --fail-if-slower PCT, the gate for CI:
 *
 *   sign      the shift is B - A: positive means B is slower;
 *   base      percentages are of A's median (nearest rank, as the table);
 *   regressed a phase whose 95% interval lies above 0 (a significant
 *             slowdown: the exact two-sided Mann-Whitney test at 5%, which
 *             the interval inverts) and whose shift, the point estimate, is
 *             more than PCT % of A's median. The point, not the interval's
 *             lower bound: with ten boots a side the interval is often
 *             wider than PCT itself, and a bound-based gate would pass
 *             most real regressions of PCT; significance already guards
 *             against noise (benchstat's rule: significant, then the size);
 *   inconclusive  no 95% interval (fewer than 4 boots on a side, or 3 and
 *             5 and the like: see shift.h), no values on one side, A's
 *             median not above 0, or a shift beyond PCT % whose interval
 *             holds 0 (slower, perhaps, but not shown to be);
 *   ok        everything else: no significant change, faster, or slower
 *             by at most PCT %.
 * Exit status (main.c): 3 when a phase regressed, else 0 (inconclusive
 * phases are named on the last line), 2 for usage errors and bad input.
 */
#ifndef ANALYZE_COMPARE_H
#define ANALYZE_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/report.h"

struct compare_opts {
	enum report_format format;	/* FMT_TEXT or FMT_TSV */
	bool gate;			/* --fail-if-slower given */
	uint64_t pct_milli;		/* its PCT in thousandths of a percent */
};

/*
 * compare_parse_pct - "5", "2.5", "0.125" or "5%" into thousandths of a
 * percent (at most 3 decimals, at most 1000000%). Returns 0, or -1 when
 * malformed.
 */
int compare_parse_pct(const char *s, uint64_t *milli);

/*
 * compare_print - the comparison of @b against @a (named @na and @nb) on
 * @f. With o->gate, the verdict: in text its last line, in TSV the gate
 * column and a line on @err. Returns 0, 1 when a phase regressed (gate
 * only), or -1 when writing failed or memory ran out (errno).
 */
int compare_print(FILE *f, FILE *err, const struct analysis *a, const struct analysis *b,
		  const char *na, const char *nb, const struct compare_opts *o);

#endif /* ANALYZE_COMPARE_H */
