// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/read/demangle.c: C++ names demangled as perf shows
 * them (libjvm's, a clone's suffix, a template), each once (cached);
 * hostile names kept as they are: C names, "_Z" alone, invalid ones,
 * bytes no mangled name has, a name past DEMANGLE_IN_MAX bytes, and
 * crafted back-references whose expansion would blow up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "analyze/read/demangle.h"

static void test_names(void **state)
{
	static const char *const cases[][2] = {
		{ "_ZN11FileMapInfo33relocate_pointers_in_core_regionsEl",
		  "FileMapInfo::relocate_pointers_in_core_regions(long)" },
		{ "_Z3fooi", "foo(int)" },
		{ "_ZN3foo3barEv.cold", "foo::bar() [clone .cold]" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZN7Threads6createEP10JavaThreadPb.isra.0",
		  "Threads::create(JavaThread*, bool*) [clone .isra.0]" },
	};
	struct demangler *d = demangler__new();
	size_t i;

	(void)state;
	assert_non_null(d);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *r = demangle(d, cases[i][0]);

		assert_string_equal(r, cases[i][1]);
		/* once: the same string the second time */
		assert_ptr_equal(demangle(d, cases[i][0]), r);
	}
	demangler__free(d);
}

static void test_kept(void **state)
{
	static const char *const kept[] = {
		"main", "", "_Z", "_Zx", "_ZN", "_ZN3fooEE", "_ZN3foo3barEv junk",
		"_ZN3foo\n3barEv", "_ZN3f\xc3\xa9o3barEv", "__Z3fooi", "Z3fooi",
		"_ZZZZZZZZZZZZZZ", "_Z999999999999999999999x", "runtime.mallocgc",
	};
	struct demangler *d = demangler__new();
	size_t i;

	(void)state;
	assert_non_null(d);
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		assert_ptr_equal(demangle(d, kept[i]), kept[i]);
	demangler__free(d);
}

/* "_Z1fI" + N template args each a back-reference + "EvT_" ... as crafted. */
static char *crafted(size_t reps, const char *head, const char *unit, const char *tail)
{
	size_t n = strlen(head) + reps * strlen(unit) + strlen(tail) + 1, i;
	char *s = malloc(n);

	assert_non_null(s);
	strcpy(s, head);
	for (i = 0; i < reps; i++)
		strcat(s, unit);
	strcat(s, tail);
	return s;
}

/* The substitution "S<seq>_" of index @i (S_, S0_, ..., SZ_, S10_, ...) into @out. */
static void sub(size_t i, char *out)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char r[16];
	size_t n = 0;

	if (!i) {
		strcpy(out, "S_");
		return;
	}
	i--;
	do {
		r[n++] = digits[i % 36];
		i /= 36;
	} while (i);
	*out++ = 'S';
	while (n)
		*out++ = r[--n];
	strcpy(out, "_");
}

/* f<void (*)(int), then @levels pointers to functions of the previous one twice>(). */
static char *refs(size_t levels)
{
	char *s = malloc(32 + levels * 32), ref[16];
	size_t k;

	assert_non_null(s);
	strcpy(s, "_Z1fIJPFviE");
	for (k = 0; k < levels; k++) {
		sub(2 * k, ref);
		sprintf(s + strlen(s), "PFv%s%sE", ref, ref);
	}
	strcat(s, "EEvv");
	return s;
}

static void test_hostile(void **state)
{
	struct demangler *d = demangler__new();
	struct timespec t0, t1;
	char *s;

	(void)state;
	assert_non_null(d);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* too long to be given to the demangler: kept, valid or not */
	s = crafted(600, "_ZN", "3foo", "E3barEv");
	assert_true(strlen(s) > DEMANGLE_IN_MAX);
	assert_false(demangle_ok(s, strlen(s)));
	assert_ptr_equal(demangle(d, s), s);
	free(s);
	s = crafted(100000, "_Z", "N", "");
	assert_ptr_equal(demangle(d, s), s);
	free(s);
	/* deep nesting within the length: no crash, demangled or kept */
	s = crafted(300, "_Z1f", "PP", "i");
	assert_non_null(demangle(d, s));
	free(s);
	s = crafted(240, "_Z1fI", "S_", "EvT_");
	assert_non_null(demangle(d, s));
	free(s);
	/* back-references reused: 287 bytes that expand to 600 KB, past DEMANGLE_OUT_MAX: kept */
	s = refs(26);
	assert_true(strlen(s) < DEMANGLE_IN_MAX);
	assert_ptr_equal(demangle(d, s), s);
	free(s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* all of it in well under a second (a blow-up would take minutes) */
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	demangler__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
