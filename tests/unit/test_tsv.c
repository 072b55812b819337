// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: common/tsv.c, the escaping of TSV text fields (tsv.h,
 * docs/tsv-format.md): the escape of each special byte, UTF-8 validity,
 * round trips, malformed escapes and the NULL marker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/tsv.h"

/* Escape @n bytes of @in and compare with the NUL-terminated @want. */
static void check_escape(const char *in, size_t n, const char *want)
{
	char out[TSV_ESCAPED_MAX(64)];
	size_t len;

	assert_true(n <= 64);
	len = tsv_escape(in, n, out);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(out, want, len);
}

/* escape then unescape gives @in back; the escaped text has no TAB/LF/CR. */
static void check_round_trip(const unsigned char *in, size_t n)
{
	char *esc = malloc(TSV_ESCAPED_MAX(n) + 1);
	char *back;
	size_t elen, i;
	long ulen;

	assert_non_null(esc);
	elen = tsv_escape((const char *)in, n, esc);
	assert_true(elen >= n);
	assert_true(elen <= TSV_ESCAPED_MAX(n));
	for (i = 0; i < elen; i++) {
		assert_int_not_equal(esc[i], '\t');
		assert_int_not_equal(esc[i], '\n');
		assert_int_not_equal(esc[i], '\r');
	}
	back = malloc(elen + 1);
	assert_non_null(back);
	ulen = tsv_unescape(esc, elen, back);
	assert_int_equal(ulen, (long)n);
	if (n)
		assert_memory_equal(back, in, n);
	free(back);
	free(esc);
}

static void test_special_bytes(void **state)
{
	(void)state;
	check_escape("\\", 1, "\\\\");
	check_escape("\t", 1, "\\t");
	check_escape("\n", 1, "\\n");
	check_escape("\r", 1, "\\r");
	check_escape("\x01", 1, "\\x01");
	check_escape("\x1f", 1, "\\x1f");
	check_escape("\x7f", 1, "\\x7f");
	check_escape("\0", 1, "\\x00");
	check_escape("\x1b", 1, "\\x1b");
	check_escape("a\tb\\c\nd\re", 9, "a\\tb\\\\c\\nd\\re");
	check_escape("", 0, "");
}

/*
 * Each byte value at each place of a run of plain bytes (across the
 * escaper's 8-byte steps and its byte-at-a-time tail) escapes as it does
 * alone, and the plain bytes around it stay as they are.
 */
static void test_byte_in_plain_run(void **state)
{
	char in[19], alone[8], want[40];
	size_t pos, alen;
	int c;

	(void)state;
	for (c = 0; c < 256; c++) {
		alen = tsv_escape((const char *)&(char){ (char)c }, 1, alone);
		for (pos = 0; pos < sizeof(in); pos++) {
			memset(in, 'a', sizeof(in));
			in[pos] = (char)c;
			memset(want, 'a', pos);
			memcpy(want + pos, alone, alen);
			memset(want + pos + alen, 'a', sizeof(in) - pos - 1);
			want[sizeof(in) - 1 + alen] = '\0';
			check_escape(in, sizeof(in), want);
		}
	}
}

static void test_printable_ascii_unchanged(void **state)
{
	char in[0x7f - 0x20];
	int c;

	(void)state;
	for (c = 0x20; c < 0x7f; c++)
		in[c - 0x20] = (char)c;
	{
		char out[TSV_ESCAPED_MAX(sizeof(in))];
		size_t len = tsv_escape(in, sizeof(in), out);
		size_t i, j = 0;

		/* only the backslash grows, by one byte */
		assert_int_equal(len, sizeof(in) + 1);
		for (i = 0; i < sizeof(in); i++) {
			assert_int_equal(out[j], in[i]);
			j += in[i] == '\\' ? 2 : 1;
		}
	}
}

static void test_valid_utf8_unchanged(void **state)
{
	static const char *const valid[] = {
		"\xc2\x80",		/* U+0080, smallest 2-byte */
		"\xc3\xa9",		/* é */
		"\xdf\xbf",		/* U+07FF */
		"\xe0\xa0\x80",		/* U+0800, smallest 3-byte */
		"\xe2\x82\xac",		/* € */
		"\xed\x9f\xbf",		/* U+D7FF, just below the surrogates */
		"\xee\x80\x80",		/* U+E000, just above */
		"\xef\xbf\xbf",		/* U+FFFF */
		"\xf0\x90\x80\x80",	/* U+10000, smallest 4-byte */
		"\xf0\x9f\x98\x80",	/* 😀 */
		"\xf4\x8f\xbf\xbf",	/* U+10FFFF, the largest */
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		check_escape(valid[i], strlen(valid[i]), valid[i]);
}

static void test_invalid_utf8_hex(void **state)
{
	(void)state;
	check_escape("\x80", 1, "\\x80");			/* lone continuation */
	check_escape("\xbf", 1, "\\xbf");
	check_escape("\xc0\xaf", 2, "\\xc0\\xaf");		/* overlong '/' */
	check_escape("\xc1\xbf", 2, "\\xc1\\xbf");
	check_escape("\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf");	/* overlong 3-byte */
	check_escape("\xf0\x80\x80\xaf", 4, "\\xf0\\x80\\x80\\xaf"); /* overlong 4 */
	check_escape("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");	/* surrogate D800 */
	check_escape("\xed\xbf\xbf", 3, "\\xed\\xbf\\xbf");	/* surrogate DFFF */
	check_escape("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80"); /* > 10FFFF */
	check_escape("\xf5\x80\x80\x80", 4, "\\xf5\\x80\\x80\\x80");
	check_escape("\xff", 1, "\\xff");
	check_escape("\xe2\x82", 2, "\\xe2\\x82");		/* truncated */
	check_escape("\xe2\x82X", 3, "\\xe2\\x82X");		/* cut by ASCII */
	check_escape("\xf0\x9f\x98", 3, "\\xf0\\x9f\\x98");	/* truncated 4 */
	/* a bad byte does not swallow the valid sequence after it */
	check_escape("\x80\xc3\xa9", 3, "\\x80\xc3\xa9");
}

static void test_utf8_seq_len(void **state)
{
	(void)state;
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"a", 1), 1);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 2), 0);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\x80", 1), 0);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xc0\xaf", 2), 0);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	assert_int_equal(tsv_utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
}

static void test_round_trip_all_bytes(void **state)
{
	unsigned char in[256];
	int i;

	(void)state;
	for (i = 0; i < 256; i++)
		in[i] = (unsigned char)i;
	check_round_trip(in, sizeof(in));
	for (i = 0; i < 256; i++)
		in[i] = (unsigned char)(255 - i);
	check_round_trip(in, sizeof(in));
	for (i = 0; i < 256; i++)
		check_round_trip(in + i, 1);
}

static void test_round_trip_random(void **state)
{
	/* a fixed-seed xorshift: reproducible, independent of libc's rand() */
	uint32_t x = 0x12345678;
	unsigned char buf[512];
	int it;

	(void)state;
	for (it = 0; it < 1000; it++) {
		size_t n, i;

		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		n = x % sizeof(buf);
		for (i = 0; i < n; i++) {
			x ^= x << 13; x ^= x >> 17; x ^= x << 5;
			/* every other buffer leans to UTF-8 lead/continuation bytes */
			buf[i] = (unsigned char)((it & 1) ? 0x80 | (x & 0x7f) : x);
		}
		check_round_trip(buf, n);
	}
}

static void test_unescape_valid(void **state)
{
	char out[32];
	long n;

	(void)state;
	n = tsv_unescape("a\\tb\\\\c\\nd\\re", 13, out);
	assert_int_equal(n, 9);
	assert_memory_equal(out, "a\tb\\c\nd\re", 9);
	n = tsv_unescape("\\x00\\x7f\\xFF\\xAb", 16, out);
	assert_int_equal(n, 4);
	assert_memory_equal(out, "\x00\x7f\xff\xab", 4);
	n = tsv_unescape("", 0, out);
	assert_int_equal(n, 0);
	/* \N is not special to tsv_unescape */
	n = tsv_unescape("\\N", 2, out);
	assert_int_equal(n, -1);
}

static void test_unescape_malformed(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(tsv_unescape("\\", 1, out), -1);	/* lone */
	assert_int_equal(tsv_unescape("abc\\", 4, out), -1);	/* trailing */
	assert_int_equal(tsv_unescape("\\q", 2, out), -1);	/* unknown */
	assert_int_equal(tsv_unescape("a\\qb", 4, out), -1);
	assert_int_equal(tsv_unescape("\\x", 2, out), -1);	/* no digit */
	assert_int_equal(tsv_unescape("\\x4", 3, out), -1);	/* one digit */
	assert_int_equal(tsv_unescape("\\xg0", 4, out), -1);	/* non-hex */
	assert_int_equal(tsv_unescape("\\x0g", 4, out), -1);
	assert_int_equal(tsv_unescape("\\x-1", 4, out), -1);
	/* the length bounds the input: "\x41" cut to 3 bytes is malformed */
	assert_int_equal(tsv_unescape("\\x41", 3, out), -1);
	assert_int_equal(tsv_unescape("\\x41", 4, out), 1);
	assert_int_equal(out[0], 'A');
}

static void test_is_null(void **state)
{
	(void)state;
	assert_true(tsv_is_null("\\N", 2));
	assert_true(tsv_is_null(TSV_NULL, strlen(TSV_NULL)));
	assert_true(tsv_is_null("\\Nxyz", 2));
	assert_false(tsv_is_null("\\N", 1));
	assert_false(tsv_is_null("\\Nx", 3));
	assert_false(tsv_is_null("\\n", 2));
	assert_false(tsv_is_null("N", 1));
	assert_false(tsv_is_null("", 0));
	assert_false(tsv_is_null("\\\\N", 3));
}

static void test_no_raw_separators(void **state)
{
	unsigned char in[64];
	char out[TSV_ESCAPED_MAX(sizeof(in))];
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = "\t\n\r\\"[i % 4];
	len = tsv_escape((const char *)in, sizeof(in), out);
	assert_int_equal(len, 2 * sizeof(in));
	assert_null(memchr(out, '\t', len));
	assert_null(memchr(out, '\n', len));
	assert_null(memchr(out, '\r', len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_bytes),
		cmocka_unit_test(test_printable_ascii_unchanged),
		cmocka_unit_test(test_byte_in_plain_run),
		cmocka_unit_test(test_valid_utf8_unchanged),
		cmocka_unit_test(test_invalid_utf8_hex),
		cmocka_unit_test(test_utf8_seq_len),
		cmocka_unit_test(test_round_trip_all_bytes),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_unescape_valid),
		cmocka_unit_test(test_unescape_malformed),
		cmocka_unit_test(test_is_null),
		cmocka_unit_test(test_no_raw_separators),
	};

	return cmocka_run_group_tests_name("tsv", tests, NULL, NULL);
}
