// SPDX-License-Identifier: BSD-2-Clause
/* A small JSON reader: see json.h. */
#include <string.h>

#include "collector/json.h"

#define MAX_DEPTH 64

static const char *ws(const char *p, const char *end)
{
	while (p && p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the string at @p ('"' there), or NULL. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\') {
			if (++p >= end)
				return NULL;
		} else if (*p == '"') {
			return p + 1;
		}
	}
	return NULL;
}

static const char *skip(const char *p, const char *end, int depth)
{
	char close;

	p = ws(p, end);
	if (!p || p >= end || depth > MAX_DEPTH)
		return NULL;
	if (*p == '"')
		return skip_string(p, end);
	if (*p == '{' || *p == '[') {
		close = *p == '{' ? '}' : ']';
		p = ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		while (p && p < end) {
			if (close == '}') {
				if (*p != '"' || !(p = ws(skip_string(p, end), end)) || p >= end ||
				    *p != ':')
					return NULL;
				p++;
			}
			p = ws(skip(p, end, depth + 1), end);
			if (!p || p >= end)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p = ws(p + 1, end);
		}
		return NULL;
	}
	/* a number, true, false, null: up to a delimiter */
	while (p < end && !strchr(",}] \t\r\n", *p))
		p++;
	return p;
}

const char *json_skip(const char *p, const char *end)
{
	return skip(p, end, 0);
}

const char *json_next(const char *p, const char *end, const char **it)
{
	const char *q;

	p = ws(p, end);
	if (!p || p >= end || (*p != '{' && *p != '['))
		return NULL;
	if (!*it) {
		q = ws(p + 1, end);
	} else {
		q = *it;
		if (*p == '{') {
			q = ws(skip_string(q, end), end);
			if (!q || q >= end || *q != ':')
				return NULL;
			q++;
		}
		q = ws(json_skip(q, end), end);
		if (!q || q >= end || *q != ',')
			return NULL;
		q = ws(q + 1, end);
	}
	if (!q || q >= end || *q == '}' || *q == ']')
		return NULL;
	if (*p == '{' && *q != '"')
		return NULL;
	*it = q;
	return q;
}

const char *json_member(const char *p, const char *end, const char *key)
{
	const char *it = NULL, *k, *v;
	size_t kn = strlen(key);
	char name[256];
	long len;

	p = ws(p, end);
	if (!p || p >= end || *p != '{')
		return NULL;
	while ((k = json_next(p, end, &it))) {
		len = json_string(k, end, name, sizeof(name));
		v = ws(skip_string(k, end), end);
		if (len < 0 || !v || v >= end || *v != ':')
			return NULL;
		if ((size_t)len == kn && memcmp(name, key, kn) == 0)
			return ws(v + 1, end);
	}
	return NULL;
}

static int hex4(const char *p, const char *end, unsigned *v)
{
	int i;

	*v = 0;
	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* Append one byte at @len when room allows (one byte kept for the NUL). */
static void put(char *out, size_t n, size_t *len, char c)
{
	if (*len + 1 < n)
		out[*len] = c;
	(*len)++;
}

static void put_utf8(char *out, size_t n, size_t *len, unsigned cp)
{
	if (cp < 0x80) {
		put(out, n, len, (char)cp);
	} else if (cp < 0x800) {
		put(out, n, len, (char)(0xc0 | cp >> 6));
		put(out, n, len, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		put(out, n, len, (char)(0xe0 | cp >> 12));
		put(out, n, len, (char)(0x80 | ((cp >> 6) & 0x3f)));
		put(out, n, len, (char)(0x80 | (cp & 0x3f)));
	} else {
		put(out, n, len, (char)(0xf0 | cp >> 18));
		put(out, n, len, (char)(0x80 | ((cp >> 12) & 0x3f)));
		put(out, n, len, (char)(0x80 | ((cp >> 6) & 0x3f)));
		put(out, n, len, (char)(0x80 | (cp & 0x3f)));
	}
}

long json_string(const char *p, const char *end, char *out, size_t n)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t len = 0;
	unsigned cp, lo;
	const char *e;

	p = ws(p, end);
	if (!p || p >= end || *p != '"' || !skip_string(p, end))
		return -1;
	for (p++; *p != '"'; p++) {
		if (*p != '\\') {
			put(out, n, &len, *p);
			continue;
		}
		p++;
		if (*p == 'u') {
			if (hex4(p + 1, end, &cp) < 0)
				return -1;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p > 6 && p[1] == '\\' && p[2] == 'u' &&
			    hex4(p + 3, end, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			put_utf8(out, n, &len, cp);
		} else if ((e = strchr(esc_in, *p)) && *p) {
			put(out, n, &len, esc_out[e - esc_in]);
		} else {
			return -1;
		}
	}
	if (n)
		out[len < n ? len : n - 1] = '\0';
	return (long)len;
}
