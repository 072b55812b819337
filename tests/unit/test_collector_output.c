// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/rows/output.c, the TSV row writer: rows are written through
 * output__new() on a memfd or a pipe, flushed, read back and split into
 * fields, which must be 12 per row and unescape to what was written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/rows/output.h"
#include "common/tsv.h"

/* --- helpers ---------------------------------------------------------------- */

static int new_memfd(void)
{
	int fd = memfd_create("test_output", 0);

	assert_true(fd >= 0);
	return fd;
}

/* The whole content of @fd (NUL-terminated, caller frees), its size in *@n. */
static char *slurp(int fd, size_t *n)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	ssize_t r;

	assert_non_null(buf);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
	}
	assert_true(r == 0);
	buf[len] = '\0';
	*n = len;
	return buf;
}

struct fields {
	const char *f[TSV_NFIELDS + 1];
	size_t n[TSV_NFIELDS + 1];
	size_t count;
};

/* Split the line [@s, @s + @len) (no LF) at its tabs. */
static void split(const char *s, size_t len, struct fields *fl)
{
	size_t i, start = 0;

	fl->count = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '\t')
			continue;
		assert_true(fl->count < TSV_NFIELDS + 1);
		fl->f[fl->count] = s + start;
		fl->n[fl->count] = i - start;
		fl->count++;
		start = i + 1;
	}
}

static void assert_field(const struct fields *fl, enum tsv_column c, const char *want)
{
	assert_int_equal(fl->n[c], strlen(want));
	assert_memory_equal(fl->f[c], want, fl->n[c]);
}

static void assert_null_field(const struct fields *fl, enum tsv_column c)
{
	assert_true(tsv_is_null(fl->f[c], fl->n[c]));
}

/* The field unescapes to the @n bytes at @want. */
static void assert_unescapes_to(const struct fields *fl, enum tsv_column c,
				const char *want, size_t n)
{
	char *out = malloc(fl->n[c] + 1);
	long len;

	assert_non_null(out);
	assert_false(tsv_is_null(fl->f[c], fl->n[c]));
	len = tsv_unescape(fl->f[c], fl->n[c], out);
	assert_int_equal(len, (long)n);
	if (n)
		assert_memory_equal(out, want, n);
	free(out);
}

/* Write @r alone, read it back as one line split into @fl; returns the text. */
static char *one_row(const struct row *r, struct fields *fl)
{
	int fd = new_memfd();
	struct output *o = output__new(fd, 1 << 16);
	size_t n;
	char *text;

	assert_non_null(o);
	output_row(o, r);
	assert_int_equal(o->rows, 1);
	assert_int_equal(output_flush(o), 0);
	assert_int_equal(o->err, 0);
	output__free(o);
	text = slurp(fd, &n);
	close(fd);
	assert_true(n > 0);
	assert_int_equal(text[n - 1], '\n');
	assert_null(memchr(text, '\n', n - 1));
	assert_null(memchr(text, '\r', n));
	split(text, n - 1, fl);
	assert_int_equal(fl->count, TSV_NFIELDS);
	return text;
}

static struct row sample_row(void)
{
	struct row r = {
		.ts_ns = 1234567890,
		.container = field_str("web-1"),
		.cgroup_id = 4242,
		.pid = 100, .tid = 101, .ppid = 1,
		.comm = field_str("nginx"),
		.event = "syscall",
		.name = field_str("openat"),
		.has_ret = true, .ret = 3,
		.has_dur = true, .dur_ns = 5000,
		.detail = field_str("/etc/nginx/nginx.conf"),
	};

	return r;
}

/* --- tests ------------------------------------------------------------------ */

static void test_basic_row(void **state)
{
	struct row r = sample_row();
	struct fields fl;
	char *text;

	(void)state;
	text = one_row(&r, &fl);
	assert_string_equal(text, "1234567890\tweb-1\t4242\t100\t101\t1\tnginx\tsyscall"
			    "\topenat\t3\t5000\t/etc/nginx/nginx.conf\n");
	assert_field(&fl, TSV_TS_NS, "1234567890");
	assert_field(&fl, TSV_DETAIL, "/etc/nginx/nginx.conf");
	free(text);
}

static void test_nulls(void **state)
{
	struct row r = {
		.ts_ns = 0,
		.container = { NULL, 0 },
		.cgroup_id = 0,
		.pid = -1, .tid = -1, .ppid = -1,
		.comm = field_str(NULL),
		.event = NULL,
		.name = { NULL, 0 },
		.has_ret = false, .ret = 77,
		.has_dur = false, .dur_ns = 88,
		.detail = { NULL, 0 },
	};
	struct fields fl;
	char *text;
	int c;

	(void)state;
	text = one_row(&r, &fl);
	assert_field(&fl, TSV_TS_NS, "0");
	for (c = TSV_CONTAINER; c <= TSV_DETAIL; c++)
		assert_null_field(&fl, (enum tsv_column)c);
	free(text);
}

static void test_empty_text_is_not_null(void **state)
{
	struct row r = sample_row();
	struct fields fl;
	char *text;

	(void)state;
	r.container = field_str("");
	r.detail = field_strn("", 0);
	r.pid = 0;
	text = one_row(&r, &fl);
	assert_int_equal(fl.n[TSV_CONTAINER], 0);
	assert_int_equal(fl.n[TSV_DETAIL], 0);
	assert_field(&fl, TSV_PID, "0");
	free(text);
}

static void test_numbers(void **state)
{
	struct row r = sample_row();
	struct fields fl;
	char *text;

	(void)state;
	r.ts_ns = UINT64_MAX;
	r.cgroup_id = UINT64_MAX;
	r.pid = INT64_MAX;
	r.tid = 0;
	r.ppid = -5;
	r.ret = -2;
	r.dur_ns = UINT64_MAX;
	text = one_row(&r, &fl);
	assert_field(&fl, TSV_TS_NS, "18446744073709551615");
	assert_field(&fl, TSV_CGROUP_ID, "18446744073709551615");
	assert_field(&fl, TSV_PID, "9223372036854775807");
	assert_field(&fl, TSV_TID, "0");
	assert_null_field(&fl, TSV_PPID);
	assert_field(&fl, TSV_RET, "-2");
	assert_field(&fl, TSV_DUR_NS, "18446744073709551615");
	free(text);

	r.ret = INT64_MIN;
	r.dur_ns = 0;
	text = one_row(&r, &fl);
	assert_field(&fl, TSV_RET, "-9223372036854775808");
	assert_field(&fl, TSV_DUR_NS, "0");
	free(text);

	r.ret = 0;
	text = one_row(&r, &fl);
	assert_field(&fl, TSV_RET, "0");
	free(text);
}

/*
 * Every width of a number, and both sides of each power of ten (where
 * the digit count changes), as printf writes them: the writer counts the
 * digits first and fills them from the last, two at a time.
 */
static void test_number_widths(void **state)
{
	struct row r = sample_row();
	struct fields fl;
	char want[32], neg[32];
	uint64_t p = 1;
	char *text;
	int d, k;

	(void)state;
	for (d = 0; d < 20; d++, p *= 10) {
		for (k = -1; k <= 1; k++) {
			uint64_t v = p + (uint64_t)(int64_t)k;

			if (d == 0 && k == -1)
				v = 0;
			r.ts_ns = v;
			r.dur_ns = v * 7 + (uint64_t)d;	/* odd digits in the low places too */
			r.ret = v > (uint64_t)INT64_MAX ? INT64_MIN + (int64_t)d : -(int64_t)v;
			text = one_row(&r, &fl);
			snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
			assert_field(&fl, TSV_TS_NS, want);
			snprintf(want, sizeof(want), "%llu", (unsigned long long)(v * 7 + (uint64_t)d));
			assert_field(&fl, TSV_DUR_NS, want);
			snprintf(neg, sizeof(neg), "%lld", (long long)r.ret);
			assert_field(&fl, TSV_RET, neg);
			free(text);
		}
	}
}

static void test_hostile_text(void **state)
{
	static const char container[] = "evil\tcontainer\nname\\";
	static const char comm[] = "a\tb\nc\r\\d";
	static const char name[] = "\\N";
	static const char detail[] = "line1\nline2\tcol\\x41\x01\x7f\xff\xc3\xa9\0tail";
	struct row r = sample_row();
	struct fields fl;
	char *text;

	(void)state;
	r.container = field_str(container);
	r.comm = field_str(comm);
	r.name = field_str(name);
	r.detail.s = detail;
	r.detail.n = sizeof(detail) - 1;	/* with the embedded NUL */
	text = one_row(&r, &fl);
	assert_unescapes_to(&fl, TSV_CONTAINER, container, strlen(container));
	assert_unescapes_to(&fl, TSV_COMM, comm, strlen(comm));
	/* the text "\N" is not the missing value */
	assert_unescapes_to(&fl, TSV_NAME, name, strlen(name));
	assert_unescapes_to(&fl, TSV_DETAIL, detail, sizeof(detail) - 1);
	assert_field(&fl, TSV_EVENT, "syscall");
	free(text);
}

static void test_field_strn(void **state)
{
	char comm[16] = "bash";
	char full[4] = { 'a', 'b', 'c', 'd' };
	struct field f;

	(void)state;
	f = field_strn(comm, sizeof(comm));
	assert_ptr_equal(f.s, comm);
	assert_int_equal(f.n, 4);
	f = field_strn(full, sizeof(full));	/* no NUL: bounded by max */
	assert_int_equal(f.n, 4);
	f = field_strn(full, 2);
	assert_int_equal(f.n, 2);
	f = field_strn(comm, 0);
	assert_int_equal(f.n, 0);
	f = field_str("hello");
	assert_int_equal(f.n, 5);
	f = field_str(NULL);
	assert_null(f.s);
	assert_int_equal(f.n, 0);
}

static void test_meta_and_raw(void **state)
{
	int fd = new_memfd();
	struct output *o = output__new(fd, 4096);
	struct row r = sample_row();
	size_t n;
	char *text;

	(void)state;
	assert_non_null(o);
	output_raw(o, TSV_VERSION_LINE "\n", strlen(TSV_VERSION_LINE) + 1);
	output_meta(o, "host", "box\tone\nline\\");
	output_meta(o, "kernel", "6.1.0");
	output_raw(o, TSV_HEADER "\n", strlen(TSV_HEADER) + 1);
	output_row(o, &r);
	/* meta and raw lines are not event rows */
	assert_int_equal(o->rows, 1);
	assert_int_equal(output_flush(o), 0);
	output__free(o);
	text = slurp(fd, &n);
	close(fd);
	assert_string_equal(text,
		TSV_VERSION_LINE "\n"
		"# host=box\\tone\\nline\\\\\n"
		"# kernel=6.1.0\n"
		TSV_HEADER "\n"
		"1234567890\tweb-1\t4242\t100\t101\t1\tnginx\tsyscall"
		"\topenat\t3\t5000\t/etc/nginx/nginx.conf\n");
	free(text);
}

static void test_raw_larger_than_buffer(void **state)
{
	int fd = new_memfd();
	struct output *o = output__new(fd, 64);
	char big[1000];
	size_t n, i;
	char *text;

	(void)state;
	assert_non_null(o);
	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	output_raw(o, "head\n", 5);
	output_raw(o, big, sizeof(big));
	output_raw(o, "tail\n", 5);
	assert_int_equal(output_flush(o), 0);
	output__free(o);
	text = slurp(fd, &n);
	close(fd);
	assert_int_equal(n, 5 + sizeof(big) + 5);
	assert_memory_equal(text, "head\n", 5);
	assert_memory_equal(text + 5, big, sizeof(big));
	assert_memory_equal(text + 5 + sizeof(big), "tail\n", 5);
	free(text);
}

static void test_rows_counter(void **state)
{
	int fd = new_memfd();
	struct output *o = output__new(fd, 4096);
	struct row r = sample_row();
	int i;

	(void)state;
	assert_non_null(o);
	assert_int_equal(o->rows, 0);
	assert_int_equal(o->err, 0);
	for (i = 1; i <= 5; i++) {
		output_row(o, &r);
		assert_int_equal(o->rows, (uint64_t)i);
	}
	assert_int_equal(output_flush(o), 0);
	assert_int_equal(o->rows, 5);
	/* an empty flush is fine */
	assert_int_equal(output_flush(o), 0);
	output__free(o);
	close(fd);
	output__free(NULL);
}

static void test_small_buffer_many_rows(void **state)
{
	enum { NROWS = 1000 };
	int fd = new_memfd();
	struct output *o = output__new(fd, 4096);
	char comm[32], detail[64], want[32];
	size_t n, off = 0;
	char *text;
	int i;

	(void)state;
	assert_non_null(o);
	for (i = 0; i < NROWS; i++) {
		struct row r = sample_row();

		snprintf(comm, sizeof(comm), "w\t%d", i);
		snprintf(detail, sizeof(detail), "row %d\nof %d\\", i, NROWS);
		r.ts_ns = (uint64_t)i;
		r.pid = i;
		r.comm = field_str(comm);
		r.detail = field_str(detail);
		output_row(o, &r);
	}
	assert_int_equal(o->rows, NROWS);
	assert_int_equal(output_flush(o), 0);
	output__free(o);
	text = slurp(fd, &n);
	close(fd);
	for (i = 0; i < NROWS; i++) {
		const char *nl = memchr(text + off, '\n', n - off);
		struct fields fl;

		assert_non_null(nl);
		split(text + off, (size_t)(nl - (text + off)), &fl);
		assert_int_equal(fl.count, TSV_NFIELDS);
		snprintf(want, sizeof(want), "%d", i);
		assert_field(&fl, TSV_TS_NS, want);
		assert_field(&fl, TSV_PID, want);
		snprintf(comm, sizeof(comm), "w\t%d", i);
		snprintf(detail, sizeof(detail), "row %d\nof %d\\", i, NROWS);
		assert_unescapes_to(&fl, TSV_COMM, comm, strlen(comm));
		assert_unescapes_to(&fl, TSV_DETAIL, detail, strlen(detail));
		off = (size_t)(nl - text) + 1;
	}
	assert_int_equal(off, n);	/* nothing after the last row */
	free(text);
}

static void test_pipe_round_trip(void **state)
{
	int p[2];
	struct output *o;
	struct row r = sample_row();
	char buf[512];
	ssize_t n;
	struct fields fl;

	(void)state;
	assert_int_equal(pipe(p), 0);
	o = output__new(p[1], 1024);
	assert_non_null(o);
	output_row(o, &r);
	assert_int_equal(output_flush(o), 0);
	output__free(o);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf));
	close(p[0]);
	assert_true(n > 0);
	assert_int_equal(buf[n - 1], '\n');
	split(buf, (size_t)n - 1, &fl);
	assert_int_equal(fl.count, TSV_NFIELDS);
	assert_field(&fl, TSV_NAME, "openat");
}

static void test_write_error_sticky(void **state)
{
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	struct row r = sample_row();
	struct output *o;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	o = output__new(p[1], 4096);
	assert_non_null(o);
	output_row(o, &r);
	assert_int_equal(o->rows, 1);
	assert_int_equal(output_flush(o), -EPIPE);
	assert_int_equal(o->err, EPIPE);
	/* sticky: later rows are dropped and the error is reported again */
	output_row(o, &r);
	output_meta(o, "k", "v");
	output_raw(o, "x\n", 2);
	assert_int_equal(o->rows, 1);
	assert_int_equal(o->len, 0);
	assert_int_equal(output_flush(o), -EPIPE);
	assert_int_equal(o->err, EPIPE);
	output__free(o);
	close(p[1]);
	signal(SIGPIPE, old);
}

static void test_write_error_bad_fd(void **state)
{
	struct row r = sample_row();
	struct output *o;
	int fd = new_memfd();

	(void)state;
	close(fd);	/* now a closed descriptor */
	o = output__new(fd, 4096);
	assert_non_null(o);
	output_row(o, &r);
	assert_int_equal(output_flush(o), -EBADF);
	assert_int_equal(o->err, EBADF);
	output__free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_row),
		cmocka_unit_test(test_nulls),
		cmocka_unit_test(test_empty_text_is_not_null),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_field_strn),
		cmocka_unit_test(test_number_widths),
		cmocka_unit_test(test_meta_and_raw),
		cmocka_unit_test(test_raw_larger_than_buffer),
		cmocka_unit_test(test_rows_counter),
		cmocka_unit_test(test_small_buffer_many_rows),
		cmocka_unit_test(test_pipe_round_trip),
		cmocka_unit_test(test_write_error_sticky),
		cmocka_unit_test(test_write_error_bad_fd),
	};

	return cmocka_run_group_tests_name("collector_output", tests, NULL, NULL);
}
