// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/out/flamegraph.c, the SVG flame graph. Known truths:
 * a;b x2 and a;c x1 give b twice as wide as c, a as wide as both, "all"
 * the full 1180 px, b left of c, a row of 16 px per depth with the root
 * at the bottom, and tooltips with the samples, ms and percent worked out
 * by hand; the same stacks in another order, split or repeated give the
 * same bytes; siblings in alphabetical order whatever their widths; a
 * box under a pixel not drawn but counted in its parent; names clipped to
 * their box with ".."; kernel frames orange, [unknown] grey, user frames
 * never orange; hostile names and titles (<script>, quotes, &, control
 * bytes, invalid UTF-8, U+FFFF) escaped, and the SVG well-formed XML by
 * Python's parser (when python3 is there), also for stacks of random
 * bytes; no samples gives an SVG saying so; the node and depth bounds;
 * a write error returns -1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/out/flamegraph.h"
#include "common/tsv.h"
#include "tests/unit/rng.h"

/* The SVG of @n stacks, a string to free. */
static char *render(const char *title, const struct flame_stack *st, size_t n, uint64_t unit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(flamegraph_write(f, title, st, n, unit), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

struct box {
	double x, w;
	int y;
	char tip[256];		/* the tooltip */
	char text[256];		/* the text in the box */
	char fill[32];
};

/* The box whose tooltip starts with @name then " (": false when none. */
static bool find_box(const char *svg, const char *name, struct box *b)
{
	char key[300];
	const char *p, *q;
	size_t k;

	snprintf(key, sizeof(key), "<g class=\"f\"><title>%s (", name);
	p = strstr(svg, key);
	if (!p)
		return false;
	p += strlen("<g class=\"f\"><title>");
	q = strstr(p, "</title>");
	assert_non_null(q);
	k = (size_t)(q - p);
	assert_true(k < sizeof(b->tip));
	memcpy(b->tip, p, k);
	b->tip[k] = '\0';
	assert_int_equal(sscanf(q, "</title><rect x=\"%lf\" y=\"%d\" width=\"%lf\"", &b->x, &b->y,
				&b->w), 3);
	p = strstr(q, "fill=\"");
	assert_non_null(p);
	p += 6;
	k = strcspn(p, "\"");
	assert_true(k < sizeof(b->fill));
	memcpy(b->fill, p, k);
	b->fill[k] = '\0';
	/* a box too narrow for a name has no text */
	p = strstr(q, "<text");
	if (!p || p > strstr(q, "</g>")) {
		b->text[0] = '\0';
		return true;
	}
	p = strchr(p, '>') + 1;
	q = strstr(p, "</text>");
	k = (size_t)(q - p);
	assert_true(k < sizeof(b->text));
	memcpy(b->text, p, k);
	b->text[k] = '\0';
	return true;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* Every byte valid UTF-8, no control byte but \n, no U+FFFE/U+FFFF. */
static void assert_xml_chars(const char *svg)
{
	const unsigned char *p = (const unsigned char *)svg;
	size_t n = strlen(svg), i = 0, k;

	while (i < n) {
		if (p[i] < 0x20 || p[i] == 0x7f)
			assert_int_equal(p[i], '\n');
		k = tsv_utf8_seq_len(p + i, n - i);
		assert_true(k > 0);
		if (k == 3 && p[i] == 0xef && p[i + 1] == 0xbf)
			assert_true(p[i + 2] < 0xbe);
		i += k;
	}
}

static bool have_python(void)
{
	return system("command -v python3 >/dev/null 2>&1") == 0;
}

/* Python's XML parser takes @svg: asserted when python3 is there. */
static void assert_parses(const char *svg)
{
	char path[] = "/tmp/test_flamegraph.XXXXXX", cmd[200];
	int fd, rc;

	if (!have_python()) {
		fprintf(stderr, "test_analyze_flamegraph: no python3, XML not parsed\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import xml.dom.minidom,sys; "
		 "xml.dom.minidom.parse(sys.argv[1])' %s", path);
	rc = system(cmd);
	unlink(path);
	assert_int_equal(rc, 0);
}

#define GRAPH_W 1180.0
#define ST(c, ...) { .frames = (const char *const[]){ __VA_ARGS__ }, \
	.nframes = sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *), .count = (c) }

static void test_widths(void **state)
{
	struct flame_stack st[] = { ST(2, "a", "b"), ST(1, "a", "c") };
	struct box all, a, b, c;
	char *svg = render("t", st, 2, 10000000);	/* 10 ms a sample */

	(void)state;
	assert_true(find_box(svg, "all", &all));
	assert_true(find_box(svg, "a", &a));
	assert_true(find_box(svg, "b", &b));
	assert_true(find_box(svg, "c", &c));
	assert_float_equal(all.x, 10, 1e-9);
	assert_float_equal(all.w, GRAPH_W, 1e-9);
	assert_float_equal(a.w, GRAPH_W, 1e-9);
	assert_float_equal(b.w, 2 * GRAPH_W / 3, 0.006);
	assert_float_equal(c.w, GRAPH_W / 3, 0.006);
	assert_float_equal(b.w, 2 * c.w, 0.011);
	assert_float_equal(a.w, b.w + c.w, 0.011);
	assert_float_equal(b.x, 10, 1e-9);		/* b, then c */
	assert_float_equal(c.x, b.x + b.w, 0.011);
	/* the root at the bottom, a row of 16 px each: 60 + 3 * 16 + 30 high */
	assert_non_null(strstr(svg, "width=\"1200\" height=\"138\""));
	assert_int_equal(all.y, 138 - 30 - 16);
	assert_int_equal(a.y, all.y - 16);
	assert_int_equal(b.y, a.y - 16);
	assert_int_equal(c.y, b.y);
	assert_string_equal(all.tip, "all (3 samples, 30.00 ms, 100.00%)");
	assert_string_equal(a.tip, "a (3 samples, 30.00 ms, 100.00%)");
	assert_string_equal(b.tip, "b (2 samples, 20.00 ms, 66.67%)");
	assert_string_equal(c.tip, "c (1 samples, 10.00 ms, 33.33%)");
	assert_string_equal(b.text, "b");
	assert_non_null(strstr(svg, ">3 samples, 30.00 ms</text>"));
	assert_int_equal(count(svg, "<g class=\"f\">"), 4);
	assert_xml_chars(svg);
	assert_parses(svg);
	free(svg);
}

/* the same stacks in another order, split, repeated, frames at other addresses */
static void test_order_merge(void **state)
{
	struct flame_stack one[] = { ST(2, "a", "b"), ST(1, "a", "c") };
	char b1[] = "b", b2[] = "b", a1[] = "a", a2[] = "a", a3[] = "a";
	struct flame_stack two[] = {
		{ .frames = (const char *const[]){ a1, "c" }, .nframes = 2, .count = 1 },
		{ .frames = (const char *const[]){ a2, b1 }, .nframes = 2, .count = 1 },
		ST(0, "a", "zero"),
		{ .frames = (const char *const[]){ a3, b2 }, .nframes = 2, .count = 1 },
	};
	struct flame_stack sib[] = { ST(5, "m", "zeta"), ST(1, "m", "alpha"), ST(3, "m", "Mu") };
	char *s1 = render("t", one, 2, 1000), *s2 = render("t", two, 4, 1000), *s3;
	struct box mu, alpha, zeta;

	(void)state;
	assert_string_equal(s1, s2);
	assert_null(strstr(s2, "zero"));	/* no samples, no box */
	/* alphabetical by bytes ('M' < 'a'), not by width */
	s3 = render("t", sib, 3, 1000);
	assert_true(find_box(s3, "Mu", &mu));
	assert_true(find_box(s3, "alpha", &alpha));
	assert_true(find_box(s3, "zeta", &zeta));
	assert_float_equal(mu.x, 10, 1e-9);
	assert_float_equal(alpha.x, mu.x + mu.w, 0.011);
	assert_float_equal(zeta.x, alpha.x + alpha.w, 0.011);
	assert_float_equal(zeta.w, 5 * alpha.w, 0.05);
	free(s1);
	free(s2);
	free(s3);
}

/* a box under a pixel is not drawn, its samples count in its parent */
static void test_narrow(void **state)
{
	struct flame_stack st[] = { ST(100000, "a", "big"), ST(1, "a", "small", "above") };
	char *svg = render("t", st, 2, 1000000);
	struct box a, big;

	(void)state;
	assert_true(find_box(svg, "a", &a));
	assert_true(find_box(svg, "big", &big));
	assert_false(find_box(svg, "small", &a) || find_box(svg, "above", &a));
	assert_true(find_box(svg, "a", &a));
	assert_string_equal(a.tip, "a (100001 samples, 100001.00 ms, 100.00%)");
	assert_true(big.w < a.w);
	/* the deepest drawn row sets the height: all, a, big */
	assert_non_null(strstr(svg, "height=\"138\""));
	free(svg);
}

/* flamegraph.pl's --minwidth at 1 px: half a pixel goes, one stays */
static void test_minwidth(void **state)
{
	/* 1180 px for 2360 samples: one sample is half a pixel */
	struct flame_stack st[] = { ST(2357, "b", "big"), ST(1, "b", "half"), ST(2, "b", "one") };
	char *svg = render("t", st, 3, 1000000);
	struct box b;

	(void)state;
	assert_false(find_box(svg, "half", &b));
	assert_true(find_box(svg, "one", &b));
	assert_float_equal(b.w, 1.0, 0.011);
	free(svg);
}

/* names clipped to their box, by 12 * 0.59 px a character */
static void test_clip(void **state)
{
	const char *lng = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
			  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz";
	struct flame_stack st[] = { ST(4, lng), ST(96, "other"), ST(1, "ab") };
	char *svg = render("t", st, 3, 1000);
	struct box b, tiny;
	size_t chars;

	(void)state;
	assert_true(find_box(svg, lng, &b));	/* the tooltip has it whole */
	chars = (size_t)((b.w - 3) / (12 * 0.59));
	assert_true(chars >= 3 && chars < strlen(lng));
	assert_int_equal(strlen(b.text), chars);
	assert_memory_equal(b.text, lng, chars - 2);
	assert_string_equal(b.text + chars - 2, "..");
	assert_true(find_box(svg, "ab", &tiny));	/* 11.7 px: under 3 characters */
	assert_string_equal(tiny.text, "");
	free(svg);
}

static void rgb(const struct box *b, int *r, int *g, int *bl)
{
	assert_int_equal(sscanf(b->fill, "rgb(%d,%d,%d)", r, g, bl), 3);
}

static void test_colours(void **state)
{
	char names[64][16];
	struct flame_stack st[66];
	const char *fr[66];
	struct box b, b2;
	char *svg, *again;
	int r, g, bl, i;

	(void)state;
	for (i = 0; i < 64; i++) {
		snprintf(names[i], sizeof(names[i]), "fn%d%s", i, i % 2 ? "_[k]" : "");
		fr[i] = names[i];
		st[i] = (struct flame_stack){ .frames = &fr[i], .nframes = 1, .count = 1 };
	}
	fr[64] = "[unknown]";
	st[64] = (struct flame_stack){ .frames = &fr[64], .nframes = 1, .count = 1 };
	st[65] = (struct flame_stack){ .frames = NULL, .nframes = 0, .count = 1 };
	svg = render("t", st, 66, 1000);
	again = render("t", st, 66, 1000);
	assert_string_equal(svg, again);	/* deterministic */
	for (i = 0; i < 64; i++) {
		assert_true(find_box(svg, names[i], &b));
		rgb(&b, &r, &g, &bl);
		if (i % 2) {	/* kernel: orange */
			assert_true(r >= 240 && g >= 128 && g < 160 && bl < 30);
		} else {	/* red to yellow, never orange */
			assert_true(r >= 205 && bl <= 55);
			assert_true(g < 60 || g >= 185);
		}
	}
	assert_true(find_box(svg, "[unknown]", &b));
	rgb(&b, &r, &g, &bl);
	assert_true(r == g && g == bl);
	assert_true(find_box(svg, "fn0", &b) && find_box(svg, "fn2", &b2));
	assert_string_not_equal(b.fill, b2.fill);	/* a hash: most differ */
	free(svg);
	free(again);
}

static void test_hostile(void **state)
{
	const char *evil = "<script>alert(\"x&y\")</script>'\x01\x1b\t\n\x7f"
			   "\xff\xfe\xc3(\xef\xbf\xbf\xed\xa0\x80 ok \xc3\xa9]]>";
	const char *evil_title = "</title><script>&amp;\x02\xc0\xaf\"'";
	struct flame_stack st[] = { ST(3, "main", evil), ST(1, evil, "x") };
	char *svg = render(evil_title, st, 2, 1000);
	struct box b;

	(void)state;
	assert_null(strstr(svg, "<script>"));
	assert_null(strstr(svg, "</script>alert"));
	/* the only <script is ours, its CDATA the only ]]> */
	assert_int_equal(count(svg, "<script"), 1);
	assert_int_equal(count(svg, "]]>"), 1);
	assert_non_null(strstr(svg, "<title>&lt;/title&gt;&lt;script&gt;&amp;amp;\\x02"
				    "\xef\xbf\xbd\xef\xbf\xbd&quot;&apos;</title>"));
	assert_true(find_box(svg, "main", &b));
	assert_true(find_box(svg, "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;"
				  "&apos;\\x01\\x1b\\x09\\x0a\\x7f"
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd"
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9]]&gt;", &b));
	assert_true(strlen(b.text) > 10);	/* 3 samples of 4: text in the box */
	assert_null(strchr(b.text, '<'));
	assert_xml_chars(svg);
	assert_parses(svg);
	free(svg);
}

/* stacks of random bytes (1..255), random depths: always XML */
static void test_random_bytes(void **state)
{
	uint64_t seed = 0x5eedf1a3e;
	char names[200][24];
	const char *fr[400][8];
	struct flame_stack st[400];
	int round, i, k, len;

	(void)state;
	for (round = 0; round < 3; round++) {
		char *svg;

		for (i = 0; i < 200; i++) {
			len = (int)(rng_next(&seed) % 23);
			for (k = 0; k < len; k++)
				names[i][k] = (char)(1 + rng_next(&seed) % 255);
			names[i][len] = '\0';
		}
		for (i = 0; i < 400; i++) {
			st[i].nframes = rng_next(&seed) % 9;
			for (k = 0; k < (int)st[i].nframes; k++)
				fr[i][k] = names[rng_next(&seed) % (round ? 200 : 8)];
			st[i].frames = fr[i];
			st[i].count = 1 + rng_next(&seed) % 50;
		}
		svg = render(names[0], st, 400, 10101010);
		assert_xml_chars(svg);
		assert_parses(svg);
		free(svg);
	}
}

static void test_no_samples(void **state)
{
	struct flame_stack zero[] = { ST(0, "a") };
	char *s0 = render("my <title>", NULL, 0, 1000), *s1 = render(NULL, zero, 1, 1000);

	(void)state;
	assert_non_null(strstr(s0, ">no samples</text>"));
	assert_non_null(strstr(s0, "my &lt;title&gt;"));
	assert_int_equal(count(s0, "<g class=\"f\">"), 0);
	assert_non_null(strstr(s1, ">no samples</text>"));
	assert_int_equal(count(s1, "<g class=\"f\">"), 0);
	assert_xml_chars(s0);
	assert_parses(s0);
	assert_parses(s1);
	free(s0);
	free(s1);
}

/* FLAME_MAX_NODES distinct frames and FLAME_MAX_DEPTH deep: merged, said */
static void test_bounds(void **state)
{
	enum { N = FLAME_MAX_NODES + 50000, DEEP = 5000 };
	char (*names)[8] = malloc(N * sizeof(*names));
	const char **fr = malloc(N * sizeof(*fr)), **deep = malloc(DEEP * sizeof(*deep));
	struct flame_stack *st = malloc(N * sizeof(*st));
	struct flame_stack d = { .nframes = DEEP, .count = 7 };
	struct box all, r;
	char *svg, want[64];
	int i;

	(void)state;
	assert_true(names && fr && deep && st);
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%06d", i);
		fr[i] = names[i];
		st[i] = (struct flame_stack){ .frames = &fr[i], .nframes = 1,
					      .count = i < 10 ? 100000 : 1 };
	}
	svg = render("t", st, N, 1000);
	assert_true(find_box(svg, "all", &all));
	snprintf(want, sizeof(want), "all (%d samples,", N - 10 + 10 * 100000);
	assert_memory_equal(all.tip, want, strlen(want));
	assert_non_null(strstr(svg, "the rest merged into their parents"));
	assert_true(find_box(svg, "f000009", &r));	/* wide ones drawn */
	assert_false(find_box(svg, "f149999", &r));	/* past the bound: in "all" */
	assert_xml_chars(svg);
	free(svg);

	for (i = 0; i < DEEP; i++)
		deep[i] = "r";
	d.frames = deep;
	svg = render("t", &d, 1, 1000);
	snprintf(want, sizeof(want), "height=\"%d\"", 60 + (FLAME_MAX_DEPTH + 1) * 16 + 30);
	assert_non_null(strstr(svg, want));
	assert_int_equal(count(svg, "<g class=\"f\">"), FLAME_MAX_DEPTH + 1);
	assert_non_null(strstr(svg, "the rest merged into their parents"));
	free(svg);
	free(names);
	free(fr);
	free(deep);
	free(st);
}

static void test_write_error(void **state)
{
	struct flame_stack st[] = { ST(2, "a", "b") };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	assert_int_equal(flamegraph_write(f, "t", st, 1, 1000), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_order_merge),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_minwidth),
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
