// SPDX-License-Identifier: BSD-2-Clause
/* Escaping of TSV text fields: see tsv.h and docs/tsv-format.md. */
#include <fnmatch.h>
#include <stdint.h>
#include <string.h>

#include "common/tsv.h"

static const char hexdigits[] = "0123456789abcdef";

size_t tsv_utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned int cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0; /* continuation byte, 0xc0/0xc1 or 0xf5.. */
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * Whether the 8 bytes of @w are all printable ASCII other than the
 * backslash (0x20 to 0x7e, not 0x5c), each written as it is. Exact, by
 * the byte tests of "Bit Twiddling Hacks" (hasless, hasmore, haszero): a
 * byte below 0x20, above 0x7e or equal to 0x5c leaves its top bit in one
 * of the masks, and none is left without one.
 */
static int plain8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ULL, tops = 0x8080808080808080ULL;
	uint64_t below = (w - ones * 0x20) & ~w;
	uint64_t above = (w + ones) | w;
	uint64_t bs = w ^ (ones * '\\');

	return !((below | above | ((bs - ones) & ~bs)) & tops);
}

size_t tsv_escape(const char *in, size_t n, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	char *o = out;
	size_t i = 0, k;
	uint64_t w;

	while (i < n) {
		unsigned char c = s[i];

		/*
		 * Eight plain bytes at a time: names and paths are mostly
		 * plain, and a byte at a time this was 16% of the collector's
		 * CPU on a stream of getppid rows (as put_u64() in output.c).
		 */
		if (n - i >= 8) {
			memcpy(&w, s + i, 8);
			if (plain8(w)) {
				memcpy(o, &w, 8);
				o += 8;
				i += 8;
				continue;
			}
		}

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			*o++ = (char)c;
			i++;
			continue;
		}
		switch (c) {
		case '\\': *o++ = '\\'; *o++ = '\\'; i++; continue;
		case '\t': *o++ = '\\'; *o++ = 't'; i++; continue;
		case '\n': *o++ = '\\'; *o++ = 'n'; i++; continue;
		case '\r': *o++ = '\\'; *o++ = 'r'; i++; continue;
		}
		k = c >= 0x80 ? tsv_utf8_seq_len(s + i, n - i) : 0;
		if (k) {
			while (k--)
				*o++ = (char)s[i++];
			continue;
		}
		*o++ = '\\';
		*o++ = 'x';
		*o++ = hexdigits[c >> 4];
		*o++ = hexdigits[c & 15];
		i++;
	}
	return (size_t)(o - out);
}

int tsv_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long tsv_unescape(const char *in, size_t n, char *out)
{
	char *o = out;
	size_t i = 0;

	while (i < n) {
		if (in[i] != '\\') {
			*o++ = in[i++];
			continue;
		}
		if (i + 1 >= n)
			return -1;
		switch (in[i + 1]) {
		case '\\': *o++ = '\\'; break;
		case 't': *o++ = '\t'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 'x': {
			int hi, lo;

			if (i + 3 >= n)
				return -1;
			hi = tsv_hexval(in[i + 2]);
			lo = tsv_hexval(in[i + 3]);
			if (hi < 0 || lo < 0)
				return -1;
			*o++ = (char)(hi << 4 | lo);
			i += 4;
			continue;
		}
		default:
			return -1;
		}
		i += 2;
	}
	return (long)(o - out);
}

bool tsv_glob_match(const char *in, size_t n, const char *glob, char *scratch)
{
	long m = tsv_unescape(in, n, scratch);

	if (m < 0)
		return false;
	scratch[m] = '\0';
	return !memchr(scratch, '\0', (size_t)m) && fnmatch(glob, scratch, 0) == 0;
}

const char *tsv_len_str(const char *p, const char *end, const char **s, size_t *n)
{
	size_t len = 0;

	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		len = len * 10 + (size_t)(*p - '0');
		if (len > (1u << 20))
			return NULL;
	}
	if (p >= end || *p != ':' || (size_t)(end - p - 1) < len)
		return NULL;
	*s = p + 1;
	*n = len;
	return p + 1 + len;
}
