// SPDX-License-Identifier: BSD-2-Clause
/* The collector's BPF programs on a sampled kernel stack (tracer.h). */
#include <stdbool.h>
#include <string.h>

#include "analyze/read/tracer.h"

enum kind { OTHER, OURS, FOREIGN, PATH };

static bool starts(const char *s, size_t n, const char *prefix, size_t *at)
{
	size_t m = strlen(prefix);

	if (n < m || memcmp(s, prefix, m) != 0)
		return false;
	*at = m;
	return true;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* What kernel function @s (@n bytes) is, as kallsyms names it. */
static enum kind kind_of(const char *s, size_t n)
{
	static const char *const path[] = {
		"__bpf_trace_", "__traceiter_", "bpf_trace_run", "__bpf_prog_enter",
		"__bpf_prog_exit", "trace_call_bpf", "perf_trace_run_bpf_submit",
		"uprobe_dispatcher",
	};
	size_t at, i;

	if (starts(s, n, "bpf_prog_", &at)) {
		/* a JIT'd program: 16 hex digits, then '_' and its name if it has
		 * one (kernel functions named bpf_prog_* have no such tag) */
		for (i = 0; i < 16; i++)
			if (at + i >= n || !is_hex(s[at + i]))
				return OTHER;
		at += 16;
		if (at == n)
			return FOREIGN;	/* a program its loader gave no name */
		if (s[at] != '_')
			return OTHER;
		at++;
		/* the collector's programs, and libbpf's USDT functions they call */
		if ((n - at >= 3 && memcmp(s + at, "bt_", 3) == 0) ||
		    (n - at >= 9 && memcmp(s + at, "bpf_usdt_", 9) == 0))
			return OURS;
		return FOREIGN;
	}
	if (starts(s, n, "bpf_trampoline_", &at))
		return at < n && s[at] >= '0' && s[at] <= '9' ? PATH : OTHER;
	for (i = 0; i < sizeof(path) / sizeof(path[0]); i++)
		if (starts(s, n, path[i], &at))
			return PATH;
	return OTHER;
}

size_t tracer_frames(const struct frame *fr, size_t n, bool *ours)
{
	size_t i, last = 0;
	bool mine = false, foreign = false, any = false;

	for (i = 0; i < n && (fr[i].kind == FRAME_KSYM || fr[i].kind == FRAME_KADDR); i++) {
		enum kind k = fr[i].kind == FRAME_KSYM ? kind_of(fr[i].name, fr[i].name_len) : OTHER;

		if (k == OTHER)
			continue;
		mine |= k == OURS;
		foreign |= k == FOREIGN;
		any = true;
		last = i + 1;
	}
	*ours = mine || !foreign;
	return any ? last : 0;
}
