// SPDX-License-Identifier: BSD-2-Clause
/* --compare and --fail-if-slower: see compare.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/out/compare.h"
#include "analyze/stats/shift.h"
#include "analyze/stats/stats.h"
#include "analyze/units.h"

/* Below this many boots on a side, the interval is said to be rough. */
#define FEW_BOOTS 4

enum change { CH_NODATA, CH_NOCI, CH_SAME, CH_SLOWER, CH_FASTER };
enum gate { GATE_NONE, GATE_OK, GATE_REGRESSED, GATE_INCONCLUSIVE };

struct side {
	const int64_t *v;
	size_t n;
	int64_t med, p90;
};

struct row {
	const char *name;
	struct side a, b;
	struct mann_whitney mw;
	struct shift s;		/* when both sides have values */
	enum change ch;
	enum gate gate;
	const char *why;	/* of an inconclusive gate */
};

int compare_parse_pct(const char *s, uint64_t *milli)
{
	uint64_t whole = 0, frac = 0;
	int digits = 0, dec = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 1000000)
			return -1;
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (++dec > 3)
				return -1;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
	if (*p == '%')
		p++;
	if (!digits || *p)
		return -1;
	for (; dec < 3; dec++)
		frac *= 10;
	*milli = whole * 1000 + frac;
	return *milli > 1000000000ULL ? -1 : 0;
}

static void side_of(const struct analysis *a, long i, struct side *s)
{
	memset(s, 0, sizeof(*s));
	if (i < 0 || !a->phases[i].n)
		return;
	s->v = a->phases[i].v;
	s->n = a->phases[i].n;
	s->med = stats_percentile(s->v, s->n, 50);
	s->p90 = stats_percentile(s->v, s->n, 90);
}

/* @v as a percentage of @base (> 0). */
static double pct_of(int64_t v, int64_t base)
{
	return (double)v * 100.0 / (double)base;
}

static int fill_row(struct row *r, const char *name, const struct analysis *a, long ia,
		    const struct analysis *b, long ib, const struct compare_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	side_of(a, ia, &r->a);
	side_of(b, ib, &r->b);
	r->ch = CH_NODATA;
	/* in neither file: not a phase of these boots, nothing to judge */
	r->gate = r->a.n || r->b.n ? GATE_INCONCLUSIVE : GATE_NONE;
	r->why = r->a.n ? "no boot of B reached it" : "no boot of A reached it";
	if (!r->a.n || !r->b.n)
		return 0;
	stats_mann_whitney(r->a.v, r->a.n, r->b.v, r->b.n, &r->mw);
	if (shift_estimate(r->a.v, r->a.n, r->b.v, r->b.n, &r->s) < 0)
		return -1;
	if (!r->s.reached) {
		r->ch = CH_NOCI;
		r->why = "too few boots for a 95% interval";
		return 0;
	}
	r->ch = r->s.lo > 0 ? CH_SLOWER : r->s.hi < 0 ? CH_FASTER : CH_SAME;
	if (r->a.med <= 0) {
		r->why = "A's median is not above 0: no percentage";
		return 0;
	}
	/* HL > PCT % of A's median, exactly: hl_x2 1e5 > 2 pct_milli med */
	if (r->s.hl_x2 * 100000 > (__int128)2 * (__int128)o->pct_milli * r->a.med) {
		if (r->ch == CH_SLOWER) {
			r->gate = GATE_REGRESSED;
			r->why = NULL;
		} else {
			r->why = "a shift beyond the threshold, but its 95% interval holds 0";
		}
		return 0;
	}
	r->gate = GATE_OK;
	r->why = NULL;
	return 0;
}

static const char *change_name(enum change c)
{
	switch (c) {
	case CH_NOCI: return "no CI";
	case CH_SAME: return "~";
	case CH_SLOWER: return "slower";
	case CH_FASTER: return "faster";
	default: return "-";
	}
}

static const char *gate_name(enum gate g)
{
	switch (g) {
	case GATE_OK: return "ok";
	case GATE_REGRESSED: return "regressed";
	case GATE_INCONCLUSIVE: return "inconclusive";
	default: return "-";
	}
}

/* PCT as given: "5", "2.5", "0.125". */
static char *pct_str(uint64_t milli, char *buf, size_t sz)
{
	int n = snprintf(buf, sz, "%" PRIu64 ".%03" PRIu64, milli / 1000, milli % 1000);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* A duration with its sign: "+1.000ms", "-250ns", "0ns". */
static char *signed_units(int64_t v, char *buf)
{
	char t[UNITS_BUFSZ];

	units_format(v, t);
	snprintf(buf, UNITS_BUFSZ + 1, "%s%s", v > 0 ? "+" : "", t);
	return buf;
}

static int done(FILE *f)
{
	return ferror(f) ? -1 : 0;
}

static void tsv_row(FILE *f, const struct row *r, const struct compare_opts *o)
{
	char pv[32];

	fprintf(f, "%s\t%zu\t", r->name, r->a.n);
	if (r->a.n)
		fprintf(f, "%" PRId64 "\t%" PRId64 "\t", r->a.med, r->a.p90);
	else
		fprintf(f, "\\N\t\\N\t");
	fprintf(f, "%zu\t", r->b.n);
	if (r->b.n)
		fprintf(f, "%" PRId64 "\t%" PRId64 "\t", r->b.med, r->b.p90);
	else
		fprintf(f, "\\N\t\\N\t");
	if (r->a.n && r->b.n) {
		if (r->a.med != 0)
			fprintf(f, "%.2f\t", ((double)r->b.med - (double)r->a.med) * 100.0 /
				(double)r->a.med);
		else
			fprintf(f, "\\N\t");
		snprintf(pv, sizeof(pv), "%.4f", r->mw.p);
		fprintf(f, "%s\t%s\t", pv, r->mw.p < 0.05 ? "yes" : "no");
		fprintf(f, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%.4f\t", r->s.hl, r->s.lo,
			r->s.hi, r->s.coverage);
		if (r->a.med > 0)
			fprintf(f, "%.2f\t%.2f\t%.2f\t", pct_of(r->s.hl, r->a.med),
				pct_of(r->s.lo, r->a.med), pct_of(r->s.hi, r->a.med));
		else
			fprintf(f, "\\N\t\\N\t\\N\t");
	} else {
		fprintf(f, "\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t");
	}
	fprintf(f, "%s\t%s\n", r->ch == CH_NODATA ? "\\N" : change_name(r->ch),
		o->gate && r->gate != GATE_NONE ? gate_name(r->gate) : "\\N");
}

static void text_table_row(FILE *f, const struct row *r, int w)
{
	char s[4][UNITS_BUFSZ], diff[32] = "-", pv[32] = "-";
	const char *sig = "-";

	if (r->a.n && r->b.n) {
		if (r->a.med != 0)
			snprintf(diff, sizeof(diff), "%+.2f%%", ((double)r->b.med -
				 (double)r->a.med) * 100.0 / (double)r->a.med);
		snprintf(pv, sizeof(pv), "%.4f", r->mw.p);
		sig = r->mw.p < 0.05 ? "yes" : "no";
	}
	fprintf(f, "%-*s %7zu %9s %9s %7zu %9s %9s %9s %8s %s\n", w, r->name,
		r->a.n, r->a.n ? units_format(r->a.med, s[0]) : "-",
		r->a.n ? units_format(r->a.p90, s[1]) : "-",
		r->b.n, r->b.n ? units_format(r->b.med, s[2]) : "-",
		r->b.n ? units_format(r->b.p90, s[3]) : "-", diff, pv, sig);
}

static void text_shift_row(FILE *f, const struct row *r, int w, const struct compare_opts *o)
{
	char n[48], hl[UNITS_BUFSZ + 1], lo[UNITS_BUFSZ + 1], hi[UNITS_BUFSZ + 1];
	char ci[80] = "-", p[32] = "-", pci[64] = "-", cov[16] = "-";

	snprintf(n, sizeof(n), "%zu/%zu", r->a.n, r->b.n);
	if (r->a.n && r->b.n) {
		signed_units(r->s.hl, hl);
		snprintf(ci, sizeof(ci), "[%s, %s]", signed_units(r->s.lo, lo),
			 signed_units(r->s.hi, hi));
		snprintf(cov, sizeof(cov), "%s%.1f%%", r->s.exact && !r->s.ties ? "" : "~",
			 r->s.coverage * 100.0);
		if (r->a.med > 0) {
			snprintf(p, sizeof(p), "%+.1f%%", pct_of(r->s.hl, r->a.med));
			snprintf(pci, sizeof(pci), "[%+.1f%%, %+.1f%%]",
				 pct_of(r->s.lo, r->a.med), pct_of(r->s.hi, r->a.med));
		}
	} else {
		strcpy(hl, "-");
	}
	fprintf(f, "%-*s %9s %10s %-24s %8s %-20s %7s  %-6s", w, r->name, n, hl, ci, p, pci,
		cov, change_name(r->ch));
	if (o->gate)
		fprintf(f, "  %s", gate_name(r->gate));
	fprintf(f, "\n");
}

/* What a reader must know about a row's interval: few boots, ties, approximation. */
static void text_notes(FILE *f, const struct row *r, const struct analysis *a,
		       const struct analysis *b)
{
	size_t ma = a->ncontainers - r->a.n, mb = b->ncontainers - r->b.n;

	/* a boot that never got there is no time at all: the shift cannot see it */
	if ((r->a.n || r->b.n) && ma * b->ncontainers != mb * a->ncontainers)
		fprintf(f, "note: %s: never reached by %zu of %zu boots of A, %zu of %zu of B "
			"(the shift compares the boots that reached it)\n", r->name, ma,
			a->ncontainers, mb, b->ncontainers);
	if (!r->a.n || !r->b.n)
		return;
	if (!r->s.reached)
		fprintf(f, "note: %s: %zu and %zu boots: no 95%% interval exists (the widest, "
			"[D(1), D(%zu)], covers %.1f%%); at least 4 a side are needed, 10 or "
			"more for a useful interval\n", r->name, r->a.n, r->b.n, r->a.n * r->b.n,
			r->s.coverage * 100.0);
	else if (r->a.n < FEW_BOOTS || r->b.n < FEW_BOOTS)
		fprintf(f, "note: %s: %zu and %zu boots: the interval is D(%" PRIu64 ") to "
			"D(%zu) of the %zu differences (%.1f%% coverage); 10 or more a side "
			"give a useful interval\n", r->name, r->a.n, r->b.n, r->s.k,
			r->a.n * r->b.n - r->s.k + 1, r->a.n * r->b.n, r->s.coverage * 100.0);
	if (r->s.ties)
		fprintf(f, "note: %s: some boot times are equal in A and B: the exact table "
			"assumes none, the coverage is approximate\n", r->name);
	if (!r->s.exact)
		fprintf(f, "note: %s: %zu and %zu boots: K from the normal approximation "
			"(exact below %d a side)\n", r->name, r->a.n, r->b.n, SHIFT_EXACT_MAX);
}

/* The gate's last line, on @f (text) or @err (TSV): regressed, inconclusive or ok. */
static void gate_summary(FILE *f, const struct row *r, size_t nr, const struct compare_opts *o,
			 bool regressed)
{
	const char *prefix = o->format == FMT_TSV ? "analyze: " : "";
	char p[32];
	size_t i, k;

	fprintf(f, "%sfail-if-slower %s%%: ", prefix, pct_str(o->pct_milli, p, sizeof(p)));
	if (regressed) {
		fprintf(f, "REGRESSED:");
		for (i = 0, k = 0; i < nr; i++)
			if (r[i].gate == GATE_REGRESSED)
				fprintf(f, "%s %s (%+.1f%%)", k++ ? "," : "", r[i].name,
					pct_of(r[i].s.hl, r[i].a.med));
		fprintf(f, "\n");
		return;
	}
	for (i = 0, k = 0; i < nr; i++)
		if (r[i].gate == GATE_INCONCLUSIVE)
			fprintf(f, "%s%s (%s)", k++ ? "; " : "no phase regressed; INCONCLUSIVE for ",
				r[i].name, r[i].why);
	fprintf(f, "%s\n", k ? "" : "ok: no phase regressed");
}

int compare_print(FILE *f, FILE *err, const struct analysis *a, const struct analysis *b,
		  const char *na, const char *nb, const struct compare_opts *o)
{
	size_t na_ph = analysis_nphases(a), nb_ph = analysis_nphases(b), nr = 0, i;
	struct row *r = calloc(na_ph + nb_ph + 1, sizeof(*r));
	int w = report_name_width(a, 6), rc = 0;
	bool regressed = false;

	if (!r)
		return -1;
	if (report_name_width(b, 6) > w)
		w = report_name_width(b, 6);
	for (i = 0; i < na_ph && rc == 0; i++) {
		const char *name = analysis_phase_name(a, i);

		rc = fill_row(&r[nr++], name, a, (long)i, b,
			      strtab_find(b->phase_names, name, strlen(name)), o);
	}
	for (i = 0; i < nb_ph && rc == 0; i++) {
		const char *name = analysis_phase_name(b, i);

		if (strtab_find(a->phase_names, name, strlen(name)) < 0)
			rc = fill_row(&r[nr++], name, a, -1, b, (long)i, o);
	}
	if (rc < 0) {
		free(r);
		return -1;
	}
	for (i = 0; i < nr && o->gate; i++)
		regressed |= r[i].gate == GATE_REGRESSED;

	if (o->format == FMT_TSV) {
		fprintf(f, "phase\ta_count\ta_median\ta_p90\tb_count\tb_median\tb_p90"
			"\tdiff_pct\tp_value\tsignificant\tshift\tci_lo\tci_hi\tci_coverage"
			"\tshift_pct\tci_lo_pct\tci_hi_pct\tchange\tgate\n");
		for (i = 0; i < nr; i++)
			tsv_row(f, &r[i], o);
		if (o->gate)
			gate_summary(err, r, nr, o, regressed);
		goto out;
	}
	fprintf(f, "A: %s (%zu containers)\nB: %s (%zu containers)\n\n",
		na, a->ncontainers, nb, b->ncontainers);
	fprintf(f, "%-*s %7s %9s %9s %7s %9s %9s %9s %8s %s\n", w, "phase",
		"A.count", "A.median", "A.p90", "B.count", "B.median", "B.p90",
		"diff", "p", "significant");
	for (i = 0; i < nr; i++)
		text_table_row(f, &r[i], w);
	fprintf(f, "\n%-*s %9s %10s %-24s %8s %-20s %7s  %-6s%s\n", w, "phase", "boots A/B",
		"shift", "95% CI", "shift%", "95% CI of shift%", "cover", "change",
		o->gate ? "  gate" : "");
	for (i = 0; i < nr; i++)
		text_shift_row(f, &r[i], w, o);
	fprintf(f, "\n");
	for (i = 0; i < nr; i++)
		text_notes(f, &r[i], a, b);
	fprintf(f, "diff: B's median against A's; significant: two-sided Mann-Whitney U "
		"(normal approximation, tie-corrected), p < 0.05\n"
		"shift: B - A, + is slower: the median of the differences of all pairs of "
		"boots (Hodges-Lehmann);\n"
		"  95%% CI: exact, distribution-free (the Mann-Whitney test inverted); %%: of "
		"A's median; cover: the\n"
		"  interval's achieved coverage; change ~: the interval holds 0, no "
		"significant change\n");
	if (o->gate) {
		char p[32];

		fprintf(f, "gate: a phase regressed when its 95%% CI lies above 0 and its "
			"shift is more than %s%% of A's median\n",
			pct_str(o->pct_milli, p, sizeof(p)));
		gate_summary(f, r, nr, o, regressed);
	}
out:
	free(r);
	if (done(f) < 0)
		return -1;
	return regressed ? 1 : 0;
}
