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
 * before the first user frame) is a program named bt_* (or one of
 * libbpf's bpf_usdt_* functions, which the collector's USDT program
 * calls), or is on that path with no other program on it (a sample in the
 * path before or after the program ran). A stack whose leading frames
 * hold another tool's program (bpf_prog_TAG_NAME, NAME not bt_*, or
 * bpf_prog_TAG: a loader that gave it no name) and none of ours is another BPF program's
 * cost: one frame `[bpf]`, neither the tracer's nor the app's. Pure: no
 * I/O, no allocation.
 *
 * The collector names kernel addresses from kallsyms as it read it at
 * its start: a program loaded later (another tool's, another collector's)
 * is named by the symbol before it, another program, with a large
 * offset: `bpf_prog_TAG_bpf_usdt_arg_cnt+0x4735`.
 */
#ifndef ANALYZE_TRACER_H
#define ANALYZE_TRACER_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/read/frames.h"

/* The frame the tracer's frames become; another tool's program's. */
#define TRACER_FRAME "[boottrace]"
#define TRACER_OTHER_FRAME "[bpf]"

/*
 * tracer_frames - how many of the @n frames @fr (innermost first) are a
 * BPF program's and its path's: 0 when none; else k, frames 0 .. k - 1
 * (the innermost up to the outermost frame of the program or its path)
 * are, and *@ours says whether they are the collector's (else another
 * tool's).
 */
size_t tracer_frames(const struct frame *fr, size_t n, bool *ours);

#endif /* ANALYZE_TRACER_H */
