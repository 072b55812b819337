// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_escape: the escaping of TSV text fields (common/tsv.h).
 *
 * For any bytes x:
 *   - escape(x) fits in TSV_ESCAPED_MAX(|x|) and holds no byte < 0x20 and no
 *     0x7f (so no TAB, LF or CR: a field can never split a row), and is valid
 *     UTF-8, checked by a validator written here from the Unicode standard's
 *     table of well-formed sequences, not by tsv_utf8_seq_len();
 *   - unescape(escape(x)) == x;
 *   - tsv_utf8_seq_len() agrees with that validator at every offset;
 *   - unescape(x), into a buffer of exactly |x| bytes (as its contract
 *     allows), never writes past it, and when it succeeds its output
 *     escapes and unescapes back to itself.
 * A violation aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tsv.h"

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz_escape: %s: ", #cond);        \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			abort();                                            \
		}                                                           \
	} while (0)

/*
 * Length of the well-formed UTF-8 sequence at @s (Unicode 15, table 3-7),
 * 0 when ill-formed.
 */
static size_t ref_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] <= 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] == 0xe0)
		len = 3, lo = 0xa0;
	else if (s[0] >= 0xe1 && s[0] <= 0xec)
		len = 3;
	else if (s[0] == 0xed)
		len = 3, hi = 0x9f;
	else if (s[0] >= 0xee && s[0] <= 0xef)
		len = 3;
	else if (s[0] == 0xf0)
		len = 4, lo = 0x90;
	else if (s[0] >= 0xf1 && s[0] <= 0xf3)
		len = 4;
	else if (s[0] == 0xf4)
		len = 4, hi = 0x8f;
	else
		return 0;
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void check_escaped(const unsigned char *e, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		CHECK(e[i] >= 0x20 && e[i] != 0x7f, "byte 0x%02x at %zu of the escaped form",
		      e[i], i);
		k = ref_utf8_len(e + i, n - i);
		CHECK(k > 0, "invalid UTF-8 at %zu of the escaped form", i);
		i += k;
	}
}

static void round_trip(const unsigned char *x, size_t n)
{
	char *e = malloc(TSV_ESCAPED_MAX(n) + 1), *u;
	size_t elen;
	long ulen;

	CHECK(e, "out of memory");
	elen = tsv_escape((const char *)x, n, e);
	CHECK(elen <= TSV_ESCAPED_MAX(n), "escaped %zu bytes into %zu", n, elen);
	CHECK(elen >= n, "escaped %zu bytes into %zu (shorter)", n, elen);
	check_escaped((const unsigned char *)e, elen);
	u = malloc(elen + 1);
	CHECK(u, "out of memory");
	ulen = tsv_unescape(e, elen, u);
	CHECK(ulen >= 0, "unescape of an escaped field failed");
	CHECK((size_t)ulen == n && memcmp(u, x, n) == 0,
	      "unescape(escape(x)) != x (%ld bytes, not %zu)", ulen, n);
	free(u);
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *u;
	size_t i;
	long ulen;

	/* 1. escape → unescape is the identity, and the escaped form is clean */
	round_trip(data, size);

	/* 2. the UTF-8 decoder the escaping relies on */
	for (i = 0; i < size; i++) {
		size_t got = tsv_utf8_seq_len(data + i, size - i);
		size_t want = ref_utf8_len(data + i, size - i);

		CHECK(got == want, "tsv_utf8_seq_len at %zu of %zu: %zu, not %zu", i, size,
		      got, want);
	}

	/* 3. unescape of anything: at most @size bytes written, never more */
	u = malloc(size ? size : 1);
	CHECK(u, "out of memory");
	ulen = tsv_unescape((const char *)data, size, u);
	CHECK(ulen >= -1 && ulen <= (long)size, "unescape returned %ld for %zu bytes", ulen,
	      size);
	if (ulen >= 0)
		round_trip((const unsigned char *)u, (size_t)ulen);
	(void)tsv_is_null((const char *)data, size);
	free(u);
	return 0;
}
