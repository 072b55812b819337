// SPDX-License-Identifier: BSD-2-Clause
/* cmocka: analyze/read/reader.c, every error path of the TSV contract. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/read/reader.h"

#define HEAD "# boottrace-tsv 1\n# host=h\n# mode=cgroup\n" TSV_HEADER "\n"
#define ROW "100\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n"
#define TRAILER "# lost=0 events=1\n"

struct result {
	int rc;			/* last tsv_reader_next() */
	uint64_t rows, skipped;
	char err[512];
	bool trailer;
	uint64_t lost;
	char mode[32];
};

/* Read @n bytes of @s through a temporary file (no pipe: big inputs). */
static void run_n(const char *s, size_t n, unsigned flags, struct result *res)
{
	FILE *tmp = tmpfile();
	struct tsv_reader *r;
	struct tsv_row row;
	const char *m;

	assert_non_null(tmp);
	assert_int_equal(fwrite(s, 1, n, tmp), n);
	fflush(tmp);
	rewind(tmp);
	lseek(fileno(tmp), 0, SEEK_SET);
	memset(res, 0, sizeof(*res));
	r = tsv_reader__new("boot.tsv", fileno(tmp), flags);
	assert_non_null(r);
	while ((res->rc = tsv_reader_next(r, &row)) == 1)
		res->rows++;
	snprintf(res->err, sizeof(res->err), "%s", tsv_reader_error(r));
	res->skipped = tsv_reader_skipped(r);
	res->trailer = tsv_reader_trailer(r, &res->lost, NULL);
	m = tsv_reader_meta(r, "mode");
	snprintf(res->mode, sizeof(res->mode), "%s", m ? m : "");
	tsv_reader__free(r);
	fclose(tmp);
}

static void run(const char *s, unsigned flags, struct result *res)
{
	run_n(s, strlen(s), flags, res);
}

static void expect_error(const char *input, const char *msg)
{
	struct result res;

	run(input, 0, &res);
	assert_int_equal(res.rc, -1);
	if (!strstr(res.err, msg)) {
		print_error("error '%s' lacks '%s'\n", res.err, msg);
		fail();
	}
}

static void test_valid(void **state)
{
	struct result res;

	(void)state;
	run(HEAD ROW ROW TRAILER, 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 2);
	assert_true(res.trailer);
	assert_int_equal(res.lost, 0);
	assert_string_equal(res.mode, "cgroup");
}

static void test_trailer_lost(void **state)
{
	struct result res;

	(void)state;
	run(HEAD ROW "# lost=5 events=9\n", 0, &res);
	assert_int_equal(res.rc, 0);
	assert_true(res.trailer);
	assert_int_equal(res.lost, 5);
	run(HEAD ROW, 0, &res);
	assert_int_equal(res.rc, 0);
	assert_false(res.trailer);
	expect_error(HEAD ROW "# lost=x events=1\n", "malformed trailer");
}

static void test_header_only(void **state)
{
	struct result res;

	(void)state;
	run(HEAD TRAILER, 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 0);
	assert_true(res.trailer);
}

static void test_version(void **state)
{
	(void)state;
	expect_error("", "boot.tsv:1: empty input");
	expect_error("hello\n", "boot.tsv:1: not a boottrace TSV");
	expect_error("# boottrace-tsv 2\n" TSV_HEADER "\n", "unsupported format version");
	expect_error(TSV_HEADER "\n" ROW, "not a boottrace TSV");
	expect_error("# boottrace-tsv 1", "boot.tsv:1: truncated line"); /* no LF */
}

static void test_header(void **state)
{
	(void)state;
	expect_error("# boottrace-tsv 1\n# host=h\n" ROW, "boot.tsv:3: expected the header line");
	expect_error("# boottrace-tsv 1\n# host=h\n", "no header line");
	expect_error("# boottrace-tsv 1\n#host\n" TSV_HEADER "\n", "bad metadata line");
	expect_error(HEAD ROW TSV_HEADER "\n", "boot.tsv:6: duplicate header line");
}

static void test_fields(void **state)
{
	(void)state;
	expect_error(HEAD "1\tc\t\\N\t1\t1\t0\tsh\tstart\tmkdir\n",
		     "boot.tsv:5: expected 12 fields, got 9");
	expect_error(HEAD "100\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\textra\n",
		     "expected 12 fields, got 13");
	expect_error(HEAD "\n", "empty line");
	expect_error(HEAD "100\t\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "empty container");
}

static void test_integers(void **state)
{
	struct result res;

	(void)state;
	expect_error(HEAD "100\tc1\t\\N\t1x\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "bad integer in pid: '1x'");
	expect_error(HEAD "100\tc1\t\\N\t-1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "bad integer in pid");
	expect_error(HEAD "\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "bad integer in ts_ns: ''");
	expect_error(HEAD "100\tc1\t\\N\t1\t1\t0\tsh\tsyscall\tread\t--1\t5\t\\N\n",
		     "bad integer in ret");
	/* 2^64 and 2^63 on the signed column */
	expect_error(HEAD "18446744073709551616\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "ts_ns out of range (past 64 bits)");
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\tsh\tsyscall\tread\t9223372036854775808\t5\t\\N\n",
		     "ret out of range");
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\tsh\tsyscall\tread\t-9223372036854775809\t5\t\\N\n",
		     "ret out of range");
	expect_error(HEAD "1\tc1\t99999999999999999999999\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "cgroup_id out of range");
	/* the limits themselves are fine */
	run(HEAD "18446744073709551615\tc1\t18446744073709551615\t1\t1\t0\tsh\tsyscall\tread\t"
	    "-9223372036854775808\t18446744073709551615\t\\N\n", 0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 1);
}

static void test_escapes(void **state)
{
	struct result res;

	(void)state;
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\ts\\qh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
		     "bad escape '\\q' in comm");
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\tab\\x4\n",
		     "bad escape");
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\tab\\\n",
		     "bad escape");
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\ta\\Nb\n",
		     "bad escape '\\N' in detail");
	/* every escape of the contract decodes; \N as a whole field */
	run(HEAD "1\tc\\\\1\\t\\n\\r\\x1b\\xFF\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n",
	    0, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 1);
	/* an escape split across a 16-byte block boundary (SSE path) */
	run(HEAD "1\tcontainer-name\\x41\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n", 0, &res);
	assert_int_equal(res.rc, 0);
}

static void test_control_bytes(void **state)
{
	static const char nul[] = HEAD "1\tc1\t\\N\t1\t1\t0\ts\0h\tstart\tmkdir\t\\N\t\\N\t\\N\n";
	struct result res;

	(void)state;
	run_n(nul, sizeof(nul) - 1, 0, &res);
	assert_int_equal(res.rc, -1);
	assert_non_null(strstr(res.err, "boot.tsv:5: NUL byte in comm"));
	expect_error(HEAD "1\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\ta\rb\n",
		     "control byte 0x0d in detail");
	run_n(nul, sizeof(nul) - 1, TSV_LENIENT, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.skipped, 1);
}

static void test_truncated(void **state)
{
	struct result res;

	(void)state;
	expect_error(HEAD ROW "100\tc1\t\\N\t1", "boot.tsv:6: truncated line");
	/* the way out: a row --lenient would skip says so; a cut header has none */
	expect_error(HEAD ROW "100\tc1\t\\N\t1", "; --lenient skips and counts such lines");
	run("# boottrace-tsv 1", 0, &res);
	assert_null(strstr(res.err, "--lenient"));
	/* even a complete-looking row without its LF */
	expect_error(HEAD "100\tc1\t\\N\t1\t1\t0\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		     "truncated line (no newline at end of file)");
	run(HEAD ROW "100\tc1\t\\N\t1", TSV_LENIENT, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 1);
	assert_int_equal(res.skipped, 1);
}

static void test_long_line(void **state)
{
	size_t big = 3u << 20, hl = strlen(HEAD), rl = strlen(ROW);
	char *s = malloc(hl + big + 1 + 2 * rl + 1);
	struct result res;

	(void)state;
	assert_non_null(s);
	memcpy(s, HEAD, hl);
	memcpy(s + hl, ROW, rl);
	memset(s + hl + rl, 'A', big);
	s[hl + rl + big] = '\n';
	memcpy(s + hl + rl + big + 1, ROW, rl);
	run_n(s, hl + rl + big + 1 + rl, 0, &res);
	assert_int_equal(res.rc, -1);
	assert_non_null(strstr(res.err, "boot.tsv:6: line longer than 1048576 bytes"));
	run_n(s, hl + rl + big + 1 + rl, TSV_LENIENT, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 2);
	assert_int_equal(res.skipped, 1);
	/* a 3 MiB first line without LF: bounded, an error */
	memset(s, 'B', big);
	run_n(s, big, 0, &res);
	assert_int_equal(res.rc, -1);
	assert_non_null(strstr(res.err, "boot.tsv:1: line longer"));
	free(s);
}

static void test_garbage(void **state)
{
	unsigned char buf[65536];
	struct result res;
	unsigned x = 12345;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245 + 12345;
		buf[i] = (unsigned char)(x >> 16);
	}
	run_n((const char *)buf, sizeof(buf), 0, &res);
	assert_int_equal(res.rc, -1);
	/* garbage after a good header: rows rejected, never a crash */
	memcpy(buf, HEAD, strlen(HEAD));
	run_n((const char *)buf, sizeof(buf), 0, &res);
	assert_int_equal(res.rc, -1);
	run_n((const char *)buf, sizeof(buf), TSV_LENIENT, &res);
	assert_int_equal(res.rc, 0);
	assert_true(res.skipped > 0);
}

static void test_lenient_counts(void **state)
{
	struct result res;

	(void)state;
	run(HEAD ROW "bad\n" ROW "1\tc\n" ROW TRAILER, TSV_LENIENT, &res);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.rows, 3);
	assert_int_equal(res.skipped, 2);
	/* a bad header stays fatal */
	run("# boottrace-tsv 1\nnot a header\n" ROW, TSV_LENIENT, &res);
	assert_int_equal(res.rc, -1);
}

static void test_parse_row(void **state)
{
	static const char line[] =
		"123\tweb\\t1\t77\t10\t11\t1\tpuma\tsyscall\tlisten\t-98\t\\N\t0.0.0.0:3000";
	struct tsv_row row;
	char err[256];

	(void)state;
	assert_int_equal(tsv_parse_row(line, strlen(line), &row, err, sizeof(err)), 0);
	assert_int_equal(row.ts_ns, 123);
	assert_int_equal(row.cgroup_id, 77);
	assert_int_equal(row.pid, 10);
	assert_int_equal(row.tid, 11);
	assert_int_equal(row.ppid, 1);
	assert_int_equal(row.ret, -98);
	assert_int_equal(row.null, 1u << TSV_DUR_NS);
	assert_int_equal(row.f[TSV_CONTAINER].n, 6);
	assert_memory_equal(row.f[TSV_CONTAINER].p, "web\\t1", 6);
	assert_memory_equal(row.f[TSV_DETAIL].p, "0.0.0.0:3000", 12);
}

static void test_parse_int(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(tsv_parse_int("0", 1, false, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(tsv_parse_int("18446744073709551615", 20, false, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(tsv_parse_int("18446744073709551616", 20, false, &v), -2);
	assert_int_equal(tsv_parse_int("-1", 2, false, &v), -1);
	assert_int_equal(tsv_parse_int("-1", 2, true, &v), 0);
	assert_true((int64_t)v == -1);
	assert_int_equal(tsv_parse_int("-", 1, true, &v), -1);
	assert_int_equal(tsv_parse_int("", 0, true, &v), -1);
	assert_int_equal(tsv_parse_int("+1", 2, true, &v), -1);
	assert_int_equal(tsv_parse_int("9223372036854775807", 19, true, &v), 0);
	assert_int_equal(tsv_parse_int("9223372036854775808", 19, true, &v), -2);
}


/*
 * The reader's fast path (short rows, SIMD) must accept exactly the rows the
 * exact path (tsv_parse_row) accepts, with the same fields and values, and
 * leave every other line to it: each line below is read through the reader,
 * followed by enough rows for the fast path to see it, and compared.
 */
static void test_fast_path_agrees(void **state)
{
	static const char *const lines[] = {
		"1\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1000000000123\tctr-00042\t4138\t10168\t10169\t1\tapp\tsyscall\tread\t-98\t3423\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\tsyscall\tread\t-0\t0\t/etc/x",
		"1\tc\t\\N\t1\t1\t1\tsh\tsyscall\tread\t-\t0\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\tsyscall\tread\t--1\t0\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\tsyscall\tread\t+1\t0\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\tsyscall\tread\t-9223372036854775808\t0\t\\N",
		"1234567890123456\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"12345678901234567\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"12345678\tc\t123456789\t1234567890123456\t12345678901234567\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t18446744073709551615\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t18446744073709551616\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t\\N\t 1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t\\N\t1\xc3\xa9\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\tsyscall\tread\t5\t00000000000000001\t\\N",
		"\\N\tc\t\\N\t\\N\t\\N\t\\N\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\ta\\Nb",
		"1\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\Nx",
		"1\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\\N",
		"1\tc\\t1\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\x41\\\\",
		"1\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\textra",
		"1\tc\t\\N\t1\t1\t1\ts\x01h\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\t\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N",
		"1\tc\t\\N\t1\t1\t1\tsh\t\tmkdir\t\\N\t\\N\t\\N",
		"#\t\t\t\t\t\t\t\t\t\t\t",
		"# lost=1 events=2",
		/* past the 128-byte window, its TABs in it: a sched row */
		"1003031157101\tctr-00001\t4097\t10004\t10004\t1\tapp\tsched\tS\t2352\t18823\t"
		"wake=task waker=10016 wpid=10016 wcomm=3:app holder=0 hcomm=9:swapper/1 cpu=1",
		/* the same with an escape, a TAB, a control byte past the window */
		"1003031157101\tctr-00001\t4097\t10004\t10004\t1\tapp\tsched\tS\t2352\t18823\t"
		"wake=task waker=10016 wpid=10016 wcomm=4:a\\tp holder=0 hcomm=9:swapper/1 cpu=1",
		"1003031157101\tctr-00001\t4097\t10004\t10004\t1\tapp\tsched\tS\t2352\t18823\t"
		"wake=task waker=10016 wpid=10016 wcomm=3:app holder=0 hcomm=9:swapper/1\tcpu=1",
		"1003031157101\tctr-00001\t4097\t10004\t10004\t1\tapp\tsched\tS\t2352\t18823\t"
		"wake=task waker=10016 wpid=10016 wcomm=3:app holder=0 hcomm=9:swapper/1\x01cpu=1",
		"1003031157101\tctr-00001\t4097\t10004\t10004\t1\tapp\tsched\tS\t2352\t18823\t"
		"wake=task waker=10016 wpid=10016 wcomm=3:app holder=0 hcomm=9:swapper/1 cpu=1\\N",
		/* 255 and 256 bytes: the longest the fast path takes, and past it */
		"1\tc\t\\N\t1\t1\t1\tsh\texec\t\\N\t\\N\t\\N\t/"
		"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp",
		"1\tc\t\\N\t1\t1\t1\tsh\texec\t\\N\t\\N\t\\N\t/"
		"ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp",
		NULL, /* 127 bytes */
		NULL, /* 128 bytes */
	};
	static const char tail[] = "2\tc\t\\N\t1\t1\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n";
	char longline[2][160], padded[512], text[2048], err[300], rerr[512];
	size_t i, k, n = sizeof(lines) / sizeof(lines[0]);

	(void)state;
	for (k = 0; k < 2; k++) {
		const char *base = "1\tc\t\\N\t1\t1\t1\tsh\texec\t\\N\t\\N\t\\N\t/";
		size_t bl = strlen(base), want = 127 + k;

		memcpy(longline[k], base, bl);
		memset(longline[k] + bl, 'p', want - bl);
		longline[k][want] = '\0';
	}
	for (i = 0; i < n; i++) {
		const char *line = lines[i] ? lines[i] : longline[i - (n - 2)];
		size_t len = strlen(line);
		struct tsv_row want, got;
		int wrc, grc, j;
		FILE *tmp = tmpfile();
		struct tsv_reader *r;

		/* the exact path, with its contract's padding */
		memset(padded, 0, sizeof(padded));
		memcpy(padded, line, len);
		wrc = tsv_parse_row(padded, len, &want, err, sizeof(err));
		snprintf(text, sizeof(text), "%s%s\n%s%s%s", HEAD, line, tail, tail, tail);
		assert_non_null(tmp);
		fputs(text, tmp);
		fflush(tmp);
		rewind(tmp);
		r = tsv_reader__new("boot.tsv", fileno(tmp), 0);
		assert_non_null(r);
		grc = tsv_reader_next(r, &got);
		if (line[0] == '#') {
			/* a comment or the trailer, never a row: the next row is line 6 */
			assert_int_equal(grc, 1);
			assert_int_equal(tsv_reader_line(r), 6);
		} else if (wrc == 0) {
			if (grc != 1)
				print_error("line %zu: reader says '%s'\n", i, tsv_reader_error(r));
			assert_int_equal(grc, 1);
			assert_int_equal(got.null, want.null);
			assert_true(got.ts_ns == want.ts_ns && got.cgroup_id == want.cgroup_id &&
				    got.pid == want.pid && got.tid == want.tid &&
				    got.ppid == want.ppid && got.ret == want.ret &&
				    got.dur_ns == want.dur_ns);
			for (j = 0; j < TSV_NFIELDS; j++) {
				assert_int_equal(got.f[j].n, want.f[j].n);
				assert_memory_equal(got.f[j].p, want.f[j].p, want.f[j].n);
			}
		} else {
			assert_int_equal(grc, -1);
			snprintf(rerr, sizeof(rerr), "boot.tsv:5: %s; --lenient skips and counts such lines",
				 err);
			assert_string_equal(tsv_reader_error(r), rerr);
		}
		tsv_reader__free(r);
		fclose(tmp);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_trailer_lost),
		cmocka_unit_test(test_header_only),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_lenient_counts),
		cmocka_unit_test(test_parse_row),
		cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_fast_path_agrees),
	};

	return cmocka_run_group_tests_name("analyze_reader", tests, NULL, NULL);
}
