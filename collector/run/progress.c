// SPDX-License-Identifier: BSD-2-Clause
/* The --runs progress line: see progress.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/run/progress.h"

#define NONE UINT64_MAX
/* " · ": U+00B7 in UTF-8, one terminal column */
#define SEP " \xc2\xb7 "

struct progress {
	int runs, done, in_run, p50;
	size_t nphases;
	char **names;			/* exec, listen, the mark labels */
	unsigned long long run_begin, total_ns;
	/* the run in progress: its earliest start, init exec, other exec */
	unsigned long long start, t_init, t_exec;
	unsigned long long *at;		/* per phase: its first time (exec: unused) */
	long long *last;		/* per phase: the last finished boot's */
	bool *have_last;
	long long *values;		/* per phase: @runs slots, the first count[] sorted */
	size_t *count;
};

/* progress__new()'s p50 when none is named: listen, else exec */
#define P50_AUTO (-1)

struct progress *progress__new(int runs, const char *const *labels, size_t nlabels,
			       const char *p50)
{
	struct progress *p;
	size_t i, n = PROGRESS_MARK;

	if (runs < 1) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->runs = runs;
	p->names = calloc(PROGRESS_MARK + nlabels, sizeof(*p->names));
	if (!p->names)
		goto fail;
	p->names[PROGRESS_EXEC] = strdup("exec");
	p->names[PROGRESS_LISTEN] = strdup("listen");
	if (!p->names[PROGRESS_EXEC] || !p->names[PROGRESS_LISTEN])
		goto fail;
	p->nphases = n;
	for (i = 0; i < nlabels; i++) {
		if (progress_phase_of(p, labels[i]) >= 0)
			continue;
		p->names[n] = strdup(labels[i]);
		if (!p->names[n])
			goto fail;
		p->nphases = ++n;
	}
	p->p50 = p50 ? progress_phase_of(p, p50) : P50_AUTO;
	p->at = calloc(n, sizeof(*p->at));
	p->last = calloc(n, sizeof(*p->last));
	p->have_last = calloc(n, sizeof(*p->have_last));
	p->count = calloc(n, sizeof(*p->count));
	/* at most 100,000 runs (options.c): 800 kB a phase, touched as they come */
	p->values = calloc(n * (size_t)runs, sizeof(*p->values));
	if (!p->at || !p->last || !p->have_last || !p->count || !p->values)
		goto fail;
	return p;
fail:
	progress__free(p);
	errno = ENOMEM;
	return NULL;
}

void progress__free(struct progress *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; p->names && i < p->nphases; i++)
		free(p->names[i]);
	free(p->names);
	free(p->at);
	free(p->last);
	free(p->have_last);
	free(p->count);
	free(p->values);
	free(p);
}

int progress_phase_of(const struct progress *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nphases; i++)
		if (strcmp(p->names[i], name) == 0)
			return (int)i;
	return -1;
}

void progress_run_begin(struct progress *p, unsigned long long now)
{
	size_t i;

	p->in_run = 1;
	p->run_begin = now;
	p->start = p->t_init = p->t_exec = NONE;
	for (i = 0; i < p->nphases; i++)
		p->at[i] = NONE;
}

static void earliest(unsigned long long *t, unsigned long long ts)
{
	if (ts < *t)
		*t = ts;
}

void progress_start(struct progress *p, unsigned long long ts)
{
	earliest(&p->start, ts);
}

void progress_exec(struct progress *p, unsigned long long ts, bool init, bool runtime)
{
	if (init)
		earliest(&p->t_init, ts);
	if (!runtime)
		earliest(&p->t_exec, ts);
}

void progress_reached(struct progress *p, int phase, unsigned long long ts)
{
	if (phase > PROGRESS_EXEC && (size_t)phase < p->nphases)
		earliest(&p->at[phase], ts);
}

/* @v into phase @i's sorted values */
static void insert(struct progress *p, size_t i, long long v)
{
	long long *a = p->values + i * (size_t)p->runs;
	size_t lo = 0, hi = p->count[i];

	if (p->count[i] >= (size_t)p->runs)
		return;	/* more runs ended than begun: not reached */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(a + lo + 1, a + lo, (p->count[i] - lo) * sizeof(*a));
	a[lo] = v;
	p->count[i]++;
}

void progress_run_end(struct progress *p, unsigned long long now)
{
	size_t i;

	if (!p->in_run)
		return;
	p->in_run = 0;
	p->done++;
	p->total_ns += now - p->run_begin;
	/* the analyzer's exec: the first init exec, else the entrypoint's */
	p->at[PROGRESS_EXEC] = p->t_init != NONE ? p->t_init : p->t_exec;
	for (i = 0; i < p->nphases; i++) {
		p->have_last[i] = p->start != NONE && p->at[i] != NONE;
		if (!p->have_last[i])
			continue;
		p->last[i] = (long long)(p->at[i] - p->start);
		insert(p, i, p->last[i]);
	}
}

int progress_done(const struct progress *p)
{
	return p->done;
}

bool progress_last(const struct progress *p, int phase, long long *ns)
{
	if (phase < 0 || (size_t)phase >= p->nphases || !p->have_last[phase])
		return false;
	*ns = p->last[phase];
	return true;
}

bool progress_p50(const struct progress *p, int phase, long long *ns)
{
	size_t n;

	if (phase < 0 || (size_t)phase >= p->nphases || !(n = p->count[phase]))
		return false;
	/* nearest rank: ceil(50 n / 100), as analyze/stats.h's stats_rank() */
	*ns = p->values[(size_t)phase * (size_t)p->runs + (n + 1) / 2 - 1];
	return true;
}

bool progress_eta_ns(const struct progress *p, unsigned long long now, unsigned long long *ns)
{
	unsigned long long mean, left, spent;

	if (!p->done)
		return false;
	mean = p->total_ns / (unsigned long long)p->done;
	left = mean * (unsigned long long)(p->runs - p->done);
	spent = p->in_run && now > p->run_begin ? now - p->run_begin : 0;
	*ns = left > spent ? left - spent : 0;
	return true;
}

/* printf to @buf at *@len, never past @n - 1 bytes */
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*len + 1 >= n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *len, n - *len, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len += (size_t)k < n - *len ? (size_t)k : n - *len - 1;
}

/* a phase: 0.43 ms, 11.8 ms, 12.3 s */
static void put_ms(char *buf, size_t n, size_t *len, long long ns)
{
	long long a = ns < 0 ? -ns : ns;

	if (a < 1000000)
		put(buf, n, len, "%.2f ms", ns / 1e6);
	else if (a < 10000000000LL)
		put(buf, n, len, "%.1f ms", ns / 1e6);
	else
		put(buf, n, len, "%.1f s", ns / 1e9);
}

/* the ETA in whole seconds, rounded up: 4 s, 2 min 05 s, 1 h 02 min */
static void put_eta(char *buf, size_t n, size_t *len, unsigned long long ns)
{
	unsigned long long s = ns / 1000000000ULL + (ns % 1000000000ULL != 0);

	if (s < 60)
		put(buf, n, len, "ETA %llu s", s);
	else if (s < 3600)
		put(buf, n, len, "ETA %llu min %02llu s", s / 60, s % 60);
	else
		put(buf, n, len, "ETA %llu h %02llu min", s / 3600, s % 3600 / 60);
}

/* @buf cut to @cols columns: a UTF-8 continuation byte takes none */
static size_t cut_to_columns(char *buf, size_t len, unsigned cols)
{
	size_t i, c = 0;

	for (i = 0; i < len; i++) {
		if (((unsigned char)buf[i] & 0xc0) == 0x80)
			continue;
		if (++c > cols) {
			buf[i] = '\0';
			return i;
		}
	}
	return len;
}

size_t progress_format(const struct progress *p, unsigned long long now, char *buf, size_t n,
		       unsigned cols)
{
	const char *sep = SEP;
	unsigned long long eta;
	size_t len = 0, i;
	long long v;
	int phase;

	if (!n)
		return 0;
	buf[0] = '\0';
	put(buf, n, &len, "run %d/%d", p->in_run ? p->done + 1 : p->done, p->runs);
	for (i = 0; i < p->nphases; i++) {
		if (!progress_last(p, (int)i, &v))
			continue;
		put(buf, n, &len, "%s%s ", sep, p->names[i]);
		put_ms(buf, n, &len, v);
		sep = " ";
	}
	phase = p->p50;
	if (phase == P50_AUTO)
		phase = p->count[PROGRESS_LISTEN] ? PROGRESS_LISTEN : PROGRESS_EXEC;
	if (progress_p50(p, phase, &v)) {
		put(buf, n, &len, SEP "p50 %s ", p->names[phase]);
		put_ms(buf, n, &len, v);
	}
	if (!p->in_run && p->done >= p->runs) {
		/* the last: nothing left to wait for */
	} else if (progress_eta_ns(p, now, &eta)) {
		put(buf, n, &len, SEP);
		put_eta(buf, n, &len, eta);
	} else if (p->in_run) {
		/* nothing finished yet: the first run's time so far */
		put(buf, n, &len, SEP "%.1f s",
		    now > p->run_begin ? (double)(now - p->run_begin) / 1e9 : 0.0);
	}
	if (cols)
		len = cut_to_columns(buf, len, cols - 1);
	return len;
}
