// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/profile/unwind.c on this very process. capture(),
 * called by level2() called by level1(), takes its registers and the top
 * of its stack as the BPF program would (bpf/profile.bpf.h); the CFI walk
 * of that copy must give capture's address, then the return address into
 * level2, then the one into level1, as build id + file offset of this
 * test's executable (or the address, without a build id). Frame pointers
 * could not: the unit tests are built -O2, without them. An unwinder in
 * fp mode gives nothing (-1: the kernel's frames stand), and so does a
 * process that is gone, and a walk whose first address is in nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/profile/umaps.h"
#include "collector/profile/unwind.h"

#if defined(__x86_64__)

static struct bt_sample_ustack us;
static unsigned char stack[8192];
static uint64_t ret_in_level2, ret_in_level1;

/* The mapping of @addr in /proc/self/maps: its start, end and file offset; 0 or -1. */
static int mapping(uint64_t addr, uint64_t *start, uint64_t *end, uint64_t *pgoff)
{
	char line[4096];
	const char *path;
	size_t len;
	FILE *f = fopen("/proc/self/maps", "re");
	int found = -1;

	assert_non_null(f);
	while (found < 0 && fgets(line, sizeof(line), f))
		if (!umaps_parse_maps_line(line, start, end, pgoff, &path, &len) &&
		    *start <= addr && addr < *end)
			found = 0;
	fclose(f);
	return found;
}

/*
 * A copy of the stack, as the BPF program reads it: other frames' bytes,
 * ASan's redzones among them, so not instrumented; byte by byte through a
 * volatile pointer, not a memcpy (ASan's interceptor checks that).
 */
static __attribute__((noinline, no_sanitize_address)) void copy_stack(unsigned char *dst,
								      uint64_t src, size_t n)
{
	const volatile unsigned char *s = (const volatile unsigned char *)(uintptr_t)src;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = s[i];
}

static __attribute__((noinline)) void capture(void)
{
	uint64_t start, end, pgoff, n;

	ret_in_level2 = (uint64_t)__builtin_return_address(0);
	/* the registers in the DWARF order (bt_sample_ustack), rip last: all at one point */
	__asm__ volatile("mov %%rax, 0(%0)\n\tmov %%rdx, 8(%0)\n\tmov %%rcx, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\tmov %%rsi, 32(%0)\n\tmov %%rdi, 40(%0)\n\t"
			 "mov %%rbp, 48(%0)\n\tmov %%rsp, 56(%0)\n\tmov %%r8, 64(%0)\n\t"
			 "mov %%r9, 72(%0)\n\tmov %%r10, 80(%0)\n\tmov %%r11, 88(%0)\n\t"
			 "mov %%r12, 96(%0)\n\tmov %%r13, 104(%0)\n\tmov %%r14, 112(%0)\n\t"
			 "mov %%r15, 120(%0)\n\tlea 0(%%rip), %%rax\n\tmov %%rax, 128(%0)\n\t"
			 : : "r"(us.regs) : "rax", "memory");
	/* as far as the stack's mapping goes, as the BPF program's copy does */
	assert_int_equal(mapping(us.regs[BT_UREG_SP], &start, &end, &pgoff), 0);
	n = end - us.regs[BT_UREG_SP];
	if (n > sizeof(stack))
		n = sizeof(stack);
	copy_stack(stack, us.regs[BT_UREG_SP], n);
	us.stack_bytes = (__u32)n;
}

static __attribute__((noinline)) void level2(void)
{
	ret_in_level1 = (uint64_t)__builtin_return_address(0);
	capture();
	__asm__ volatile("" ::: "memory");	/* no tail call: level2 stays a frame */
}

static __attribute__((noinline)) void level1(void)
{
	level2();
	__asm__ volatile("" ::: "memory");
}

/* Whether frame @b is address @addr of this process. */
static int is_addr(const struct bt_stack_build_id *b, uint64_t addr)
{
	uint64_t start, end, pgoff;

	if (b->status == BT_STACK_BUILD_ID_IP)
		return b->ip == addr;
	assert_int_equal(b->status, BT_STACK_BUILD_ID_VALID);
	assert_int_equal(mapping(addr, &start, &end, &pgoff), 0);
	return b->offset == addr - start + pgoff;
}

static void test_unwind_self(void **state)
{
	struct bt_stack_build_id out[BT_STACK_MAX];
	struct bt_sample_event e;
	struct umaps *u = umaps__new("/proc");
	struct unwind *w = unwind__new(UNWIND_DWARF, "/proc", u);
	int n;

	(void)state;
	assert_non_null(w);
	level1();
	memset(&e, 0, sizeof(e));
	e.hdr.pid = (__u32)getpid();
	e.hdr.tid = (__u32)gettid();
	e.hdr.ts_ns = 1;
	n = unwind_stack(w, &e, &us, stack, out);
	assert_true(n >= 3);
	assert_true(is_addr(&out[0], us.regs[BT_UREG_IP]));
	assert_true(is_addr(&out[1], ret_in_level2));
	assert_true(is_addr(&out[2], ret_in_level1));
	/* again, from the cached Dwfl: the same */
	n = unwind_stack(w, &e, &us, stack, out);
	assert_true(n >= 3 && is_addr(&out[2], ret_in_level1));
	assert_int_equal(unwind_count(w), 2);
	/* a process gone: the kernel's frames stand */
	unwind_forget(w, (pid_t)e.hdr.pid);
	e.hdr.pid = e.hdr.tid = 0x3fffffff;
	assert_int_equal(unwind_stack(w, &e, &us, stack, out), -1);
	unwind__free(w);

	/* fp mode: never */
	w = unwind__new(UNWIND_FP, "/proc", u);
	e.hdr.pid = (__u32)getpid();
	e.hdr.tid = (__u32)gettid();
	assert_int_equal(unwind_stack(w, &e, &us, stack, out), -1);
	unwind__free(w);
	umaps__free(u);
}

/*
 * auto mode: a walk that gives no frame (an ip in no mapping: the stack
 * ends there, not printed) gives way to the kernel's frame-pointer frames.
 */
static void test_unwind_fallback(void **state)
{
	struct bt_stack_build_id out[BT_STACK_MAX];
	struct bt_sample_event e;
	struct bt_sample_ustack bad = us;
	struct umaps *u = umaps__new("/proc");
	struct unwind *w = unwind__new(UNWIND_AUTO, "/proc", u);

	(void)state;
	assert_non_null(w);
	memset(&e, 0, sizeof(e));
	e.hdr.pid = (__u32)getpid();
	e.hdr.tid = (__u32)gettid();
	e.ustack[0].status = e.ustack[1].status = BT_STACK_BUILD_ID_IP;
	e.ustack[0].ip = e.ustack[1].ip = 0x1234;
	e.ustack_bytes = 2 * (int)sizeof(e.ustack[0]);
	bad.regs[BT_UREG_IP] = 0x10;	/* in nothing */
	assert_int_equal(unwind_stack(w, &e, &bad, stack, out), -1);
	unwind__free(w);
	umaps__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwind_self),
		cmocka_unit_test(test_unwind_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	printf("1..0 # skip: unwind.c takes x86-64 registers\n");
	return 0;
}

#endif
