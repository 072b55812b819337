// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/out/wrap.c, text fitted to a width. Lines worked out by
 * hand (where a line breaks: the last space, a list's comma, inside a word
 * longer than a line but never inside a "\xHH" escape or a UTF-8
 * character), then a property check over random text: no line wider than
 * the width, every continuation indented, and the text less its breaks
 * and indents the text given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/out/wrap.h"
#include "tests/unit/rng.h"

/* What wrap_fill(@s, @width, @indent) prints (caller frees). */
static char *filled(const char *s, size_t width, size_t indent)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	wrap_fill(f, s, width, indent);
	assert_int_equal(fclose(f), 0);
	return out;
}

static char *lined(const char *head, const char *tail, size_t width, size_t indent)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	assert_non_null(f);
	wrap_line(f, head, tail, width, indent);
	assert_int_equal(fclose(f), 0);
	return out;
}

/* A random number below @n. */
static size_t below(uint64_t *r, size_t n)
{
	return (size_t)(rng_next(r) % n);
}

static void check(char *got, const char *want)
{
	assert_string_equal(got, want);
	free(got);
}

static void test_fits(void **state)
{
	(void)state;
	check(filled("a short line", 20, 4), "a short line\n");
	check(filled("", 20, 4), "\n");
	/* exactly the width */
	check(filled("0123456789 123456789", 20, 4), "0123456789 123456789\n");
	/* trailing spaces are dropped, inner ones kept */
	check(filled("a  b   ", 20, 4), "a  b\n");
}

static void test_breaks_at_last_space(void **state)
{
	(void)state;
	/* 22 columns: "one two three four" is 18, " five" would pass */
	check(filled("one two three four five six", 22, 2), "one two three four\n  five six\n");
	/* the next lines have width - indent columns */
	check(filled("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii", 30, 10),
	      "aaaa bbbb cccc dddd eeee ffff\n          gggg hhhh iiii\n");
	/* the text ends right before a space: broken there */
	check(filled("0123456789 123456789 x", 20, 0), "0123456789 123456789\nx\n");
}

static void test_prefers_a_list_comma(void **state)
{
	(void)state;
	/* the comma's space at column 36 of 40 (in its last quarter): the item
	 * "d 26494 7.1%" stays whole, though the line could hold "d" */
	check(filled("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1.5%, d 26494 7.1%", 40, 2),
	      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1.5%,\n  d 26494 7.1%\n");
	/* a comma early in the line does not pull the break back */
	check(filled("a, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb c d", 40, 0),
	      "a, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb c d\n");
	check(filled("a, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb c dd", 38, 0),
	      "a, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb c\ndd\n");
}

static void test_long_word(void **state)
{
	(void)state;
	/* a path longer than the line: cut where the line ends, nothing lost */
	check(filled("/aaaaaaaaaa/bbbbbbbbbb/cccccccccc", 20, 0),
	      "/aaaaaaaaaa/bbbbbbbb\nbb/cccccccccc\n");
	check(filled("x /aaaaaaaaaa/bbbbbbbbbb/cccccccccc", 24, 4),
	      "x\n    /aaaaaaaaaa/bbbbbbbb\n    bb/cccccccccc\n");
	/* never inside an escape: "\x1b" stays whole (it would end at 21) */
	check(filled("/aaaaaaaaaaaaaaaaa\\x1b/b", 20, 0), "/aaaaaaaaaaaaaaaaa\n\\x1b/b\n");
	check(filled("/aaaaaaaaaaaaaaaaaa\\tb", 20, 0), "/aaaaaaaaaaaaaaaaaa\n\\tb\n");
	/* nor inside a UTF-8 character: "é" is one column, two bytes */
	check(filled("/\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 20, 0),
	      "/\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\n");
	assert_int_equal(wrap_cols("/\xc3\xa9\\x1b", 7), 6);
}

static void test_indent_leaves_room(void **state)
{
	(void)state;
	/* an indent of 30 in 40 columns would leave 10: cut to leave 20 */
	check(filled("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii", 40, 30),
	      "aaaa bbbb cccc dddd eeee ffff gggg hhhh\n                    iiii\n");
	/* width 0 is WRAP_WIDTH */
	check(filled("a b", 0, 4), "a b\n");
}

static void test_line_moves_its_tail(void **state)
{
	(void)state;
	/* fits: one line, one space between */
	check(lined("  1.0ms cpu  bash", "/etc/hostname", 40, 8), "  1.0ms cpu  bash /etc/hostname\n");
	/* does not fit: the head alone (its padding dropped), the tail under it */
	check(lined("  1.0ms cpu  bash      ", "CPU 0 held by kdamond.0 25%, bash 24%", 40, 8),
	      "  1.0ms cpu  bash\n        CPU 0 held by kdamond.0 25%,\n        bash 24%\n");
	/* no tail: the head alone */
	check(lined("  1.0ms cpu  bash", "", 40, 8), "  1.0ms cpu  bash\n");
}

static void test_lines(void **state)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	const char text[] = "  first: aaaa bbbb cccc\n  second\n  third: dddd eeee ffff";

	(void)state;
	assert_non_null(f);
	wrap_lines(f, text, sizeof(text) - 1, 22, 2);
	assert_int_equal(fclose(f), 0);
	check(out, "  first: aaaa bbbb\n  cccc\n  second\n  third: dddd eeee\n  ffff\n");
}

static void test_buf(void **state)
{
	struct wrap_buf b = { 0 };
	size_t i;

	(void)state;
	assert_string_equal(wrap_str(&b), "");
	for (i = 0; i < 1000; i++)
		wrap_printf(&b, "%zu,", i % 10);
	assert_false(b.failed);
	assert_int_equal(b.len, 2000);
	assert_int_equal(strlen(b.s), 2000);
	assert_memory_equal(b.s + 1990, "5,6,7,8,9,", 10);
	wrap_reset(&b);
	assert_string_equal(wrap_str(&b), "");
	wrap_printf(&b, "%s %d", "x", 1);
	assert_string_equal(wrap_str(&b), "x 1");
	wrap_buf_free(&b);
	assert_null(b.s);
}

/*
 * Random text of words (ASCII, escapes, UTF-8, some longer than a line)
 * and single spaces: every line fits, every continuation has the indent,
 * and the lines joined again (a break is a space, or nothing inside a
 * word) give the text back.
 */
static void test_random(void **state)
{
	static const char *units[] = { "a", "b", "/", ".", ",", ";", "\\x1b", "\\t", "\xc3\xa9",
				       "\xe2\x86\x92" };
	uint64_t r = 36;
	int round;

	(void)state;
	for (round = 0; round < 2000; round++) {
		char text[2048], *out, *line, *save;
		size_t width = 20 + below(&r, 100), indent = below(&r, 40), len = 0;
		size_t eff = indent + WRAP_MIN_ROOM > width ? width - WRAP_MIN_ROOM : indent;
		size_t words = 1 + below(&r, 30), w, k;
		char joined[2048] = "";
		int first = 1;

		for (w = 0; w < words && len < sizeof(text) - 16; w++) {
			size_t units_n = 1 + below(&r, below(&r, 8) ? 12 : 150);

			if (w)
				text[len++] = ' ';
			for (k = 0; k < units_n && len < sizeof(text) - 8; k++) {
				const char *u = units[below(&r, sizeof(units) / sizeof(units[0]))];

				memcpy(text + len, u, strlen(u));
				len += strlen(u);
			}
		}
		text[len] = '\0';
		out = filled(text, width, indent);
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			size_t cols = wrap_cols(line, strlen(line));
			const char *body = line;

			assert_true(cols <= width);
			if (!first) {
				assert_true(strspn(line, " ") >= eff);
				body = line + eff;
				/* a break at a space drops it; inside a word, nothing */
				if (text[strlen(joined)] == ' ')
					strcat(joined, " ");
			}
			strcat(joined, body);
			first = 0;
		}
		assert_string_equal(joined, text);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_breaks_at_last_space),
		cmocka_unit_test(test_prefers_a_list_comma),
		cmocka_unit_test(test_long_word),
		cmocka_unit_test(test_indent_leaves_room),
		cmocka_unit_test(test_line_moves_its_tail),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
