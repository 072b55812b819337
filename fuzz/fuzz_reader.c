// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_reader: the analyzer's TSV reader (analyze/read/reader.h), fed through its
 * public API from a file descriptor, then the analysis and every report on
 * what parsed.
 *
 * Each input is read four times, and in parts:
 *   1. strict, whole reads (a memfd, like a regular file);
 *   2. strict, short reads of varying size (like a pipe or a FIFO: read(2)
 *      and pread(2) are wrapped with -Wl,--wrap, see chop() below);
 *   3. lenient (TSV_LENIENT), short reads;
 *   4. strict with TSV_NO_IDS;
 *   then in byte ranges cut at line starts (tsv_reader__new_range(), as
 *   analyze --threads reads a regular file), see check_ranges().
 * Properties checked (a violation aborts, which libFuzzer reports):
 *   - 1 and 2 agree exactly: same rows, same outcome, same message, same
 *     trailer and metadata (the result must not depend on how read(2) cuts
 *     the input); 4 too, but for the id columns, which are 0;
 *   - the ranges give 1's rows, or 1's error message after rebasing;
 *   - when 1 succeeds, 3 yields the same rows and skips none;
 *   - every row has 12 fields without TAB or LF; each integer column is \N
 *     (its null bit set) or the value tsv_parse_int() gives for the field;
 *     each text field unescapes;
 *   - a failure has a message "fuzz:LINE: ..." (or "fuzz: ..." for I/O);
 *   - tsv_parse_int() agrees with a reference on short inputs;
 *   - tsv_parse_row() on each line in a buffer with exactly the 15 bytes of
 *     padding its contract asks for (ASan catches any read past them).
 * The analysis of 1 (and of 3) then goes through analysis_add_row() ...
 * analysis_finish() and report_print() (text, tsv, json, histograms, --by;
 * for 3 with the timeline: --critical-path, whose paths must tile each
 * boot exactly, to each phase and to end, --failures (text, tsv, json),
 * --until end and listen, and --format trace-event)
 * and compare_print(), into /dev/null, and the PNG histograms' bins of each
 * phase are built (each value counted once, the count capped). Plots are
 * not drawn (gnuplot is too slow for a fuzzer); plot_sanitize() is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/boot/analysis.h"
#include "analyze/boot/critpath.h"
#include "analyze/boot/failures.h"
#include "analyze/boot/window.h"
#include "analyze/out/compare.h"
#include "analyze/out/failures_report.h"
#include "analyze/out/plot.h"
#include "analyze/out/report.h"
#include "analyze/out/trace_event.h"
#include "analyze/read/reader.h"
#include "analyze/stats/bins.h"

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz_reader: %s: ", #cond);        \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			abort();                                            \
		}                                                           \
	} while (0)

/* --- short reads ---------------------------------------------------------- */

ssize_t __real_read(int fd, void *buf, size_t n);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);

static int short_fd = -1;	/* the fd whose reads are cut short, or -1 */
static uint32_t short_state;

/* How much of @n a read of short_fd returns: 1..~4 KiB, varying per call. */
static size_t chop(int fd, size_t n)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 15, 16, 17, 64, 100, 511, 4096, 4099 };
	size_t k;

	if (fd != short_fd || n == 0)
		return n;
	short_state = short_state * 1103515245u + 12345u;
	k = sizes[(short_state >> 16) % (sizeof(sizes) / sizeof(sizes[0]))];
	return n > k ? k : n;
}

/* read(2) and pread(2) (range readers), cut short on short_fd */
ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	return __real_read(fd, buf, chop(fd, n));
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	return __real_pread(fd, buf, chop(fd, n), off);
}

/* --- large blocks -------------------------------------------------------- */

/*
 * Each reader takes a 4 MiB buffer and each analysis a 1 MiB scratch line;
 * an input makes a dozen of them. Under ASan every such malloc and free is
 * an mmap/munmap plus faulting in 1/8 of it in shadow memory, which made
 * the fuzzer spend most of its time in page faults (~200 inputs/s). So
 * blocks of 256 KiB or more are kept for the next input: malloc, calloc,
 * realloc and free are wrapped (-Wl,--wrap=...) and a kept block is
 * poisoned while free, so a use after free is still reported (as
 * use-after-poison). A block still in use at the end of an input is a leak:
 * checked after each input, as LeakSanitizer would.
 */
#include <sanitizer/asan_interface.h>

#define BIG 262144
#define NKEEP 32

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t k);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t k);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static struct { void *p; size_t n; bool used; } kept[NKEEP];

static int kept_index(const void *p)
{
	int i;

	for (i = 0; p && i < NKEEP; i++)
		if (kept[i].p == p)
			return i;
	return -1;
}

void *__wrap_malloc(size_t n)
{
	int i, slot = -1;

	if (n < BIG)
		return __real_malloc(n);
	for (i = 0; i < NKEEP; i++) {
		if (kept[i].p && !kept[i].used && kept[i].n == n) {
			kept[i].used = true;
			ASAN_UNPOISON_MEMORY_REGION(kept[i].p, n);
			return kept[i].p;
		}
		if (!kept[i].p && slot < 0)
			slot = i;
	}
	if (slot < 0)
		return __real_malloc(n);
	kept[slot].p = __real_malloc(n);
	kept[slot].n = n;
	kept[slot].used = kept[slot].p != NULL;
	return kept[slot].p;
}

void *__wrap_calloc(size_t n, size_t k)
{
	void *p;

	if (k && n > (size_t)-1 / k)
		return NULL;
	if (n * k < BIG)
		return __real_calloc(n, k);
	p = __wrap_malloc(n * k);
	if (p)
		memset(p, 0, n * k);
	return p;
}

void __wrap_free(void *p)
{
	int i = kept_index(p);

	if (i < 0) {
		__real_free(p);
		return;
	}
	CHECK(kept[i].used, "double free of a %zu-byte block", kept[i].n);
	kept[i].used = false;
	ASAN_POISON_MEMORY_REGION(p, kept[i].n);
}

void *__wrap_realloc(void *p, size_t n)
{
	int i = kept_index(p);
	void *q;

	if (i < 0 && n < BIG)
		return __real_realloc(p, n);
	if (i < 0 && !p)
		return __wrap_malloc(n);
	if (i < 0)
		return __real_realloc(p, n);
	q = __wrap_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, kept[i].n < n ? kept[i].n : n);
	__wrap_free(p);
	return q;
}

static void check_no_big_leak(void)
{
	int i;

	for (i = 0; i < NKEEP; i++)
		CHECK(!kept[i].used, "a %zu-byte block was not freed (leak)", kept[i].n);
}

/* --- one read of the input ------------------------------------------------ */

struct outcome {
	int rc;			/* of the last tsv_reader_next() */
	uint64_t rows, hash, hash_noid, line, skipped;
	bool trailer;
	uint64_t lost, events;
	char err[600];
	char mode[64];
	bool has_mode;
};

static FILE *sink;
static int memfd = -1;

#define FNV_START 0xcbf29ce484222325ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ull;
	return h;
}

static const struct { int col; bool is_signed; } int_cols[] = {
	{ TSV_TS_NS, false }, { TSV_CGROUP_ID, false }, { TSV_PID, false },
	{ TSV_TID, false }, { TSV_PPID, false }, { TSV_RET, true },
	{ TSV_DUR_NS, false },
};
static const int text_cols[] = {
	TSV_CONTAINER, TSV_COMM, TSV_EVENT, TSV_NAME, TSV_DETAIL,
};

static uint64_t row_value(const struct tsv_row *r, int col)
{
	switch (col) {
	case TSV_TS_NS: return r->ts_ns;
	case TSV_CGROUP_ID: return r->cgroup_id;
	case TSV_PID: return (uint64_t)r->pid;
	case TSV_TID: return (uint64_t)r->tid;
	case TSV_PPID: return (uint64_t)r->ppid;
	case TSV_RET: return (uint64_t)r->ret;
	default: return r->dur_ns;
	}
}

static bool is_id_col(int col)
{
	return col == TSV_CGROUP_ID || col == TSV_PID || col == TSV_TID || col == TSV_PPID;
}

/* @flags: the reader's; with TSV_NO_IDS the id columns are 0 in the row */
static void check_row(const struct tsv_row *r, unsigned flags, char *scratch)
{
	size_t i, j;

	for (i = 0; i < TSV_NFIELDS; i++) {
		CHECK(r->f[i].p != NULL, "field %zu has no pointer", i);
		CHECK(!memchr(r->f[i].p, '\t', r->f[i].n), "TAB in field %zu", i);
		CHECK(!memchr(r->f[i].p, '\n', r->f[i].n), "LF in field %zu", i);
	}
	for (i = 0; i < sizeof(int_cols) / sizeof(int_cols[0]); i++) {
		const struct tsv_field *f = &r->f[int_cols[i].col];
		uint64_t v = 0;

		bool noid = (flags & TSV_NO_IDS) && is_id_col(int_cols[i].col);

		if (!noid && (r->null & (1u << int_cols[i].col))) {
			CHECK(tsv_is_null(f->p, f->n), "null bit on a non-\\N column %d",
			      int_cols[i].col);
			continue;
		}
		if (tsv_is_null(f->p, f->n)) {
			CHECK(noid, "\\N in column %d without its null bit", int_cols[i].col);
			continue;
		}
		CHECK(tsv_parse_int(f->p, f->n, int_cols[i].is_signed, &v) == 0,
		      "column %d accepted but tsv_parse_int() refuses it", int_cols[i].col);
		if (noid) {
			CHECK(row_value(r, int_cols[i].col) == 0,
			      "TSV_NO_IDS, but column %d is %llu, not 0", int_cols[i].col,
			      (unsigned long long)row_value(r, int_cols[i].col));
			continue;
		}
		CHECK(v == row_value(r, int_cols[i].col), "column %d: %llu, not %llu",
		      int_cols[i].col, (unsigned long long)row_value(r, int_cols[i].col),
		      (unsigned long long)v);
	}
	for (j = 0; j < sizeof(text_cols) / sizeof(text_cols[0]); j++) {
		const struct tsv_field *f = &r->f[text_cols[j]];

		if (tsv_is_null(f->p, f->n))
			continue;
		CHECK(tsv_unescape(f->p, f->n, scratch) >= 0,
		      "column %d accepted but does not unescape", text_cols[j]);
	}
}

/* A hash of the row; with @ids false, of all but the id columns' values. */
static uint64_t hash_row(uint64_t h, const struct tsv_row *r, bool ids)
{
	unsigned idbits = 1u << TSV_CGROUP_ID | 1u << TSV_PID | 1u << TSV_TID | 1u << TSV_PPID;
	unsigned null = ids ? r->null : r->null & ~idbits;
	size_t i;

	for (i = 0; i < TSV_NFIELDS; i++) {
		h = fnv(h, &r->f[i].n, sizeof(r->f[i].n));
		h = fnv(h, r->f[i].p, r->f[i].n);
	}
	h = fnv(h, &null, sizeof(null));
	for (i = 0; i < sizeof(int_cols) / sizeof(int_cols[0]); i++) {
		uint64_t v = row_value(r, int_cols[i].col);

		if (!ids && is_id_col(int_cols[i].col))
			continue;
		h = fnv(h, &v, sizeof(v));
	}
	return h;
}

/*
 * Read the memfd from the start with @flags (short reads when @chop), into
 * @o; rows go to @a too when it is not NULL (NULL again after out of memory).
 */
static void read_once(unsigned flags, bool chop, struct analysis **a, struct outcome *o,
		      char *scratch)
{
	struct tsv_reader *r;
	struct tsv_row row;
	const char *mode;

	memset(o, 0, sizeof(*o));
	o->hash = o->hash_noid = FNV_START;
	CHECK(lseek(memfd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	r = tsv_reader__new("fuzz", memfd, flags);
	CHECK(r, "out of memory");
	short_fd = chop ? memfd : -1;
	short_state = 42;
	if (a && *a && analysis_begin_file(*a) < 0) {
		analysis__free(*a);
		*a = NULL;
	}
	while ((o->rc = tsv_reader_next(r, &row)) == 1) {
		check_row(&row, flags, scratch);
		o->rows++;
		if (!(flags & TSV_NO_IDS))
			o->hash = hash_row(o->hash, &row, true);
		o->hash_noid = hash_row(o->hash_noid, &row, false);
		if (a && *a && analysis_add_row(*a, &row) < 0) {
			analysis__free(*a);
			*a = NULL;
		}
	}
	short_fd = -1;
	CHECK(o->rc == 0 || o->rc == -1 || o->rc == -2, "tsv_reader_next returned %d", o->rc);
	snprintf(o->err, sizeof(o->err), "%s", tsv_reader_error(r));
	if (o->rc < 0)
		CHECK(strncmp(o->err, "fuzz:", 5) == 0 && o->err[5] != '\0',
		      "error message '%s' does not start with the name", o->err);
	o->line = tsv_reader_line(r);
	o->skipped = tsv_reader_skipped(r);
	o->trailer = tsv_reader_trailer(r, &o->lost, &o->events);
	mode = tsv_reader_meta(r, "mode");
	if (mode) {
		o->has_mode = true;
		snprintf(o->mode, sizeof(o->mode), "%s", mode);
	}
	(void)tsv_reader_meta(r, "");
	(void)tsv_reader_meta(r, "host");
	if (a && *a) {
		if (o->rc == 0) {
			a[0]->skipped += o->skipped;
			a[0]->lost += o->lost;
			if (analysis_end_file(*a, "fuzz", sink) < 0) {
				analysis__free(*a);
				*a = NULL;
			}
		} else {
			/* as analyze does: a malformed file is not analysed */
			analysis__free(*a);
			*a = NULL;
		}
	}
	tsv_reader__free(r);
}

static void same(const struct outcome *x, const struct outcome *y, const char *what)
{
	CHECK(x->rc == y->rc, "%s: rc %d vs %d", what, x->rc, y->rc);
	CHECK(x->rows == y->rows, "%s: %llu rows vs %llu", what, (unsigned long long)x->rows,
	      (unsigned long long)y->rows);
	CHECK(x->hash == y->hash, "%s: different rows", what);
	CHECK(strcmp(x->err, y->err) == 0, "%s: '%s' vs '%s'", what, x->err, y->err);
	CHECK(x->trailer == y->trailer && x->lost == y->lost && x->events == y->events,
	      "%s: trailers differ", what);
	CHECK(x->has_mode == y->has_mode && strcmp(x->mode, y->mode) == 0,
	      "%s: metadata differs", what);
}

/*
 * The same file read in parts, as analyze does with --threads on a regular
 * file: tsv_reader_header() on one reader, tsv_reader_consumed() for where
 * the rows start, then range readers over [start, c1), [c1, c2), ...,
 * [ck, UINT64_MAX) cut at line starts (chosen from the input). Rows, in
 * order, must be the whole reader's @w; the first range that fails, after
 * tsv_reader_rebase() by the lines before it, must fail with the whole
 * reader's message; line counts must add up.
 */
static void check_ranges(const uint8_t *data, size_t size, unsigned flags,
			 const struct outcome *w, char *scratch)
{
	uint64_t cut[6], lines, hash = FNV_START, rows = 0;
	struct tsv_reader *r;
	struct tsv_row row;
	size_t ncut = 0, k;
	bool trailer = false;
	int rc = 0;

	CHECK(lseek(memfd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	r = tsv_reader__new("fuzz", memfd, flags);
	CHECK(r, "out of memory");
	if (tsv_reader_header(r) != 0) {
		/* the whole reader failed in the header too, with this message */
		CHECK(w->rc < 0 && strcmp(tsv_reader_error(r), w->err) == 0,
		      "tsv_reader_header: '%s', the whole read: rc %d '%s'",
		      tsv_reader_error(r), w->rc, w->err);
		tsv_reader__free(r);
		return;
	}
	cut[ncut++] = tsv_reader_consumed(r);
	lines = tsv_reader_line(r);
	tsv_reader__free(r);
	CHECK(cut[0] <= size, "rows start at %llu of %zu bytes", (unsigned long long)cut[0], size);
	CHECK(cut[0] == 0 || data[cut[0] - 1] == '\n', "rows do not start at a line start");
	/* up to 4 cuts, each after an LF, at points taken from the data */
	for (k = 0; k < 4 && cut[ncut - 1] < size; k++) {
		uint64_t from = cut[ncut - 1], at;
		const uint8_t *nl;

		at = from + (size - from) * (1 + (size > 0 ? data[(k * 7919) % size] % 3 : 0)) / 4;
		nl = memchr(data + at, '\n', size - at);
		if (!nl)
			break;
		cut[ncut++] = (uint64_t)(nl + 1 - data);
	}
	cut[ncut] = UINT64_MAX;
	for (k = 0; k < ncut; k++) {
		r = tsv_reader__new_range("fuzz", memfd, flags, cut[k], cut[k + 1]);
		CHECK(r, "out of memory");
		short_fd = k % 2 ? memfd : -1;
		short_state = 7;
		while ((rc = tsv_reader_next(r, &row)) == 1) {
			check_row(&row, flags, scratch);
			rows++;
			hash = hash_row(hash, &row, !(flags & TSV_NO_IDS));
		}
		short_fd = -1;
		if (tsv_reader_trailer(r, NULL, NULL))
			trailer = true;
		if (rc != 0) {
			tsv_reader_rebase(r, lines);
			CHECK(rc == w->rc && strcmp(tsv_reader_error(r), w->err) == 0,
			      "range %zu of %zu [%llu, %llu): rc %d '%s', the whole read: rc %d '%s'",
			      k, ncut, (unsigned long long)cut[k], (unsigned long long)cut[k + 1], rc,
			      tsv_reader_error(r), w->rc, w->err);
			tsv_reader__free(r);
			return;
		}
		lines += tsv_reader_line(r);
		tsv_reader__free(r);
	}
	CHECK(w->rc == 0, "the ranges read without error, the whole read failed: '%s'", w->err);
	CHECK(rows == w->rows, "%llu rows in %zu ranges, %llu in the whole read",
	      (unsigned long long)rows, ncut, (unsigned long long)w->rows);
	CHECK(hash == ((flags & TSV_NO_IDS) ? w->hash_noid : w->hash),
	      "the ranges' rows differ from the whole read's");
	CHECK(lines == w->line, "%llu lines in the ranges, %llu in the whole read",
	      (unsigned long long)lines, (unsigned long long)w->line);
	CHECK(trailer == w->trailer, "trailer seen: %d in ranges, %d whole", trailer, w->trailer);
}

/* --- the analysis and the reports ------------------------------------------ */

/* The PNG histograms' bins of every phase: every value counted once. */
static void check_bins(const struct analysis *a)
{
	size_t i, k;

	for (i = 0; i < analysis_nphases(a); i++) {
		struct bins bn;
		uint64_t total = 0;

		if (bins_build(a->phases[i].v, a->phases[i].n, &bn) < 0)
			continue;
		for (k = 0; k < bn.n; k++)
			total += bn.count[k];
		CHECK(total == a->phases[i].n, "bins hold %llu of %zu values",
		      (unsigned long long)total, a->phases[i].n);
		CHECK(bn.n <= bins_cap(a->phases[i].n) + 4, "%zu bins for %zu values", bn.n,
		      a->phases[i].n);
		bins_release(&bn);
	}
}

static void report_all(const struct analysis *a, const struct analysis *b)
{
	struct report_opts ro = { .format = FMT_TEXT };
	struct compare_opts co = { .format = FMT_TEXT };

	ro.hist = true;
	ro.hist_kind = HIST_LOG2;
	ro.by = a->opts.by;
	ro.critpath = a->tl != NULL;
	ro.critpath_phase = PHASE_LISTEN;
	(void)report_print(sink, a, &ro);
	ro.format = FMT_JSON;
	(void)report_print(sink, a, &ro);
	ro.format = FMT_TSV;
	(void)report_print(sink, a, &ro);
	ro.hist = false;
	(void)report_print(sink, a, &ro);
	ro.by = BY_NONE;
	ro.hist = true;
	(void)report_print(sink, a, &ro);
	ro.hist_kind = HIST_LINEAR;
	ro.hist_step = 1000000;
	ro.format = FMT_TEXT;
	(void)report_print(sink, a, &ro);	/* may fail with E2BIG: fine */
	(void)compare_print(sink, sink, a, b, "a", "b", &co);
	co.format = FMT_TSV;
	co.gate = true;
	co.pct_milli = 5000;
	(void)compare_print(sink, sink, b, a, "b", "a", &co);
	(void)report_phases_text(sink, a);
	(void)report_phases_tsv(sink, a);
	check_bins(a);
	if (a->tl)
		(void)trace_event_print(sink, a, PHASE_LISTEN);
}

/*
 * The critical path of every container to every phase tiles [start, phase]
 * exactly: contiguous, no empty segment, ending at the phase.
 */
static void check_paths(const struct analysis *a)
{
	size_t i, ph, k;

	for (i = 0; i < a->tl->nctrs; i++)
		for (ph = 0; ph <= analysis_nphases(a); ph++) {
			/* every phase, then end (the last process's exit) */
			uint32_t id = ph < analysis_nphases(a) ? (uint32_t)ph : PHASE_END;
			struct cp_path p;
			int rc = critpath_build(a->tl, i, id, analysis_phase_name(a, id), &p);

			if (rc == 1) {
				uint64_t at = p.t0;

				for (k = 0; k < p.nsegs; k++) {
					CHECK(p.segs[k].ts == at && p.segs[k].dur > 0,
					      "critical path: segment %zu at %llu, not %llu", k,
					      (unsigned long long)p.segs[k].ts, (unsigned long long)at);
					at += p.segs[k].dur;
				}
				CHECK(at == p.t1, "critical path ends at %llu, not at the phase %llu",
				      (unsigned long long)at, (unsigned long long)p.t1);
			}
			critpath_release(&p);
		}
}

/* --- direct calls --------------------------------------------------------- */

/* tsv_parse_int against a reference, both signednesses. */
static void check_parse_int(const char *s, size_t n)
{
	int sgn;

	for (sgn = 0; sgn < 2; sgn++) {
		size_t i = 0;
		bool neg = false, digits = n > 0, fits = true;
		unsigned __int128 v = 0, limit;
		uint64_t got = 0;
		int rc;

		if (sgn && n && s[0] == '-') {
			neg = true;
			i = 1;
			digits = n > 1;
		}
		limit = !sgn ? UINT64_MAX : neg ? (unsigned __int128)INT64_MAX + 1 : INT64_MAX;
		for (; i < n; i++) {
			if (s[i] < '0' || s[i] > '9') {
				digits = false;
				break;
			}
			if (fits) {
				v = v * 10 + (unsigned)(s[i] - '0');
				if (v > limit)
					fits = false;
			}
		}
		rc = tsv_parse_int(s, n, sgn, &got);
		if (!digits) {
			CHECK(rc != 0, "tsv_parse_int accepts a malformed number (signed=%d)", sgn);
		} else if (!fits) {
			CHECK(rc == -2, "tsv_parse_int: %d for a number past 64 bits (signed=%d)",
			      rc, sgn);
		} else {
			uint64_t want = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

			CHECK(rc == 0 && got == want, "tsv_parse_int: rc %d, %llu, not %llu", rc,
			      (unsigned long long)got, (unsigned long long)want);
		}
	}
}

/* tsv_parse_row on each line, in an exactly padded heap buffer. */
static void parse_lines(const uint8_t *data, size_t size, char *scratch)
{
	size_t start = 0, nlines = 0;

	while (start < size && nlines++ < 256) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t len = nl ? (size_t)(nl - (data + start)) : size - start;
		char *line = malloc(len + 15), err[256];
		struct tsv_row row;

		CHECK(line, "out of memory");
		memcpy(line, data + start, len);
		memset(line + len, '\t', 15);	/* hostile padding: TABs */
		err[0] = '\0';
		if (tsv_parse_row(line, len, &row, err, sizeof(err)) == 0)
			check_row(&row, 0, scratch);
		else
			CHECK(err[0] != '\0', "tsv_parse_row failed without a message");
		free(line);
		start += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *scratch;
	static const struct analyze_opts ao1 = { .by = BY_SYSCALL, .syscalls = true };
	static const struct analyze_opts ao3 = {
		.by = BY_COMM, .syscalls = true, .exec_pattern = "/usr/*",
		.container_glob = "*", .reader_flags = TSV_LENIENT,
		.timeline = true, .windowed = true,
	};
	struct analysis *a1, *a3;
	struct outcome o1, o2, o3, o4;
	char san[64];

	if (!sink) {
		sink = fopen("/dev/null", "w");
		memfd = memfd_create("fuzz_reader", MFD_CLOEXEC);
		scratch = __real_malloc(TSV_MAX_LINE + 16);	/* kept: not a pool block */
		CHECK(sink && memfd >= 0 && scratch, "setup: %s", strerror(errno));
	}
	CHECK(ftruncate(memfd, 0) == 0, "ftruncate: %s", strerror(errno));
	CHECK(pwrite(memfd, data, size, 0) == (ssize_t)size, "pwrite: %s", strerror(errno));

	a1 = analysis__new(&ao1);
	a3 = analysis__new(&ao3);
	read_once(0, false, &a1, &o1, scratch);
	read_once(0, true, NULL, &o2, scratch);
	read_once(TSV_LENIENT, true, &a3, &o3, scratch);
	read_once(TSV_NO_IDS, false, NULL, &o4, scratch);
	same(&o1, &o2, "whole vs short reads");
	o4.hash = o1.hash;
	same(&o1, &o4, "TSV_NO_IDS vs all columns");
	CHECK(o4.hash_noid == o1.hash_noid, "TSV_NO_IDS changes other columns");
	/* in parts, as analyze --threads reads a regular file */
	check_ranges(data, size, 0, &o1, scratch);
	check_ranges(data, size, TSV_NO_IDS, &o4, scratch);
	if (o1.rc == 0) {
		CHECK(o3.rc == 0, "strict read succeeds, lenient fails: %s", o3.err);
		CHECK(o3.rows == o1.rows && o3.hash == o1.hash && o3.skipped == 0,
		      "strict and lenient reads differ on a valid file");
		CHECK(o1.skipped == 0, "a strict read skipped rows");
	}
	if (a1)
		analysis_finish(a1);
	if (a3 && analysis_finish(a3) == 0) {
		struct failures *fl = failures__new(a3->tl, FAILURES_STRETCH_NS);

		check_paths(a3);
		if (fl) {
			(void)failures_print(sink, fl, FMT_TEXT);
			(void)failures_print(sink, fl, FMT_TSV);
			(void)failures_print(sink, fl, FMT_JSON);
		}
		failures__free(fl);
		(void)window_apply(a3, PHASE_END);
		(void)window_apply(a3, PHASE_LISTEN);
	}
	if (a1)
		report_all(a1, a3 ? a3 : a1);
	if (a3)
		report_all(a3, a1 ? a1 : a3);
	analysis__free(a1);
	analysis__free(a3);

	if (size <= 48)
		check_parse_int((const char *)data, size);
	parse_lines(data, size, scratch);
	(void)plot_sanitize((const char *)data, size, san, sizeof(san));
	check_no_big_leak();
	return 0;
}
