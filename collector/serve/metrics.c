// SPDX-License-Identifier: BSD-2-Clause
/* The metrics registry and its text exposition: see metrics.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/serve/metrics.h"
#include "common/tsv.h"

/* 10^(k/10), k = 0..9, to three significant digits, in µs: the decade from 1 ms */
#define DECADE(scale)                                                          \
	1000 * (scale), 1260 * (scale), 1580 * (scale), 2000 * (scale),        \
	2510 * (scale), 3160 * (scale), 3980 * (scale), 5010 * (scale),        \
	6310 * (scale), 7940 * (scale)

/*
 * The decades from 1 ms to 100 ms as the rule gives them; from 100 ms on,
 * the rule's bounds with the kubelet's SLI edges (0.5 1 2 3 4 5 6 8 10 20
 * 30 45 60 s, kubelet_pod_start_sli_duration_seconds) put in: a bound of
 * ours within 1% of an edge is that edge (0.501 → 0.5, 3.98 → 4, 5.01 →
 * 5, 7.94 → 8), the others are added (3, 6, 30, 45, 60 s). A histogram of
 * ours then sums to the kubelet's buckets exactly.
 */
const uint64_t metrics_boot_bounds_ns[METRICS_BOOT_BOUNDS] = {
	DECADE(1000ULL), DECADE(10000ULL),
	100000000ULL, 126000000ULL, 158000000ULL, 200000000ULL, 251000000ULL,
	316000000ULL, 398000000ULL, 500000000ULL, 631000000ULL, 794000000ULL,
	1000000000ULL, 1260000000ULL, 1580000000ULL, 2000000000ULL, 2510000000ULL,
	3000000000ULL, 3160000000ULL, 4000000000ULL, 5000000000ULL, 6000000000ULL,
	6310000000ULL, 8000000000ULL,
	/* 10 s .. 63.1 s, the first above 60 s */
	10000000000ULL, 12600000000ULL, 15800000000ULL, 20000000000ULL, 25100000000ULL,
	30000000000ULL, 31600000000ULL, 39800000000ULL, 45000000000ULL, 50100000000ULL,
	60000000000ULL, 63100000000ULL,
};

/* --- the text buffer ------------------------------------------------------ */

void mbuf_init(struct mbuf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

void mbuf_release(struct mbuf *b)
{
	free(b->p);
	mbuf_init(b, b->max);
}

static int mbuf_reserve(struct mbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->err)
		return -1;
	if (b->len + n + 1 <= b->cap)
		return 0;
	if (b->len + n + 1 > b->max) {
		b->err = ENOBUFS;
		return -1;
	}
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n + 1)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	p = realloc(b->p, cap);
	if (!p) {
		b->err = ENOMEM;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

int mbuf_put(struct mbuf *b, const char *s, size_t n)
{
	if (mbuf_reserve(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int mbuf_printf(struct mbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || mbuf_reserve(b, (size_t)n) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/* --- the registry --------------------------------------------------------- */

struct metric_series {
	char *values[METRICS_MAX_LABELS];
	double v;			/* counter, gauge */
	uint64_t *buckets;		/* histogram: per bucket (not cumulative), +Inf last */
	const uint64_t *bounds;		/* its family's */
	size_t nbounds;
	uint64_t count;
	int64_t sum_ns;
};

struct metric_family {
	char *name, *help;
	enum metric_type type;
	size_t nlabels;
	char *labels[METRICS_MAX_LABELS];
	const uint64_t *bounds;
	size_t nbounds;
	struct metric_series **s;
	size_t n, cap;
};

struct metrics {
	struct metric_family **f;
	size_t n, cap;
};

struct metrics *metrics__new(void)
{
	return calloc(1, sizeof(struct metrics));
}

static void series_free(struct metric_series *s, size_t nlabels)
{
	size_t i;

	for (i = 0; i < nlabels; i++)
		free(s->values[i]);
	free(s->buckets);
	free(s);
}

static void family_free(struct metric_family *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		series_free(f->s[i], f->nlabels);
	for (i = 0; i < f->nlabels; i++)
		free(f->labels[i]);
	free(f->s);
	free(f->name);
	free(f->help);
	free(f);
}

void metrics__free(struct metrics *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		family_free(m->f[i]);
	free(m->f);
	free(m);
}

/* Make room for one more pointer in *@v (@n used of *@cap). 0 or -1. */
static int grow_ptrs(void ***v, size_t n, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 8;
	void **p;

	if (n < *cap)
		return 0;
	p = realloc(*v, c * sizeof(*p));
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

struct metric_family *metrics_family(struct metrics *m, const char *name, const char *help,
				     enum metric_type type, size_t nlabels,
				     const char *const *labels, const uint64_t *bounds,
				     size_t nbounds)
{
	struct metric_family *f;
	size_t i;

	if (nlabels > METRICS_MAX_LABELS || (type == METRIC_HISTOGRAM && !bounds) ||
	    grow_ptrs((void ***)&m->f, m->n, &m->cap) < 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	f->help = strdup(help);
	f->type = type;
	f->bounds = bounds;
	f->nbounds = type == METRIC_HISTOGRAM ? nbounds : 0;
	for (i = 0; i < nlabels; i++) {
		f->labels[i] = strdup(labels[i]);
		if (!f->labels[i])
			break;
		f->nlabels++;
	}
	if (!f->name || !f->help || f->nlabels != nlabels) {
		family_free(f);
		return NULL;
	}
	m->f[m->n++] = f;
	return f;
}

struct metric_series *metrics_series(struct metric_family *f, const char *const *values)
{
	struct metric_series *s;
	size_t i, k;

	for (i = 0; i < f->n; i++) {
		for (k = 0; k < f->nlabels; k++)
			if (strncmp(f->s[i]->values[k], values[k], METRICS_LABEL_MAX - 1))
				break;
		if (k == f->nlabels)
			return f->s[i];
	}
	if (grow_ptrs((void ***)&f->s, f->n, &f->cap) < 0 || !(s = calloc(1, sizeof(*s))))
		return NULL;
	for (k = 0; k < f->nlabels; k++)
		if (!(s->values[k] = strndup(values[k], METRICS_LABEL_MAX - 1)))
			goto fail;
	if (f->type == METRIC_HISTOGRAM && !(s->buckets = calloc(f->nbounds + 1, sizeof(*s->buckets))))
		goto fail;
	s->bounds = f->bounds;
	s->nbounds = f->nbounds;
	f->s[f->n++] = s;
	return s;
fail:
	series_free(s, f->nlabels);
	return NULL;
}

size_t metrics_count(const struct metric_family *f)
{
	return f->n;
}

void metric_set(struct metric_series *s, double v)
{
	s->v = v;
}

void metric_add(struct metric_series *s, double v)
{
	s->v += v;
}

double metric_value(const struct metric_series *s)
{
	return s->v;
}

void metric_observe(struct metric_series *s, int64_t ns)
{
	size_t lo = 0, hi = s->nbounds;

	if (!s->buckets)
		return;
	/* the first bound >= ns (binary search; nbounds when above them all: +Inf) */
	while (ns > 0 && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->bounds[mid] >= (uint64_t)ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	s->buckets[ns > 0 ? lo : 0]++;
	s->count++;
	s->sum_ns += ns;
}

/* --- the text format ------------------------------------------------------ */

/* @ns as decimal seconds, exactly: "0.00126", "63.1", "0", "-0.5". */
static int put_seconds(struct mbuf *b, int64_t ns)
{
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	char frac[10];
	int i;

	snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(u % 1000000000ULL));
	for (i = 8; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	return mbuf_printf(b, "%s%llu%s%s", ns < 0 ? "-" : "",
			   (unsigned long long)(u / 1000000000ULL), frac[0] ? "." : "", frac);
}

/* A sample value: integers exactly, others in the fewest digits that read back the same. */
static int put_value(struct mbuf *b, double v)
{
	char s[32];

	if (isnan(v))
		return mbuf_put(b, "NaN", 3);
	if (isinf(v))
		return mbuf_printf(b, "%cInf", v < 0 ? '-' : '+');
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return mbuf_printf(b, "%.0f", v);
	snprintf(s, sizeof(s), "%.15g", v);
	if (strtod(s, NULL) != v)
		snprintf(s, sizeof(s), "%.17g", v);
	return mbuf_put(b, s, strlen(s));
}

/* @s with \ " and LF escaped (label values: \" too; HELP text: @quote 0). */
static int put_escaped(struct mbuf *b, const char *s, int quote)
{
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '\\')
			mbuf_put(b, "\\\\", 2);
		else if (*p == '\n')
			mbuf_put(b, "\\n", 2);
		else if (quote && *p == '"')
			mbuf_put(b, "\\\"", 2);
		else
			mbuf_put(b, p, 1);
	}
	return b->err ? -1 : 0;
}

/*
 * name{l1="v1",...,extra} : the sample's name with @suffix, its labels,
 * and @le (a histogram bucket's bound, printed by the caller) last.
 */
static void put_name(struct mbuf *b, const struct metric_family *f, const char *suffix,
		     const struct metric_series *s, int le)
{
	size_t k;

	mbuf_printf(b, "%s%s", f->name, suffix);
	if (!f->nlabels && !le)
		return;
	mbuf_put(b, "{", 1);
	for (k = 0; k < f->nlabels; k++) {
		mbuf_printf(b, "%s%s=\"", k ? "," : "", f->labels[k]);
		put_escaped(b, s->values[k], 1);
		mbuf_put(b, "\"", 1);
	}
	if (le)
		mbuf_printf(b, "%sle=\"", f->nlabels ? "," : "");
	else
		mbuf_put(b, "}", 1);
}

static void expose_histogram(struct mbuf *b, const struct metric_family *f,
			     const struct metric_series *s)
{
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i <= f->nbounds; i++) {
		cum += s->buckets[i];
		put_name(b, f, "_bucket", s, 1);
		if (i < f->nbounds)
			put_seconds(b, (int64_t)f->bounds[i]);
		else
			mbuf_put(b, "+Inf", 4);
		mbuf_printf(b, "\"} %llu\n", (unsigned long long)cum);
	}
	put_name(b, f, "_sum", s, 0);
	mbuf_put(b, " ", 1);
	put_seconds(b, s->sum_ns);
	mbuf_put(b, "\n", 1);
	put_name(b, f, "_count", s, 0);
	mbuf_printf(b, " %llu\n", (unsigned long long)s->count);
}

int metrics_expose(const struct metrics *m, struct mbuf *b)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		const struct metric_family *f = m->f[i];

		mbuf_printf(b, "# HELP %s ", f->name);
		put_escaped(b, f->help, 0);
		mbuf_printf(b, "\n# TYPE %s %s\n", f->name, types[f->type]);
		for (j = 0; j < f->n; j++) {
			if (f->type == METRIC_HISTOGRAM) {
				expose_histogram(b, f, f->s[j]);
				continue;
			}
			put_name(b, f, "", f->s[j], 0);
			mbuf_put(b, " ", 1);
			put_value(b, f->s[j]->v);
			mbuf_put(b, "\n", 1);
		}
	}
	return b->err ? -1 : 0;
}

/* The length of the escape or UTF-8 sequence tsv_escape() wrote at @p. */
static size_t token_len(const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (c == '\\')
		return p[1] == 'x' ? 4 : 2;
	if (c < 0x80)
		return 1;
	if (c >= 0xf0)
		return 4;
	return c >= 0xe0 ? 3 : 2;
}

void metrics_label_from_raw(const char *s, size_t n, char *out, size_t outn)
{
	char tmp[TSV_ESCAPED_MAX(METRICS_LABEL_MAX)];
	size_t len, at = 0, t;

	if (!outn)
		return;
	/* no more input than can show: every byte is one output byte at least */
	if (n > METRICS_LABEL_MAX)
		n = METRICS_LABEL_MAX;
	len = tsv_escape(s, n, tmp);
	while (at < len && at + (t = token_len(tmp + at)) < outn)
		at += t;
	memcpy(out, tmp, at);
	out[at] = '\0';
}
