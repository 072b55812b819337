/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's JS frames (V8, node, x86-64): the node processes the
 * sampling program walks (bpf/v8.bpf.h), and the names of their frames.
 *
 * A node is registered when its binary (node, nodejs) or libnode.so is
 * mapped and exports V8's postmortem metadata, the v8dbg_* symbols
 * (frame slots, object layouts, instance types, as llnode reads them):
 * no flag to node. Their values are read from the process (those in .bss
 * are 0 there). Checked on node 20 (V8 11.3).
 *
 * A JS frame is its JSFunction's address; named while node lives, as
 * soon as the sample comes (a JSFunction moves when the GC compacts: what
 * is read is checked against the types V8 says), through its
 * SharedFunctionInfo (kept per process, checked each time against the
 * name and script it was read with):
 *  - `j:LEN:NAME FILE:LINE`: the function's name (its inferred name,
 *    `obj.method`, when it has none; `(anonymous)` when neither), its
 *    script's name (the file as node loaded it, `node:internal/...` for
 *    node's own) and the line where the function starts, counted in the
 *    script's source as V8 holds it (no line when the source cannot be
 *    read: node's own scripts are external strings);
 *  - `j:LEN:<module> FILE`: a CommonJS module's top level (the function
 *    node wraps a module's code in, whose source is the whole file) or an
 *    ES module's: the frame above the functions the module's loading ran,
 *    under node's require() frames of the module that required it;
 *  - a function without a script (V8's API functions): its name alone.
 * A sample read after node's memory is gone (it exited, the collector has
 * not seen its exit yet) names its JSFunctions as they were named last.
 * Names are read when first seen, so a node that exits right after its
 * boot keeps them (in the stack rows).
 * Other frames (V8's builtins and stubs, node's C++) are native frames,
 * named from the process's mappings.
 */
#ifndef COLLECTOR_V8_H
#define COLLECTOR_V8_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

struct v8;

struct v8 *v8__new(void);
void v8__free(struct v8 *v);

/*
 * v8_register - process @pid maps @file (its /proc/PID/map_files entry),
 * symbols at their value + @bias: read its v8dbg_* metadata, fill @proc
 * for the sampling program. 0, or -1 (not a V8 the walker knows: *@why).
 */
int v8_register(struct v8 *v, pid_t pid, const char *file, uint64_t bias,
		struct bt_interp_proc *proc, const char **why);

/* v8_forget - @pid exec'd or exited: its names dropped. */
void v8_forget(struct v8 *v, pid_t pid);

/*
 * v8_frame - the frame of BT_HS_V8 entry @v of @pid, as above, into @buf
 * (@n bytes, NUL-terminated): its length; 0 when it does not fit or the
 * entry is not a JSFunction any more (the caller leaves the frame out).
 */
size_t v8_frame(struct v8 *v, pid_t pid, uint64_t e, char *buf, size_t n);

#endif /* COLLECTOR_V8_H */
