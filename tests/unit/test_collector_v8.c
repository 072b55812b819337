// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: the collector's V8 side (collector/profile/v8.c) on a fake
 * node: this test exports the v8dbg_* symbols node 20 exports, with node
 * 20's values (linked with -rdynamic: they are in its .dynsym), and makes
 * V8's objects in its own memory (maps, strings one-byte, two-byte and
 * cons, a Script, ScopeInfos, SharedFunctionInfos, JSFunctions), which
 * v8_frame() reads as it reads node's: a function's name and start line,
 * an inferred name, an anonymous function, a module's top level, a
 * Latin-1 path as UTF-8, an object that is no JSFunction any more, a
 * function renamed at the same address, a function whose memory is gone
 * (its last name); and v8_register() on a file without the symbols.
 */
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/profile/v8.h"

/* node 20's (V8 11.3) values, the ones v8.c reads */
#define V8DBG(name, v) __attribute__((used, visibility("default"))) int v8dbg_##name = v
V8DBG(off_fp_function, -16);
V8DBG(off_fp_context, -8);
V8DBG(class_HeapObject__map__Map, 0);
V8DBG(class_Map__instance_type__uint16_t, 12);
V8DBG(class_JSFunction__shared__SharedFunctionInfo, 24);
V8DBG(class_SharedFunctionInfo__name_or_scope_info__Object, 16);
V8DBG(class_SharedFunctionInfo__script_or_debug_info__HeapObject, 32);
V8DBG(class_SharedFunctionInfo__function_data__Object, 8);
V8DBG(class_Script__name__Object, 16);
V8DBG(class_Script__source__Object, 8);
V8DBG(class_String__length__int32_t, 12);
V8DBG(class_SeqOneByteString__chars__char, 16);
V8DBG(class_SeqTwoByteString__chars__char, 16);
V8DBG(class_ConsString__first__String, 16);
V8DBG(class_ConsString__second__String, 24);
V8DBG(class_SlicedString__parent__String, 16);
V8DBG(class_SlicedString__offset__SMI, 24);
V8DBG(class_ThinString__actual__String, 16);
V8DBG(class_UncompiledData__start_position__int32_t, 16);
V8DBG(type_JSFunction__JS_FUNCTION_TYPE, 2066);
V8DBG(type_JSAtomicsCondition__JS_ATOMICS_CONDITION_TYPE, 2097);
V8DBG(type_JSBoundFunction__JS_BOUND_FUNCTION_TYPE, 2064);
V8DBG(type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE, 262);
V8DBG(type_Script__SCRIPT_TYPE, 167);
V8DBG(type_ScopeInfo__SCOPE_INFO_TYPE, 261);
V8DBG(type_UncompiledDataWithoutPreparseData__UNCOMPILED_DATA_WITHOUT_PREPARSE_DATA_TYPE, 300);
V8DBG(FirstNonstringType, 128);
V8DBG(ConsStringTag, 1);
V8DBG(SlicedStringTag, 3);
V8DBG(ThinStringTag, 5);
V8DBG(OneByteStringTag, 8);
V8DBG(SmiShiftSize, 31);
V8DBG(scopeinfo_idx_ncontextlocals, 2);
V8DBG(scopeinfo_idx_first_vars, 3);

enum { T_ONE = 40, T_TWO = 32, T_CONS = 41, T_SCRIPT = 167, T_SCOPE = 261, T_SFI = 262,
       T_FN = 2066, T_CLASS = 2070, T_UD = 300 };

/* The fake heap: 8-byte words, objects handed out in order, tagged (+1). */
static uint64_t heap[4096];
static size_t top;

static uint64_t *obj(size_t words, uint64_t *tagged)
{
	uint64_t *o = &heap[top];

	top += words;
	assert_true(top <= sizeof(heap) / sizeof(heap[0]));
	*tagged = (uint64_t)(uintptr_t)o + 1;
	return o;
}

static uint64_t smi(int64_t v)
{
	return (uint64_t)v << 32;
}

/* A map of instance type @type (its own map: itself). */
static uint64_t map_of(uint16_t type)
{
	uint64_t t, *m = obj(4, &t);

	m[0] = t;
	memcpy((char *)m + 12, &type, sizeof(type));
	return t;
}

static uint64_t str1(const char *s)
{
	size_t n = strlen(s);
	uint64_t t, *o = obj(2 + (n + 8) / 8, &t);
	int32_t len = (int32_t)n;

	o[0] = map_of(T_ONE);
	memcpy((char *)o + 12, &len, sizeof(len));
	memcpy((char *)o + 16, s, n);
	return t;
}

static uint64_t str2(const uint16_t *s, size_t n)
{
	uint64_t t, *o = obj(2 + (2 * n + 8) / 8, &t);
	int32_t len = (int32_t)n;

	o[0] = map_of(T_TWO);
	memcpy((char *)o + 12, &len, sizeof(len));
	memcpy((char *)o + 16, s, 2 * n);
	return t;
}

static uint64_t cons(uint64_t a, uint64_t b)
{
	uint64_t t, *o = obj(4, &t);
	int32_t la, lb, len;

	memcpy(&la, (char *)(uintptr_t)(a - 1) + 12, sizeof(la));
	memcpy(&lb, (char *)(uintptr_t)(b - 1) + 12, sizeof(lb));
	len = la + lb;
	o[0] = map_of(T_CONS);
	memcpy((char *)o + 12, &len, sizeof(len));
	o[2] = a;
	o[3] = b;
	return t;
}

static uint64_t script(uint64_t name, uint64_t source)
{
	uint64_t t, *o = obj(8, &t);

	o[0] = map_of(T_SCRIPT);
	o[1] = source;
	o[2] = name;
	return t;
}

/*
 * A function scope's ScopeInfo: @nlocals context locals, a function
 * variable named @name (0: none), an inferred name (0: none), then its
 * position info [@start, @start + 10).
 */
static uint64_t scope(int nlocals, uint64_t name, uint64_t inferred, int64_t start)
{
	uint64_t t, *o = obj(16 + 2 * (size_t)nlocals, &t), flags = 2;	/* FUNCTION_SCOPE */
	/* 75 locals and more: a hash table of their names (one slot), then their infos */
	size_t at = 4 + (nlocals < 75 ? 2 * (size_t)nlocals : 1 + (size_t)nlocals);

	o[0] = map_of(T_SCOPE);
	o[2] = smi(1);
	o[3] = smi(nlocals);
	if (name) {
		flags |= 3 << 12;
		o[at++] = name;
		o[at++] = smi(-1);
	}
	if (inferred) {
		flags |= 1 << 14;
		o[at++] = inferred;
	}
	o[1] = smi((int64_t)flags);
	o[at++] = smi(start);
	o[at] = smi(start + 10);
	return t;
}

static uint64_t sfi(uint64_t nos, uint64_t sc, uint64_t data)
{
	uint64_t t, *o = obj(8, &t);

	o[0] = map_of(T_SFI);
	o[1] = data ? data : smi(0);
	o[2] = nos;
	o[4] = sc;
	return t;
}

static uint64_t fn(uint64_t shared, uint16_t type)
{
	uint64_t t, *o = obj(8, &t);

	o[0] = map_of(type);
	o[3] = shared;
	return t;
}

static struct v8 *v;

/* dl_iterate_phdr's first object, the program: its load bias */
static int bias_of(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

static void registered(struct bt_interp_proc *p)
{
	const char *why = NULL;
	uint64_t bias = 0;

	dl_iterate_phdr(bias_of, &bias);
	v = v8__new();
	assert_non_null(v);
	assert_int_equal(v8_register(v, getpid(), "/proc/self/exe", bias, p, &why), 0);
}

static void test_register(void **state)
{
	struct bt_interp_proc p;
	const char *why = NULL;

	(void)state;
	registered(&p);
	assert_int_equal(p.kind, BT_INTERP_V8);
	assert_int_equal(p.fp_function, -16);
	assert_int_equal(p.fp_context, -8);
	assert_int_equal(p.obj_map, 0);
	assert_int_equal(p.map_type, 12);
	/* the JSFunction types: JS_FUNCTION_TYPE up to the next type named */
	assert_int_equal(p.fn_type_lo, 2066);
	assert_int_equal(p.fn_type_hi, 2096);
	/* a file without the symbols: refused, said why */
	assert_int_equal(v8_register(v, getpid(), "/bin/sh", 0, &p, &why), -1);
	assert_non_null(why);
	v8__free(v);
}

/* v8_frame()'s text of JSFunction @f, or "" */
static const char *frame(uint64_t f)
{
	static char buf[1024];

	if (!v8_frame(v, getpid(), BT_HS_V8 << 60 | f, buf, sizeof(buf)))
		buf[0] = '\0';
	return buf;
}

/* JSFunction @f is named `j:LEN:@text` */
static void want(uint64_t f, const char *text)
{
	char w[1024];

	snprintf(w, sizeof(w), "j:%zu:%s", strlen(text), text);
	assert_string_equal(frame(f), w);
}

static void test_names(void **state)
{
	static const char src[] = "'use strict';\n\nfunction burnCpu(ms) {\n}\nobj.m = function () {};\n";
	static const uint16_t two[] = { 's', 'p', 0x00e9, 'n' };
	struct bt_interp_proc p;
	uint64_t sc, sc2, f, s1, named, cut;
	uint64_t *o;
	int64_t at = strstr(src, "(ms)") - src, at2 = strstr(src, "() {}") - src;

	(void)state;
	top = 0;
	registered(&p);
	/* the source in two parts, cut inside the second line */
	cut = cons(str1("'use strict';\n\nfunc"), str1(src + 19));
	sc = script(str1("/app/lib/burner.js"), cut);

	/* a named function, with 2 context locals: its start line */
	s1 = sfi(scope(2, str1("burnCpu"), 0, at), sc, 0);
	f = fn(s1, T_FN);
	want(f, "burnCpu /app/lib/burner.js:3");
	/* 80 context locals: their names in a hash table */
	want(fn(sfi(scope(80, str1("manyLocals"), 0, at), sc, 0), T_FN),
	     "manyLocals /app/lib/burner.js:3");
	/* a class constructor's type is a JSFunction's too; again, from the kept name */
	want(fn(s1, T_CLASS), "burnCpu /app/lib/burner.js:3");
	/* no name, an inferred one */
	f = fn(sfi(scope(0, str1(""), str1("obj.m"), at2), sc, 0), T_FN);
	want(f, "obj.m /app/lib/burner.js:5");
	/* neither */
	f = fn(sfi(scope(0, 0, 0, at2), sc, 0), T_FN);
	want(f, "(anonymous) /app/lib/burner.js:5");
	/* a module's top level: no name, from 0 */
	f = fn(sfi(scope(0, str1(""), 0, 0), sc, 0), T_FN);
	want(f, "<module> /app/lib/burner.js");
	/* not compiled yet: its start from its UncompiledData; its name a string */
	o = obj(4, &named);
	o[0] = map_of(T_UD);
	*(int32_t *)((char *)o + 16) = (int32_t)at;
	f = fn(sfi(str1("lazy"), sc, named), T_FN);
	want(f, "lazy /app/lib/burner.js:3");
	/* a Latin-1 path as UTF-8, a two-byte name; a script of one line */
	sc2 = script(str1("/app/\xe9t\xe9.js"), str1("x"));
	f = fn(sfi(scope(0, str2(two, 4), 0, 0), sc2, 0), T_FN);
	want(f, "sp\xc3\xa9n /app/\xc3\xa9t\xc3\xa9.js:1");
	/* no script: the name alone */
	f = fn(sfi(str1("native"), smi(0), 0), T_FN);
	want(f, "native");

	/* a JSFunction node's memory no longer holds (node gone): its last name */
	{
		uint64_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				      -1, 0), gone = (uint64_t)(uintptr_t)page + 1;

		assert_true(page != MAP_FAILED);
		page[0] = map_of(T_FN);
		page[3] = s1;
		want(gone, "burnCpu /app/lib/burner.js:3");
		munmap(page, 4096);
		want(gone, "burnCpu /app/lib/burner.js:3");
	}
	/* renamed at the same address (the GC moved another there): read again */
	((uint64_t *)(uintptr_t)(s1 - 1))[2] = scope(0, str1("other"), 0, at);
	want(fn(s1, T_FN), "other /app/lib/burner.js:3");
	/* not a SharedFunctionInfo any more: no frame */
	((uint64_t *)(uintptr_t)(s1 - 1))[0] = map_of(T_SCRIPT);
	assert_string_equal(frame(fn(s1, T_FN)), "");
	/* not even a heap object */
	assert_string_equal(frame(smi(5)), "");
	v8_forget(v, getpid());
	assert_string_equal(frame(f), "");
	v8__free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
