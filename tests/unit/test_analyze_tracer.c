// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/read/tracer.c on hand-made kernel stacks: the
 * collector's program on a syscall's tp_btf path (its helpers above it),
 * on the scheduler's, through a trampoline, a uprobe's perf path; the
 * path alone (a sample before the program ran); another tool's program
 * (not bt_*) another's, "[bpf]"; kernel functions named bpf_prog_* or
 * bpf_trampoline_* that are no program; user frames never looked at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/read/frames.h"
#include "analyze/read/tracer.h"

#define OURS "k:bpf_prog_6deef7357e7b4530_bt_sys_enter+0x8a"

/* The tracer's frames of stack @s: their count, -count when another tool's. */
static long cut(const char *s)
{
	struct frame fr[FRAMES_MAX];
	char err[200];
	int n = frames_parse(s, strlen(s), fr, err, sizeof(err));
	bool ours = false;
	size_t k;

	assert_true(n >= 0);
	k = tracer_frames(fr, (size_t)n, &ours);
	return ours ? (long)k : -(long)k;
}

static void test_ours(void **state)
{
	(void)state;
	/* sys_enter: a helper, the program, the raw tracepoint's path, then the syscall's */
	assert_int_equal(cut("k:bpf_ringbuf_reserve+0x5 " OURS " k:bpf_trace_run2+0x52 "
			     "k:__bpf_trace_sys_enter+0x6 k:__traceiter_sys_enter+0x2f "
			     "k:syscall_trace_enter.constprop.0+0xa8 k:do_syscall_64+0x44 "
			     "k:entry_SYSCALL_64_after_hwframe+0x6e u:0x7f0012345678"), 5);
	/* the program innermost */
	assert_int_equal(cut(OURS " k:bpf_trace_run2+0x52 k:do_syscall_64+0x44"), 2);
	/* the scheduler's, truncated by kallsyms' 16 bytes of name */
	assert_int_equal(cut("k:bpf_prog_0123456789abcdef_bt_sched_switc+0x10 "
			     "k:bpf_trace_run4+0x6c k:__schedule+0x3a0 k:schedule+0x5e"), 2);
	/* through a trampoline */
	assert_int_equal(cut("k:bpf_prog_0123456789abcdef_bt_exec+0x1 "
			     "k:bpf_trampoline_6442491234+0x47 k:begin_new_exec+0x10"), 2);
	/* a uprobe's: perf's path */
	assert_int_equal(cut("k:bpf_prog_0123456789abcdef_bt_span+0x1 k:trace_call_bpf+0x100 "
			     "k:uprobe_dispatcher+0x30 k:handler_chain+0x60 "
			     "k:uprobe_notify_resume+0x20 k:exit_to_user_mode_prepare+0x10"), 3);
	/* the path alone: before or after the program */
	assert_int_equal(cut("k:bpf_trace_run2+0x10 k:__bpf_trace_sys_exit+0x6 "
			     "k:__traceiter_sys_exit+0x2f k:syscall_exit_work+0x20"), 3);
	assert_int_equal(cut("k:__traceiter_sys_enter+0x2 k:do_syscall_64+0x44"), 1);
}

static void test_not_ours(void **state)
{
	(void)state;
	assert_int_equal(cut(""), 0);
	assert_int_equal(cut("k:do_sys_open+0x1f k:do_syscall_64+0x44 u:0x7f00"), 0);
	/* another tool's program, and its path: theirs */
	assert_int_equal(cut("k:bpf_prog_0123456789abcdef_tracer_fn+0x1 "
			     "k:bpf_trace_run2+0x52 k:do_syscall_64+0x44"), -2);
	/* a program without a name, alone (in an interrupt) */
	assert_int_equal(cut("k:bpf_prog_59f4a931744dcdc6+0x10 f:6:[vdso]+0xc01"), -1);
	assert_int_equal(cut("k:bpf_prog_59f4a931744dcdc6_+0x10"), -1);
	/* ours and another's on one path: ours */
	assert_int_equal(cut("k:bpf_prog_0123456789abcdef_other+0x1 " OURS
			     " k:bpf_trace_run2+0x52 k:do_syscall_64+0x44"), 3);
	/* kernel functions, no programs: a tag of 16 hex digits and '_' is not there */
	assert_int_equal(cut("k:bpf_prog_realloc+0x1 k:bpf_prog_load+0x20 k:__sys_bpf+0x30"), 0);
	assert_int_equal(cut("k:bpf_prog_0123456789abcdeg_bt_x+0x1"), 0);
	assert_int_equal(cut("k:bpf_prog_0123456789abcdefx+0x1"), 0);
	assert_int_equal(cut("k:bpf_trampoline_link_prog+0x1 k:bpf_tracing_prog_attach+0x2"), 0);
	/* past the first user frame: not the kernel's stack of this sample */
	assert_int_equal(cut("u:0x7f00 k:bpf_trace_run2+0x52"), 0);
	assert_int_equal(cut("j:4:name " OURS), 0);
	/* libbpf's USDT functions, called by the collector's USDT program */
	assert_int_equal(cut("k:bpf_prog_4d7af3a0d291d20d_bpf_usdt_arg+0x175 "
			     "k:bpf_prog_5dcdf7481c29af8e_bt_span+0x234 k:trace_call_bpf+0x100 "
			     "k:uprobe_dispatcher+0x30"), 4);
	/* a bare address keeps the leading frames going */
	assert_int_equal(cut("k:0xffffffffc0001234 " OURS " k:do_syscall_64+0x44"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ours),
		cmocka_unit_test(test_not_ours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
