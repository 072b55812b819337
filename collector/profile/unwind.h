/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile-unwind=dwarf|auto: a sample's user stack unwound by the CFI of
 * the files the process maps (.eh_frame, and .debug_frame from a debug
 * file found by build id under /usr/lib/debug), as `perf record
 * --call-graph dwarf` does, from the registers and the top of the stack
 * the BPF program copied (bpf/profile.bpf.h, struct bt_sample_ustack).
 * Code built without frame pointers (Debian's libc, libpython, libruby)
 * keeps its callers.
 *
 * Done here, while the process and its mappings exist, with elfutils'
 * libdwfl: one Dwfl per process, its modules reported from
 * /proc/PID/maps (files opened through /proc/PID/root, so a container's
 * own files), reused across samples and reported again when a frame is in
 * a file no module covers (the process mapped more since: a dlopen); the
 * mappings themselves, for file offsets, from umaps.c's cache. Its memory_read reads the copied stack, and other addresses
 * (the files' mapped data, rarely asked by CFI) from /proc/PID/mem; an
 * address in the stack's mapping but past the copy ends the walk, as it
 * does in perf. The frames come out in the kernel's form (struct
 * bt_stack_build_id: build id and file offset, or the address), so the
 * TSV's frames stay what frame pointers gave (docs/tsv-format.md).
 *
 * A frame outside every executable mapping ends the stack and is not
 * given. Bounded: at UNWIND_MAX processes the cache starts over.
 */
#ifndef COLLECTOR_UNWIND_H
#define COLLECTOR_UNWIND_H

#include <stddef.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

#define UNWIND_MAX 256

/* How user stacks are walked (the values of enum profile_unwind, options.h). */
enum unwind_mode { UNWIND_AUTO, UNWIND_FP, UNWIND_DWARF };

struct unwind;

struct umaps;

/*
 * unwind__new - a cache for @mode reading /proc under @proc ("/proc"),
 * the processes' mappings from @umaps (borrowed: it outlives the cache).
 * NULL when out of memory.
 */
struct unwind *unwind__new(enum unwind_mode mode, const char *proc, struct umaps *umaps);
void unwind__free(struct unwind *w);
/* unwind_forget - @pid exec'd or exited: its Dwfl is dropped. */
void unwind_forget(struct unwind *w, pid_t pid);

/*
 * unwind_stack - the user frames of sample @e, whose registers and
 * copied stack are @us and the us->stack_bytes at @stack, into @out
 * (BT_STACK_MAX entries, innermost first): their count. -1 when the
 * sample's frame-pointer frames (e->ustack) are to stand instead: auto
 * mode and a Go program (Go keeps frame pointers, and its binaries have no
 * .eh_frame), but for the caller of a frameless function, which goleaf.h
 * puts back by the pclntab's SP deltas (then those frames and it are the
 * count); the process gone before its first sample was read; or the
 * walk gave the innermost frame alone where frame pointers gave more (no
 * CFI there: JIT'd code, auto mode).
 */
int unwind_stack(struct unwind *w, const struct bt_sample_event *e,
		 const struct bt_sample_ustack *us, const unsigned char *stack,
		 struct bt_stack_build_id *out);

/* unwind_ns - the CPU time (CLOCK_THREAD_CPUTIME_ID) unwind_stack() took so far, ns. */
unsigned long long unwind_ns(const struct unwind *w);
/* unwind_count - the samples unwind_stack() unwound by CFI so far. */
unsigned long long unwind_count(const struct unwind *w);

#endif /* COLLECTOR_UNWIND_H */
