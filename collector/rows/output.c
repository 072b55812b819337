// SPDX-License-Identifier: BSD-2-Clause
/* The TSV row writer: see output.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/rows/output.h"
#include "common/tsv.h"

/* A row's fixed part at most: 9 integers of 20 digits, tabs, literals. */
#define ROW_FIXED_MAX 256

struct output *output__new(int fd, size_t cap)
{
	struct output *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->buf = malloc(cap);
	if (!o->buf) {
		free(o);
		return NULL;
	}
	o->fd = fd;
	o->cap = cap;
	return o;
}

void output__free(struct output *o)
{
	if (!o)
		return;
	free(o->buf);
	free(o);
}

/*
 * A write failed (disk full) after @off bytes of the buffer went out. The
 * buffer holds whole lines, so what went out ends in a cut line unless
 * @off is at a line end: cut the file back to the last whole line, so that
 * no reader mistakes a cut row for a complete one. (A pipe cannot be cut;
 * it fails with EPIPE, not in the middle of a row.)
 */
static void drop_partial_line(struct output *o, size_t off)
{
	size_t tail = 0;
	off_t cur;

	while (tail < off && o->buf[off - tail - 1] != '\n')
		tail++;
	if (!tail)
		return;
	cur = lseek(o->fd, 0, SEEK_CUR);
	if (cur >= (off_t)tail && ftruncate(o->fd, cur - (off_t)tail) == 0)
		lseek(o->fd, cur - (off_t)tail, SEEK_SET);
}

int output_flush(struct output *o)
{
	size_t off = 0;

	while (!o->err && off < o->len) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->err = errno;
			drop_partial_line(o, off);
			break;
		}
		off += (size_t)n;
		o->bytes += (uint64_t)n;
	}
	o->len = 0;
	return o->err ? -o->err : 0;
}

static void reserve(struct output *o, size_t n)
{
	if (o->len + n > o->cap)
		output_flush(o);
}

struct field field_strn(const char *s, size_t max)
{
	struct field f = { s, 0 };

	while (f.n < max && s[f.n])
		f.n++;
	return f;
}

/* "00" to "99": two digits a step, a step a multiplication (v / 100) */
static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* How many decimal digits @v has (1 to 20). */
static unsigned int u64_digits(uint64_t v)
{
	unsigned int n = 1;

	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/*
 * @v in decimal at @p; returns the end. Written from its last digit back,
 * two at a time: a row has seven integers, and with a digit a step (and a
 * copy to reverse them) output_row() was 41% of the collector's CPU on a
 * stream of getppid rows (perf, bench/collector.sh's loop), most of it here.
 */
static char *put_u64(char *p, uint64_t v)
{
	char *end = p + u64_digits(v), *q = end;

	while (v >= 100) {
		q -= 2;
		memcpy(q, &digit_pairs[2 * (v % 100)], 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, &digit_pairs[2 * v], 2);
	} else {
		*--q = (char)('0' + v);
	}
	return end;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

static char *put_null(char *p)
{
	*p++ = '\\';
	*p++ = 'N';
	return p;
}

static char *put_text(char *p, struct field f)
{
	if (!f.s)
		return put_null(p);
	return p + tsv_escape(f.s, f.n, p);
}

static char *put_opt_i64(char *p, int64_t v)
{
	return v < 0 ? put_null(p) : put_i64(p, v);
}

void output_row(struct output *o, const struct row *r)
{
	size_t need = ROW_FIXED_MAX + TSV_ESCAPED_MAX(r->container.n + r->comm.n +
						      r->name.n + r->detail.n);
	char *p;

	if (o->on_row)
		o->on_row(o->on_row_ctx, r);
	if (o->err)
		return;
	reserve(o, need);
	/* a failed flush drops the row: it must not be counted as written */
	if (o->err || need > o->cap) /* (need > cap cannot happen at our sizes) */
		return;
	p = o->buf + o->len;
	p = put_u64(p, r->ts_ns);
	*p++ = '\t';
	p = put_text(p, r->container);
	*p++ = '\t';
	p = r->cgroup_id ? put_u64(p, r->cgroup_id) : put_null(p);
	*p++ = '\t';
	p = put_opt_i64(p, r->pid);
	*p++ = '\t';
	p = put_opt_i64(p, r->tid);
	*p++ = '\t';
	p = put_opt_i64(p, r->ppid);
	*p++ = '\t';
	p = put_text(p, r->comm);
	*p++ = '\t';
	p = put_text(p, field_str(r->event));
	*p++ = '\t';
	p = put_text(p, r->name);
	*p++ = '\t';
	p = r->has_ret ? put_i64(p, r->ret) : put_null(p);
	*p++ = '\t';
	p = r->has_dur ? put_u64(p, r->dur_ns) : put_null(p);
	*p++ = '\t';
	p = put_text(p, r->detail);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
	o->rows++;
}

void output_raw(struct output *o, const char *s, size_t n)
{
	if (o->err)
		return;
	reserve(o, n);
	if (n > o->cap) {
		output_flush(o);
		while (!o->err && n) {
			ssize_t w = write(o->fd, s, n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				o->err = errno;
				return;
			}
			s += w;
			n -= (size_t)w;
			o->bytes += (uint64_t)w;
		}
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void output_meta(struct output *o, const char *key, const char *value)
{
	size_t kn = strlen(key), vn = strlen(value);
	char *p;

	if (o->err)
		return;
	reserve(o, 4 + kn + TSV_ESCAPED_MAX(vn));
	if (4 + kn + TSV_ESCAPED_MAX(vn) > o->cap)
		return;
	p = o->buf + o->len;
	*p++ = '#';
	*p++ = ' ';
	memcpy(p, key, kn);
	p += kn;
	*p++ = '=';
	p += tsv_escape(value, vn, p);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
}

int output_next_file(struct output *o, int fd)
{
	int err = dup2(fd, o->fd) < 0 ? -errno : 0;

	close(fd);
	if (err)
		return err;
	o->len = 0;
	o->err = 0;
	o->rows = 0;
	o->bytes = 0;
	return 0;
}

void output_trailer(struct output *o, unsigned long long lost)
{
	char t[96];
	int n = snprintf(t, sizeof(t), "# lost=%llu events=%llu\n", lost,
			 (unsigned long long)o->rows);

	output_raw(o, t, (size_t)n);
}
