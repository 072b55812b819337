// SPDX-License-Identifier: BSD-2-Clause
/* Streaming TSV reader and row validator: see reader.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "analyze/reader.h"

#define PAD 64			/* readable bytes past the data (SSE loads) */
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
	uint64_t lineno, skipped;
	bool trailer;
	uint64_t lost, events;
	char *meta[MAX_META];	/* "key\0value" */
	size_t nmeta;
	char err[512];
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

/*
 * The common case, inline: up to 18 digits cannot overflow either type, so
 * the loop needs no check but the digit one.
 */
static inline int parse_int_fast(const char *s, size_t n, bool is_signed, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	bool neg = false;

	if (n && s[0] == '-' && is_signed) {
		neg = true;
		i = 1;
	}
	if (i == n || n - i > 18)
		return tsv_parse_int(s, n, is_signed, out);
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (uint64_t)0 - v : v;
	return 0;
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

/* The field number that byte @i of the line is in, for messages. */
static const char *col_at(const struct tsv_row *row, int nf)
{
	(void)row;
	return nf < TSV_NFIELDS ? colnames[nf] : "an extra field";
}

/*
 * Handle the special byte at @i (TAB, backslash or another control byte).
 * Returns the index to continue scanning after, or (size_t)-1 on error.
 */
static size_t special(const char *line, size_t len, size_t i,
		      struct tsv_row *row, int *nf, size_t *fstart,
		      char *err, size_t errsz)
{
	unsigned char c = (unsigned char)line[i];
	char ex[48];

	if (c == '\t') {
		if (*nf < TSV_NFIELDS) {
			row->f[*nf].p = line + *fstart;
			row->f[*nf].n = (uint32_t)(i - *fstart);
		}
		(*nf)++;
		*fstart = i + 1;
		return i + 1;
	}
	if (c == '\\') {
		char e = i + 1 < len ? line[i + 1] : '\0';

		switch (e) {
		case '\\': case 't': case 'n': case 'r':
			return i + 2;
		case 'x':
			if (i + 3 < len && is_hex(line[i + 2]) && is_hex(line[i + 3]))
				return i + 4;
			break;
		case 'N':
			if (i == *fstart && (i + 2 == len || line[i + 2] == '\t'))
				return i + 2;
			break;
		}
		{
			size_t k = e == 'x' ? 4 : 2;

			fail(err, errsz, "bad escape '%s' in %s",
			     excerpt(line + i, len - i < k ? len - i : k, ex), col_at(row, *nf));
		}
		return (size_t)-1;
	}
	if (c == 0)
		fail(err, errsz, "NUL byte in %s (binary data?)", col_at(row, *nf));
	else
		fail(err, errsz, "control byte 0x%02x in %s", c, col_at(row, *nf));
	return (size_t)-1;
}

static int split(const char *line, size_t len, struct tsv_row *row,
		 char *err, size_t errsz)
{
	int nf = 0;
	size_t fstart = 0, i = 0;

#ifdef __SSE2__
	/*
	 * 16 bytes at a time: a mask of the bytes that need a look (TAB,
	 * backslash, any other byte <= 0x1f); everything else is copied over.
	 */
	const __m128i v1f = _mm_set1_epi8(0x1f), vbs = _mm_set1_epi8('\\');
	size_t base;

	for (base = 0; base + 16 <= len; base += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(line + base));
		__m128i ctl = _mm_cmpeq_epi8(_mm_max_epu8(x, v1f), v1f);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(ctl, _mm_cmpeq_epi8(x, vbs)));

		while (m) {
			size_t at = base + (size_t)__builtin_ctz(m);

			m &= m - 1;
			if (at < i)
				continue; /* inside an escape already handled */
			if (line[at] == '\t') {
				if (nf < TSV_NFIELDS) {
					row->f[nf].p = line + fstart;
					row->f[nf].n = (uint32_t)(at - fstart);
				}
				nf++;
				fstart = at + 1;
				i = at + 1;
				continue;
			}
			i = special(line, len, at, row, &nf, &fstart, err, errsz);
			if (i == (size_t)-1)
				return -1;
		}
	}
	if (i < base)
		i = base;
#endif
	while (i < len) {
		unsigned char c = (unsigned char)line[i];

		if (c > 0x1f && c != '\\') {
			i++;
			continue;
		}
		i = special(line, len, i, row, &nf, &fstart, err, errsz);
		if (i == (size_t)-1)
			return -1;
	}
	if (nf < TSV_NFIELDS) {
		row->f[nf].p = line + fstart;
		row->f[nf].n = (uint32_t)(len - fstart);
	}
	nf++;
	if (nf != TSV_NFIELDS)
		return fail(err, errsz, "expected %d fields, got %d", TSV_NFIELDS, nf);
	return 0;
}

int tsv_parse_row(const char *line, size_t len, struct tsv_row *row,
		  char *err, size_t errsz)
{
	static const struct { int col; bool is_signed; } ints[] = {
		{ TSV_TS_NS, false }, { TSV_CGROUP_ID, false }, { TSV_PID, false },
		{ TSV_TID, false }, { TSV_PPID, false }, { TSV_RET, true },
		{ TSV_DUR_NS, false },
	};
	uint64_t v[sizeof(ints) / sizeof(ints[0])];
	size_t k;
	char ex[48];

	if (len > TSV_MAX_LINE)
		return fail(err, errsz, "line longer than %u bytes", TSV_MAX_LINE);
	if (split(line, len, row, err, errsz) < 0)
		return -1;
	row->null = 0;
	for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
		const struct tsv_field *f = &row->f[ints[k].col];
		int rc;

		v[k] = 0;
		if (tsv_is_null(f->p, f->n)) {
			row->null |= 1u << ints[k].col;
			continue;
		}
		rc = parse_int_fast(f->p, f->n, ints[k].is_signed, &v[k]);
		if (rc == -2)
			return fail(err, errsz, "%s out of range (past 64 bits): '%s'",
				    colnames[ints[k].col], excerpt(f->p, f->n, ex));
		if (rc < 0) {
			if (k == 0 && len == sizeof(TSV_HEADER) - 1 &&
			    memcmp(line, TSV_HEADER, len) == 0)
				return fail(err, errsz, "duplicate header line");
			return fail(err, errsz, "bad integer in %s: '%s'",
				    colnames[ints[k].col], excerpt(f->p, f->n, ex));
		}
	}
	row->ts_ns = v[0];
	row->cgroup_id = v[1];
	row->pid = (int64_t)v[2];
	row->tid = (int64_t)v[3];
	row->ppid = (int64_t)v[4];
	row->ret = (int64_t)v[5];
	row->dur_ns = v[6];
	if (row->f[TSV_CONTAINER].n == 0)
		return fail(err, errsz, "empty container");
	if (row->f[TSV_EVENT].n == 0)
		return fail(err, errsz, "empty event");
	return 0;
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
	r->name = name;
	r->fd = fd;
	r->flags = flags;
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
	free(r);
}

static int rfail(struct tsv_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rfail(struct tsv_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "%s:%llu: ", r->name,
		     (unsigned long long)r->lineno);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return -1;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

enum { LINE_OK = 1, LINE_EOF = 0, LINE_IOERR = -2, LINE_LONG = -3, LINE_TRUNC = -4 };

/* Fill the buffer; returns bytes read, 0 at end of input, -1 on error. */
static ssize_t fill(struct tsv_reader *r)
{
	ssize_t n;

	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
	}
	do
		n = read(r->fd, r->buf + r->end, TSV_READ_BUF - r->end);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		r->end += (size_t)n;
	return n;
}

/* The next line without its LF; see the LINE_ codes. */
static int next_line(struct tsv_reader *r, const char **line, size_t *len)
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
		if (r->end - r->pos > TSV_MAX_LINE) {
			/* Keep no more than the limit: drop up to the end. */
			if (!(r->flags & TSV_LENIENT))
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
	const char *p = line + 2, *end = line + len, *sp;

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

int tsv_reader_next(struct tsv_reader *r, struct tsv_row *row)
{
	const char *line = NULL;
	size_t len = 0;
	char msg[300];

	for (;;) {
		int rc = next_line(r, &line, &len);

		if (rc == LINE_IOERR) {
			snprintf(r->err, sizeof(r->err), "%s: read error: %s",
				 r->name, strerror(errno));
			return -2;
		}
		if (rc == LINE_EOF) {
			if (r->state == ST_VERSION) {
				r->lineno = 1;
				return rfail(r, "empty input (no '%s' line)", TSV_VERSION_LINE);
			}
			if (r->state == ST_META)
				return rfail(r, "no header line (file cut short?)");
			return 0;
		}
		r->lineno++;
		if (rc == LINE_LONG || rc == LINE_TRUNC) {
			if (r->state == ST_ROWS && (r->flags & TSV_LENIENT)) {
				r->skipped++;
				continue;
			}
			if (rc == LINE_LONG)
				return rfail(r, "line longer than %u bytes", TSV_MAX_LINE);
			if (r->state == ST_ROWS)
				return rfail(r, "truncated line (no newline at end of file)");
			/* a header line without LF: report what is wrong with it */
		}
		switch (r->state) {
		case ST_VERSION:
			if (rc == LINE_TRUNC)
				return rfail(r, "truncated line (no newline at end of file)");
			if (len == sizeof(TSV_VERSION_LINE) - 1 &&
			    memcmp(line, TSV_VERSION_LINE, len) == 0 && rc == LINE_OK) {
				r->state = ST_META;
				continue;
			}
			if (len > 16 && memcmp(line, "# boottrace-tsv ", 16) == 0)
				return rfail(r, "unsupported format version (expected '%s')",
					     TSV_VERSION_LINE);
			return rfail(r, "not a boottrace TSV (expected '%s')", TSV_VERSION_LINE);
		case ST_META:
			if (rc == LINE_TRUNC)
				return rfail(r, "truncated line (no newline at end of file)");
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
		case ST_ROWS:
			if (len && line[0] == '#') {
				if (parse_trailer(r, line, len) < 0)
					return -1;
				continue;
			}
			if (len == 0) {
				if (r->flags & TSV_LENIENT) {
					r->skipped++;
					continue;
				}
				return rfail(r, "empty line");
			}
			if (tsv_parse_row(line, len, row, msg, sizeof(msg)) == 0)
				return 1;
			if (r->flags & TSV_LENIENT) {
				r->skipped++;
				continue;
			}
			return rfail(r, "%s", msg);
		}
	}
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
