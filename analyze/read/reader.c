// SPDX-License-Identifier: BSD-2-Clause
/*
 * Streaming TSV reader and row validator, the exact path: see reader.h.
 * Most rows take the fast path instead, in reader_fast.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <immintrin.h>
#endif

#include "analyze/read/reader.h"
#include "analyze/read/frames.h"
#include "analyze/read/reader_int.h"
#include "common/jit_detail.h"
#include "common/meta.h"
#include "common/tsv.h"

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
	size_t (*fast)(const char *p, size_t avail, struct tsv_row *row, bool ids); /* fast_path */
#endif
	char *meta[MAX_META];	/* "key\0value" */
	size_t nmeta;
	bool err_at_line;	/* err is "NAME:LINE: " + msg */
	bool skippable;		/* and a row --lenient would skip: err says so */
	char msg[400];
	char err[640];		/* a path, msg and the hint */
	char *scratch;		/* TSV_MAX_LINE bytes, for a stack row's frames */
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
	r->fast = tsv_fast_path();
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
	free(r->scratch);
	free(r);
}

static void format_err(struct tsv_reader *r)
{
	/* the way out, where there is one (the rows of a collector cut short) */
	snprintf(r->err, sizeof(r->err), "%s:%llu: %s%s", r->name,
		 (unsigned long long)r->lineno, r->msg,
		 r->skippable ? "; --lenient skips and counts such lines" : "");
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

/* A profile row's name: a stack id, decimal. */
static bool is_stack_id(const struct tsv_field *f)
{
	uint32_t i;

	if (f->n == 0 || f->n > 20)
		return false;
	for (i = 0; i < f->n; i++)
		if (f->p[i] < '0' || f->p[i] > '9')
			return false;
	return true;
}

/* A meta row's detail parses (common/meta.h): 0, -1 malformed, -2 out of memory. */
static int meta_check(struct tsv_reader *r, const struct tsv_field *d)
{
	struct meta m;
	long n;

	if (!r->scratch && !(r->scratch = malloc(TSV_MAX_LINE + 1)))
		return -2;
	n = tsv_is_null(d->p, d->n) ? -1 : tsv_unescape(d->p, d->n, r->scratch);
	if (n < 0 || meta_parse(r->scratch, (size_t)n, &m) < 0)
		return fail(r->msg, sizeof(r->msg),
			    "meta row: bad detail (KEY=LEN:BYTES fields, docs/tsv-format.md)");
	return 0;
}

/* A jit row's detail parses (common/jit_detail.h) and it has a pid: 0, -1 malformed, -2 out of memory. */
static int jit_check(struct tsv_reader *r, const struct tsv_row *row)
{
	const struct tsv_field *d = &row->f[TSV_DETAIL];
	struct jit_detail j;
	long n;

	if (!r->scratch && !(r->scratch = malloc(TSV_MAX_LINE + 1)))
		return -2;
	if (row->null & (1u << TSV_PID))
		return fail(r->msg, sizeof(r->msg), "jit row: no pid");
	n = tsv_is_null(d->p, d->n) ? -1 : tsv_unescape(d->p, d->n, r->scratch);
	if (n < 0 || jit_detail_parse(r->scratch, (size_t)n, &j) < 0)
		return fail(r->msg, sizeof(r->msg),
			    "jit row: bad detail (start=0xADDR size=0xSIZE name=LEN:BYTES, "
			    "docs/tsv-format.md)");
	return 0;
}

/*
 * The checks of profile, jit and meta rows beyond the columns
 * (docs/tsv-format.md, Profile rows): a stack row's and a sample row's
 * name is a stack id, a stack row's frames parse (frames.h). 0, -1
 * malformed (r->msg says why), -2 out of memory.
 */
static int profile_check(struct tsv_reader *r, const struct tsv_row *row)
{
	const struct tsv_field *ev = &row->f[TSV_EVENT], *d = &row->f[TSV_DETAIL];
	bool stack = field_is(ev, "stack", 5);

	if (field_is(ev, "meta", 4))
		return meta_check(r, d);
	if (field_is(ev, "jit", 3))
		return jit_check(r, row);
	if (!stack && !field_is(ev, "sample", 6))
		return 0;
	if (!is_stack_id(&row->f[TSV_NAME]))
		return fail(r->msg, sizeof(r->msg), "%s row: bad stack id", stack ? "stack" : "sample");
	if (!stack)
		return 0;
	if (!r->scratch && !(r->scratch = malloc(TSV_MAX_LINE + 1)))
		return -2;
	if (frames_parse_field(d->p, d->n, r->scratch, NULL, r->msg, sizeof(r->msg)) < 0)
		return -1;
	return 0;
}

/*
 * Row @row of line r->lineno failed profile_check() with @rc: 1 to skip it
 * (lenient), else the error to return.
 */
static int profile_fail(struct tsv_reader *r, int rc)
{
	if (rc == -2) {
		snprintf(r->err, sizeof(r->err), "%s: out of memory", r->name);
		return -2;
	}
	if (r->flags & TSV_LENIENT) {
		r->skipped++;
		return 1;
	}
	r->err_at_line = true;
	r->skippable = true;
	format_err(r);
	return -1;
}

/*
 * A parsed row, through profile_check(): 1 to return it, 0 when --lenient
 * skipped it (read on), or tsv_reader_next()'s -1 / -2.
 */
static inline int row_checked(struct tsv_reader *r, const struct tsv_row *row)
{
	int rc = profile_check(r, row);

	if (rc == 0)
		return 1;
	rc = profile_fail(r, rc);
	return rc == 1 ? 0 : rc;
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
			size_t took = r->fast(r->buf + r->pos, r->end - r->pos, row,
					      !(r->flags & TSV_NO_IDS));

			if (took) {
				r->pos += took;
				r->lineno++;
				if ((rc = row_checked(r, row)) == 0)
					continue;
				return rc;
			}
		}
#endif
		rc = next_line(r, &line, &len);
		if (rc == LINE_OK && len && line[0] != '#') {
			r->lineno++;
			if (parse_row(line, len, row, r->flags, r->msg, sizeof(r->msg)) == 0) {
				if ((rc = row_checked(r, row)) == 0)
					continue;
				return rc;
			}
			if (r->flags & TSV_LENIENT) {
				r->skipped++;
				continue;
			}
			r->err_at_line = true;
			r->skippable = true;
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
			r->skippable = true;
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
		r->skippable = true;
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
