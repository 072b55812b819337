/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tracer: the tracer's own cost on a sampled stack. A sample taken while
 * one of the collector's BPF programs ran in the traced task (a syscall's
 * sys_enter and sys_exit, the scheduler's tracepoints, a uprobe's) has
 * them on its kernel stack, innermost first: the helpers they called
 * (bpf_ringbuf_reserve), the program itself as the kernel's kallsyms name
 * a JIT'd program, `bpf_prog_TAG_NAME` (TAG 16 hex digits; the
 * collector's are all named bt_*: `bpf_prog_6deef7357e7b4530_bt_sys_enter`),
 * then the path that ran it: a trampoline (`bpf_trampoline_N`), a raw
 * tracepoint's (`bpf_trace_run2`, `__bpf_trace_sys_enter`,
 * `__traceiter_sys_enter`), a perf tracepoint's or uprobe's
 * (`trace_call_bpf`, `perf_trace_run_bpf_submit`, `uprobe_dispatcher`).
 * Those frames are the tracer's, not the app's nor the kernel's work for
 * it: --profile shows them as one frame `[boottrace]` in their place,
 * under the frames that reached the hook (the syscall's entry, the app's).
 *
 * A stack is the tracer's when one of its leading kernel frames (those
 * before the first user frame) is a program named bt_*, or is on that
 * path with no other program on it (a sample in the path before or after
 * the program ran); a stack with another tool's program (bpf_prog_TAG_x,
 * not bt_*) and none of ours is not. Pure: no I/O, no allocation.
 */
#ifndef ANALYZE_TRACER_H
#define ANALYZE_TRACER_H

#include <stddef.h>

#include "analyze/read/frames.h"

/* The frame the tracer's frames become. */
#define TRACER_FRAME "[boottrace]"

/*
 * tracer_frames - how many of the @n frames @fr (innermost first) are
 * the tracer's: 0 when none; else k, frames 0 .. k - 1 (the innermost up
 * to the outermost frame of the program or its path) are.
 */
size_t tracer_frames(const struct frame *fr, size_t n);

#endif /* ANALYZE_TRACER_H */
