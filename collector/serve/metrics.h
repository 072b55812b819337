/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The metrics registry of --metrics: counters, gauges and histograms with
 * labels, written out in the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). Pure: no
 * I/O, no clock; collector/serve/exporter.c fills it, collector/serve/http.c serves
 * what metrics_expose() writes.
 *
 * Families are written in the order they were added, series in the order
 * they were made: the text is the same for the same history (the unit
 * test compares it byte for byte). Label values are escaped as the format
 * asks (\\, \", \n); a value that comes from a traced process is made
 * ASCII by the caller first (metrics_label_from_raw()), since one invalid
 * UTF-8 byte would make Prometheus refuse the whole scrape.
 *
 * Histograms count durations in integer nanoseconds against bounds in
 * nanoseconds, and print both as exact decimal seconds: a value is in a
 * bucket by the same comparison the printed `le` says (no float rounding
 * at a bound).
 */
#ifndef COLLECTOR_METRICS_H
#define COLLECTOR_METRICS_H

#include <stddef.h>
#include <stdint.h>

#define METRICS_MAX_LABELS 5
/* A label value at most (longer ones are cut): a basename, a runtime, a phase */
#define METRICS_LABEL_MAX 128

/* A growable text buffer; err is set (and stays) when it would pass max. */
struct mbuf {
	char *p;
	size_t len, cap, max;
	int err;
};

/* mbuf_init - an empty buffer that may grow to @max bytes. */
void mbuf_init(struct mbuf *b, size_t max);
/* mbuf_release - free its memory; it is empty after. */
void mbuf_release(struct mbuf *b);
/* mbuf_put - append @n bytes; -1 (and b->err) past max or out of memory. */
int mbuf_put(struct mbuf *b, const char *s, size_t n);
/* mbuf_printf - append formatted text; -1 as mbuf_put(). */
int mbuf_printf(struct mbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

enum metric_type { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM };

struct metric_family;
struct metric_series;
struct metrics;

/* metrics__new - an empty registry; NULL on ENOMEM. */
struct metrics *metrics__new(void);
/* metrics__free - every family and series; accepts NULL. */
void metrics__free(struct metrics *m);

/*
 * metrics_family - add family @name (copied) with @help, @type and the
 * @nlabels label names in @labels (copied, at most METRICS_MAX_LABELS).
 * A histogram takes @nbounds upper bounds in ns, ascending (@bounds is
 * not copied: a static table); +Inf is implied. NULL on ENOMEM or misuse.
 */
struct metric_family *metrics_family(struct metrics *m, const char *name, const char *help,
				     enum metric_type type, size_t nlabels,
				     const char *const *labels, const uint64_t *bounds,
				     size_t nbounds);

/*
 * metrics_series - the series of @f with label values @values (one per
 * label name; copied, cut at METRICS_LABEL_MAX - 1 bytes), made (zero)
 * when new. NULL on ENOMEM.
 */
struct metric_series *metrics_series(struct metric_family *f, const char *const *values);

/* metrics_count - how many series @f has. */
size_t metrics_count(const struct metric_family *f);

/* metric_set - a counter's or gauge's value. */
void metric_set(struct metric_series *s, double v);
/* metric_add - add @v to a counter or gauge. */
void metric_add(struct metric_series *s, double v);
/* metric_value - a counter's or gauge's value. */
double metric_value(const struct metric_series *s);
/*
 * metric_observe - one value of a histogram, in ns: the first bucket whose
 * bound is >= @ns counts it (and every one above, cumulatively, in the
 * text); a negative value counts in the first.
 */
void metric_observe(struct metric_series *s, int64_t ns);

/*
 * metrics_expose - every family in the text format into @b: # HELP,
 * # TYPE, then its samples. 0, or -1 when @b is full (b->err).
 */
int metrics_expose(const struct metrics *m, struct mbuf *b);

/*
 * metrics_label_from_raw - a label value from @n raw bytes a traced
 * process gave (a file name): escaped as the TSV escapes text (control
 * bytes, backslashes and invalid UTF-8 as \t, \\, \xHH: common/tsv.h),
 * cut to fit @out (@outn bytes, NUL-terminated) at a whole escape.
 */
void metrics_label_from_raw(const char *s, size_t n, char *out, size_t outn);

/*
 * The boot buckets (docs/metrics.md): ten a decade from 1 ms, each bound
 * 10^(k/10) s rounded to three significant digits (1, 1.26, 1.58, 2, 2.51,
 * 3.16, 3.98, 5.01, 6.31, 7.94 ms, ...) up to 63.1 s, with the kubelet's
 * SLI edges (kubelet_pod_start_sli_duration_seconds: 0.5 1 2 3 4 5 6 8 10
 * 20 30 45 60 s) among them: 54 bounds, each at most 1.27 times the one
 * below.
 */
#define METRICS_BOOT_BOUNDS 54
extern const uint64_t metrics_boot_bounds_ns[METRICS_BOOT_BOUNDS];

#endif /* COLLECTOR_METRICS_H */
