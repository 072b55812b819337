// SPDX-License-Identifier: BSD-2-Clause
/* Text lines fitted to a width: see wrap.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/out/wrap.h"

void wrap_printf(struct wrap_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if (b->s && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		if (array_grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1, 128) < 0) {
			b->failed = true;
			return;
		}
		b->s[b->len] = '\0';
	}
}

void wrap_reset(struct wrap_buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->s)
		b->s[0] = '\0';
}

void wrap_buf_free(struct wrap_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/*
 * The bytes of the unit at @s that a line never breaks inside: a TSV
 * escape ("\\", "\t", "\xHH") or one UTF-8 character. At least 1.
 */
static size_t unit_len(const char *s)
{
	size_t n = 1;

	if (s[0] == '\\' && s[1]) {
		if (s[1] == 'x' && s[2] && s[3])
			return 4;
		return 2;
	}
	while (((unsigned char)s[n] & 0xc0) == 0x80)
		n++;
	return n;
}

/* The columns of a unit of @n bytes at @s: an escape is as wide as its text. */
static size_t unit_cols(const char *s, size_t n)
{
	return s[0] == '\\' ? n : 1;
}

size_t wrap_cols(const char *s, size_t n)
{
	size_t i, cols = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			cols++;
	return cols;
}

/* @n bytes at @s, without their trailing spaces. */
static void put_trimmed(FILE *f, const char *s, size_t n)
{
	while (n && s[n - 1] == ' ')
		n--;
	fwrite(s, 1, n, f);
}

static void put_spaces(FILE *f, size_t n)
{
	while (n--)
		putc(' ', f);
}

/*
 * wrap_fill() with its first line starting at column @col (already printed).
 * A line breaks at a space after a comma or a semicolon when one is in its
 * last quarter (a list's item stays whole: "docker 26666 73.8%"), else at
 * its last space.
 */
static void fill_at(FILE *f, const char *p, size_t width, size_t indent, size_t col)
{
	size_t room = width > col ? width - col : 1;

	for (;;) {
		size_t i = 0, cols = 0, space = 0, list = 0, list_col = 0, u = 0;

		for (;;) {
			if (p[i] == ' ' && i) {
				space = i;
				if (p[i - 1] == ',' || p[i - 1] == ';') {
					list = i;
					list_col = cols;
				}
			}
			if (!p[i])
				break;
			u = unit_len(p + i);
			if (cols + unit_cols(p + i, u) > room)
				break;
			cols += unit_cols(p + i, u);
			i += u;
		}
		if (!p[i]) {
			put_trimmed(f, p, i);
			putc('\n', f);
			return;
		}
		if (list && list_col * 4 >= room * 3)
			space = list;
		if (space) {
			put_trimmed(f, p, space);
			p += space + 1;
		} else {			/* a word longer than the line */
			if (!i)
				i = u;		/* a unit wider than the room: it alone */
			fwrite(p, 1, i, f);
			p += i;
		}
		putc('\n', f);
		put_spaces(f, indent);
		room = width - indent;
	}
}

/* @width (0: WRAP_WIDTH) and @indent, the indent cut to leave WRAP_MIN_ROOM. */
static void fit(size_t *width, size_t *indent)
{
	if (!*width)
		*width = WRAP_WIDTH;
	if (*indent + WRAP_MIN_ROOM > *width)
		*indent = *width > WRAP_MIN_ROOM ? *width - WRAP_MIN_ROOM : 0;
}

void wrap_fill(FILE *f, const char *s, size_t width, size_t indent)
{
	fit(&width, &indent);
	fill_at(f, s, width, indent, 0);
}

void wrap_line(FILE *f, const char *head, const char *tail, size_t width, size_t indent)
{
	size_t hn = strlen(head), tn = strlen(tail);
	char *h;

	fit(&width, &indent);
	if (!tn) {
		fill_at(f, head, width, indent, 0);
		return;
	}
	if (wrap_cols(head, hn) + 1 + wrap_cols(tail, tn) <= width) {
		fprintf(f, "%s %s\n", head, tail);
		return;
	}
	while (hn && head[hn - 1] == ' ')
		hn--;
	h = strndup(head, hn);
	if (h) {
		fill_at(f, h, width, indent, 0);
		free(h);
	} else {			/* out of memory: the head as it is */
		fwrite(head, 1, hn, f);
		putc('\n', f);
	}
	put_spaces(f, indent);
	fill_at(f, tail, width, indent, indent);
}

void wrap_lines(FILE *f, const char *text, size_t n, size_t width, size_t indent)
{
	const char *end = text + n;

	fit(&width, &indent);
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
		char *line = strndup(text, len);

		if (line) {
			fill_at(f, line, width, indent, 0);
			free(line);
		} else {		/* out of memory: the line as it is */
			fwrite(text, 1, len, f);
			putc('\n', f);
		}
		text += len + (nl ? 1 : 0);
	}
}
