/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * goleaf: a Go program's sampled stack given back the caller that the
 * frame-pointer walk skips, by the pclntab's SP-delta table (pcsp, read
 * through common/gosym.h), as Go's own tracebacks and the OpenTelemetry
 * profiler unwind.
 *
 * Go saves a frame pointer in each function that has a frame, but a leaf
 * small enough to keep none (no locals on the stack, no call) saves none,
 * and neither has a function in its prologue or epilogue, or Go's
 * assembly (the system calls' Syscall6): there BP is still the caller's,
 * so the walk by frame pointers (bpf_get_stack()) reads the caller's
 * return address, and the caller itself is lost (the leaf comes out
 * under its caller's caller). The sample's registers and stack copy
 * (--profile-unwind=auto, bpf/profile.bpf.h) say where the return address
 * is: at SP + the pcsp value at the sampled pc. When the frame-pointer
 * stack's second frame is not that address, it is put there, the rest
 * following; the frames keep the kernel's form (build id and file offset,
 * or the address), so the TSV's frames are what they were
 * (docs/tsv-format.md). Only the innermost frame needs it: the frames
 * above are return addresses into functions in a call, whose frame
 * pointer is saved.
 *
 * A process's table is read once, from its executable (/proc/PID/exe),
 * and the executable's code mapping from /proc/PID/maps. The table and
 * the copied stack are hostile: an address outside the executable's
 * code, a return address that is no Go function's, a delta past the
 * copy: the frame-pointer stack stands as it is.
 */
#ifndef COLLECTOR_GOLEAF_H
#define COLLECTOR_GOLEAF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

struct gosym;
struct goleaf;

/*
 * goleaf__new - process @pid's executable, open at @exe_fd (duplicated:
 * the caller keeps its own), read under @proc ("/proc"): its pclntab and
 * its code mapping. NULL when it is no Go program, cannot be read, or out
 * of memory.
 */
struct goleaf *goleaf__new(const char *proc, pid_t pid, int exe_fd);
void goleaf__free(struct goleaf *gl);

/*
 * goleaf_stack - sample @e's frame-pointer frames (e->ustack) with the
 * innermost frame's caller put back, from registers and copied stack @us
 * and the us->stack_bytes at @stack, into @out (BT_STACK_MAX entries):
 * their count; -1 when they stand as they are (none missing, or it
 * cannot be said).
 */
int goleaf_stack(const struct goleaf *gl, const struct bt_sample_event *e,
		 const struct bt_sample_ustack *us, const unsigned char *stack,
		 struct bt_stack_build_id *out);

/*
 * goleaf_fix - the pure core, for the tests: @n frames @in (innermost
 * first, the kernel's form) of a sample at @ip whose stack copy is the
 * @stack_bytes at @stack (from SP), in an executable mapped at [@start,
 * @end) whose link-time address of @start is @va_start and file offset
 * @pgoff, its table @g. As goleaf_stack().
 */
int goleaf_fix(const struct gosym *g, uint64_t start, uint64_t end, uint64_t va_start,
	       uint64_t pgoff, const struct bt_stack_build_id *in, int n, uint64_t ip,
	       const unsigned char *stack, size_t stack_bytes, struct bt_stack_build_id *out);

#endif /* COLLECTOR_GOLEAF_H */
