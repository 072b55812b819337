// SPDX-License-Identifier: BSD-2-Clause
/* The frames of a stack row, parsed strictly (frames.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze/read/frames.h"
#include "common/tsv.h"

static int fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "0x" and 1 to 16 hex digits, exactly the bytes [@s, @e): 0 and *@v, or -1. */
static int parse_hex(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (e - s < 3 || e - s > 18 || s[0] != '0' || s[1] != 'x')
		return -1;
	for (s += 2; s < e; s++) {
		int h = tsv_hexval(*s);

		if (h < 0)
			return -1;
		x = x << 4 | (uint64_t)h;
	}
	*v = x;
	return 0;
}

/* A decimal LEN then ':' at *@p (before @e): 0 with *@len and *@p past the ':', or -1. */
static int parse_len(const char **p, const char *e, size_t *len)
{
	const char *s = *p;
	size_t x = 0;

	if (s >= e || *s < '0' || *s > '9')
		return -1;
	for (; s < e && *s >= '0' && *s <= '9'; s++) {
		if (x > (SIZE_MAX - 9) / 10)
			return -1;
		x = x * 10 + (size_t)(*s - '0');
	}
	if (s >= e || *s != ':')
		return -1;
	*len = x;
	*p = s + 1;
	return 0;
}

/* The end of a frame without LEN that starts at @s: the next space, or @e. */
static const char *word_end(const char *s, const char *e)
{
	const char *sp = memchr(s, ' ', (size_t)(e - s));

	return sp ? sp : e;
}

/*
 * One frame at *@p (before @e) into @f; *@p is left at its end (a space
 * or @e). 0, or -1 with a message.
 */
static int parse_frame(const char **p, const char *e, struct frame *f, char *err, size_t errsz)
{
	const char *s = *p, *w, *plus;
	size_t len, i;

	memset(f, 0, sizeof(*f));
	if (e - s < 2 || s[1] != ':')
		return fail(err, errsz, "bad frame: no kind");
	switch (s[0]) {
	case 'k':
		w = word_end(s + 2, e);
		if (parse_hex(s + 2, w, &f->off) == 0) {
			f->kind = FRAME_KADDR;
			break;
		}
		plus = NULL;
		for (i = 0; s + 2 + i + 2 < w; i++)
			if (s[2 + i] == '+' && s[3 + i] == '0' && s[4 + i] == 'x')
				plus = s + 2 + i;
		if (!plus || plus == s + 2 || parse_hex(plus + 1, w, &f->off) < 0)
			return fail(err, errsz, "bad kernel frame");
		f->kind = FRAME_KSYM;
		f->name = s + 2;
		f->name_len = (size_t)(plus - (s + 2));
		break;
	case 'b':
		w = word_end(s + 2, e);
		if (w - (s + 2) < 2 * FRAMES_BUILD_ID + 4 || s[2 + 2 * FRAMES_BUILD_ID] != '+')
			return fail(err, errsz, "bad build id frame");
		for (i = 0; i < FRAMES_BUILD_ID; i++) {
			int hi = tsv_hexval(s[2 + 2 * i]), lo = tsv_hexval(s[3 + 2 * i]);

			if (hi < 0 || lo < 0)
				return fail(err, errsz, "bad build id frame");
			f->build_id[i] = (uint8_t)(hi << 4 | lo);
		}
		if (parse_hex(s + 3 + 2 * FRAMES_BUILD_ID, w, &f->off) < 0)
			return fail(err, errsz, "bad build id frame offset");
		f->kind = FRAME_BUILD_ID;
		break;
	case 'f':
	case 'j':
	case 'i':
		s += 2;
		if (parse_len(&s, e, &len) < 0 || len == 0 || len > (size_t)(e - s))
			return fail(err, errsz, "bad %s frame length",
				    *p[0] == 'f' ? "file" : *p[0] == 'j' ? "jit" : "interpreter");
		f->name = s;
		f->name_len = len;
		s += len;
		if ((*p)[0] != 'f') {
			f->kind = (*p)[0] == 'j' ? FRAME_JIT : FRAME_INTERP;
			w = s;
			break;
		}
		w = word_end(s, e);
		if (w - s < 1 || s[0] != '+' || parse_hex(s + 1, w, &f->off) < 0)
			return fail(err, errsz, "bad file frame offset");
		f->kind = FRAME_FILE;
		break;
	case 'u':
		w = word_end(s + 2, e);
		if (parse_hex(s + 2, w, &f->off) < 0)
			return fail(err, errsz, "bad user address frame");
		f->kind = FRAME_UADDR;
		break;
	default:
		return fail(err, errsz, "bad frame: unknown kind '%c'",
			    (unsigned char)s[0] >= 0x20 && (unsigned char)s[0] < 0x7f ? s[0] : '?');
	}
	if (w != e && *w != ' ')
		return fail(err, errsz, "bad frame: junk after it");
	f->text = *p;
	f->text_len = (size_t)(w - *p);
	*p = w;
	return 0;
}

int frames_parse(const char *s, size_t n, struct frame *out, char *err, size_t errsz)
{
	const char *p = s, *e = s + n;
	struct frame tmp;
	int k = 0;

	if (n == 0)
		return 0;
	for (;;) {
		if (k == FRAMES_MAX)
			return fail(err, errsz, "more than %d frames", FRAMES_MAX);
		if (parse_frame(&p, e, out ? &out[k] : &tmp, err, errsz) < 0)
			return -1;
		k++;
		if (p == e)
			return k;
		p++;	/* the space */
		if (p == e)
			return fail(err, errsz, "bad frames: trailing space");
	}
}

int frames_parse_field(const char *esc, size_t n, char *scratch, struct frame *out,
		       char *err, size_t errsz)
{
	long u;

	if (tsv_is_null(esc, n))
		return 0;
	u = tsv_unescape(esc, n, scratch);
	if (u < 0)
		return fail(err, errsz, "bad escape in frames");
	return frames_parse(scratch, (size_t)u, out, err, errsz);
}
