/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wrap: text lines fitted to a terminal's width. A line of the critical
 * path reached 272 columns on a docker run (233 of its 463 lines over
 * 120): its detail (who held the CPU, a file's path, a span) now goes on
 * lines of its own, indented, broken at spaces, and a word longer than a
 * line (a hostile path) is broken where the line ends. Nothing is cut:
 * the text less its line breaks and indents is the text given, but for
 * the one space a break replaces. Columns are counted in UTF-8 code
 * points (the TSV's escaping leaves no control byte in a string; a wide
 * character, CJK or emoji, is counted as one column).
 *
 * A wrap_buf builds one line before it is printed: append with
 * wrap_printf(), print with wrap_line() or wrap_fill(), reuse after
 * wrap_reset(), free with wrap_buf_free().
 */
#ifndef ANALYZE_WRAP_H
#define ANALYZE_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The width text output fits by default: a terminal's, as wide as most are. */
#define WRAP_WIDTH 120

/* The fewest columns a line keeps for text after its indent. */
#define WRAP_MIN_ROOM 20

struct wrap_buf {
	char *s;		/* NUL-terminated; NULL until the first append */
	size_t len, cap;
	bool failed;		/* an append ran out of memory: what came after is lost */
};

/*
 * wrap_printf - append printf(3) output to @b. Out of memory it sets
 * @b->failed and appends nothing more; the buffer stays valid.
 */
void wrap_printf(struct wrap_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* wrap_str - the text of @b ("" before the first append). */
static inline const char *wrap_str(const struct wrap_buf *b)
{
	return b->s ? b->s : "";
}

/* wrap_reset - empty @b, keeping its memory (and clearing failed). */
void wrap_reset(struct wrap_buf *b);

/* wrap_buf_free - free @b's memory; @b is empty after. */
void wrap_buf_free(struct wrap_buf *b);

/* wrap_cols - the columns of @n bytes at @s (UTF-8 code points). */
size_t wrap_cols(const char *s, size_t n);

/*
 * wrap_fill - print @s and a newline to @f, in lines of at most @width
 * columns: the first from column 0, the next ones @indent spaces in. A
 * line breaks at its last space that fits (the space is not printed),
 * else inside a word (not inside a UTF-8 character, nor a "\xHH" escape).
 * An @indent that leaves fewer than WRAP_MIN_ROOM columns is cut to leave
 * them; a @width of 0 is WRAP_WIDTH.
 */
void wrap_fill(FILE *f, const char *s, size_t width, size_t indent);

/*
 * wrap_line - print @head and @tail, separated by one space, as one line
 * when they fit in @width; else @head alone (wrap_fill()ed, its trailing
 * spaces dropped), then @tail on lines of its own @indent spaces in: the
 * columns of @head stay in place and the detail below them. An empty
 * @tail prints @head alone.
 */
void wrap_line(FILE *f, const char *head, const char *tail, size_t width, size_t indent);

/*
 * wrap_lines - each line of the @n bytes at @text (its last newline
 * optional) wrap_fill()ed: a block another printer wrote, fitted.
 */
void wrap_lines(FILE *f, const char *text, size_t n, size_t width, size_t indent);

#endif /* ANALYZE_WRAP_H */
