// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/profile/goleaf.c on build/tests/goleaf (go build -s
 * -w), whose main.leaf keeps no frame, by hand-made samples: a sample in
 * the leaf whose frame-pointer stack skipped its caller gets it back,
 * read at SP (its pcsp is 0), in the kernel's two forms (address, build id
 * and file offset); a sample in main.callLong's body, whose frame pointer
 * is saved, is left as it is (its return address at SP + its frame size);
 * at callLong's first instruction (before its prologue) the caller is put
 * back from SP. Hostile: a copy too short, a return address that is no Go
 * code, an ip outside the mapping or not the stack's first frame, no
 * table: the stack stands (-1). A full stack stays at BT_STACK_MAX.
 */
#include <fcntl.h>
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

#include "collector/profile/goleaf.h"
#include "common/gosym.h"
#include "tests/unit/built.h"

struct fn {
	const char *name;
	uint64_t lo, hi;	/* [lo, hi) */
};

static struct fn fns[] = {
	{ "main.leaf", 0, 0 }, { "main.callLong", 0, 0 }, { "main.main", 0, 0 },
};
static struct gosym *g;
static uint64_t start;	/* the link-time address of file offset 0: mapped there */

static int setup(void **state)
{
	char path[PATH_MAX];
	struct gosym_frame fr[9];
	const char *ci = getenv("CI");
	uint64_t va;
	size_t i, n;

	(void)state;
	if (find_built("tests/goleaf", path) < 0) {
		if (ci && strcmp(ci, "true") == 0)
			return -1;	/* golang-go: scripts/install-deps.sh */
		return 0;
	}
	g = gosym__open(open(path, O_RDONLY));
	if (!g || gosym_file_va(g, 0, &start) < 0)
		return -1;
	for (va = start; va < start + (8u << 20); va++) {
		if (!(n = gosym_lookup(g, va, fr, 9)))
			continue;
		for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			if (strcmp(fr[n - 1].fn, fns[i].name) == 0) {
				if (!fns[i].lo)
					fns[i].lo = va;
				fns[i].hi = va + 1;
			}
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!fns[i].lo)
			return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gosym__free(g);
	return 0;
}

#define MAP_END (start + (16u << 20))

static struct bt_stack_build_id ip_frame(uint64_t ip)
{
	struct bt_stack_build_id f = { .status = BT_STACK_BUILD_ID_IP };

	f.ip = ip;
	return f;
}

static int fix(const struct bt_stack_build_id *in, int n, uint64_t ip, const uint64_t *stack,
	       size_t bytes, struct bt_stack_build_id *out)
{
	return goleaf_fix(g, start, MAP_END, start, 0, in, n, ip, (const unsigned char *)stack,
			  bytes, out);
}

static void test_leaf(void **state)
{
	uint64_t leaf = fns[0].lo + 4, ret_long = fns[1].lo + 0x30, ret_main = fns[2].lo + 0x40;
	uint64_t stack[16] = { ret_long, 0x1234 };
	struct bt_stack_build_id in[BT_STACK_MAX], out[BT_STACK_MAX];
	int n, i;

	(void)state;
	if (!g)
		skip();
	/* in the leaf: frame pointers gave main.main, its caller's caller */
	in[0] = ip_frame(leaf);
	in[1] = ip_frame(ret_main);
	n = fix(in, 2, leaf, stack, sizeof(stack), out);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].ip, leaf);
	assert_int_equal(out[1].status, BT_STACK_BUILD_ID_IP);
	assert_int_equal(out[1].ip, ret_long);
	assert_int_equal(out[2].ip, ret_main);
	/* the leaf alone (the chain ended): its caller all the same */
	assert_int_equal(fix(in, 1, leaf, stack, sizeof(stack), out), 2);
	assert_int_equal(out[1].ip, ret_long);
	/* build id and file offset: the caller's offset in the same file */
	memset(&in[0], 0, sizeof(in[0]));
	in[0].status = BT_STACK_BUILD_ID_VALID;
	memset(in[0].build_id, 0xab, sizeof(in[0].build_id));
	in[0].offset = leaf - start;
	in[1] = in[0];
	in[1].offset = ret_main - start;
	assert_int_equal(fix(in, 2, leaf, stack, sizeof(stack), out), 3);
	assert_int_equal(out[1].status, BT_STACK_BUILD_ID_VALID);
	assert_int_equal(out[1].offset, ret_long - start);
	assert_memory_equal(out[1].build_id, in[0].build_id, sizeof(in[0].build_id));
	assert_int_equal(out[2].offset, ret_main - start);
	/* the frame pointers had it: left as it is */
	in[0] = ip_frame(leaf);
	in[1] = ip_frame(ret_long);
	assert_int_equal(fix(in, 2, leaf, stack, sizeof(stack), out), -1);
	/* a full stack stays full: the outermost frame goes */
	for (i = 1; i < BT_STACK_MAX; i++)
		in[i] = ip_frame(ret_main);
	assert_int_equal(fix(in, BT_STACK_MAX, leaf, stack, sizeof(stack), out), BT_STACK_MAX);
	assert_int_equal(out[1].ip, ret_long);
}

static void test_framed(void **state)
{
	uint64_t entry = fns[1].lo, ret_main = fns[2].lo + 0x40, body = 0, va;
	uint64_t stack[64] = { 0 };
	struct bt_stack_build_id in[2], out[BT_STACK_MAX];
	int32_t d = 0;

	(void)state;
	if (!g)
		skip();
	/* a pc of callLong's body, its frame made: the return address above it */
	for (va = entry; va < fns[1].hi && !body; va++)
		if (gosym_sp_delta(g, va, &d) == 0 && d >= 16 && (size_t)d < sizeof(stack))
			body = va;
	assert_true(body != 0);
	stack[d / 8] = ret_main;
	stack[0] = fns[0].lo + 2;	/* a local that looks like code */
	in[0] = ip_frame(body);
	in[1] = ip_frame(ret_main);
	assert_int_equal(fix(in, 2, body, stack, sizeof(stack), out), -1);
	/* its first instruction: SP holds the return address, BP is main's */
	assert_int_equal(gosym_sp_delta(g, entry, &d), 0);
	assert_int_equal(d, 0);
	stack[0] = ret_main;
	in[0] = ip_frame(entry);
	in[1] = ip_frame(0x4242);	/* main's caller, say */
	assert_int_equal(fix(in, 2, entry, stack, sizeof(stack), out), 3);
	assert_int_equal(out[1].ip, ret_main);
}

static void test_hostile(void **state)
{
	uint64_t leaf = fns[0].lo + 4, ret_long = fns[1].lo + 0x30;
	uint64_t stack[4] = { ret_long };
	struct bt_stack_build_id in[2], out[BT_STACK_MAX];

	(void)state;
	if (!g)
		skip();
	in[0] = ip_frame(leaf);
	in[1] = ip_frame(0x4242);
	assert_int_equal(fix(in, 2, leaf, stack, 7, out), -1);		/* a copy too short */
	assert_int_equal(fix(in, 2, leaf, stack, 0, out), -1);
	assert_int_equal(fix(in, 0, leaf, stack, sizeof(stack), out), -1);	/* no frames */
	assert_int_equal(fix(in, 2, leaf + 1, stack, sizeof(stack), out), -1);	/* ip not frame 0 */
	in[0] = ip_frame(start - 16);
	assert_int_equal(fix(in, 2, start - 16, stack, sizeof(stack), out), -1);	/* outside */
	in[0] = ip_frame(leaf);
	stack[0] = 0x10;	/* no code */
	assert_int_equal(fix(in, 2, leaf, stack, sizeof(stack), out), -1);
	stack[0] = MAP_END + 0x1000;
	assert_int_equal(fix(in, 2, leaf, stack, sizeof(stack), out), -1);
	stack[0] = start + 1;	/* in the mapping, before Go's text */
	assert_int_equal(fix(in, 2, leaf, stack, sizeof(stack), out), -1);
	stack[0] = ret_long;
	assert_int_equal(goleaf_fix(NULL, start, MAP_END, start, 0, in, 2, leaf,
				    (const unsigned char *)stack, sizeof(stack), out), -1);
	assert_null(goleaf__new("/proc", getpid(), -1));
	/* this process is no Go program */
	assert_null(goleaf__new("/proc", getpid(), open("/proc/self/exe", O_RDONLY | O_CLOEXEC)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf),
		cmocka_unit_test(test_framed),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
