/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's interpreter frames: the processes that run an interpreter
 * whose frames the sampling program can read (bpf/interp.bpf.h), and the
 * names of those frames.
 *
 * Covered, on x86-64:
 *  - CPython 3.11 (Debian 12's python3.11, the binary or
 *    libpython3.11.so), its struct offsets from a table checked against
 *    python3.11-dbg's DWARF (tests/integration/test_collector_profile_python.sh);
 *  - CRuby 3.1 (Debian 12's ruby3.1: libruby-3.1.so*, or a binary named
 *    ruby or ruby3.1 that exports ruby_single_main_ractor, a static
 *    build; its ruby_version, read from the process, says 3.1.x). No
 *    DWARF for libruby is reachable: the offsets come from 3.1.2's
 *    headers (through rbspy's bindgen of them) and were checked on live
 *    processes, each reading its own structures with them
 *    (tests/tools/rboffsets.rb, in test_collector_profile_ruby: the
 *    running ec's thread is the reading thread, and its methods' labels,
 *    files, first lines and frame magics are Ruby's own); interp.c says
 *    how each was found.
 *  - the JVM (a process that maps libjvm.so): hotspot.h, which registers
 *    it and names its frames (interp_java_frame());
 *  - node (a process that maps node, nodejs or libnode.so with V8's
 *    v8dbg_* symbols): v8.h, which reads them and names its JS frames
 *    (interp_java_frame() too: its stack is laid out as a JVM's).
 * Another version gets its native frames only, and one warning per run.
 *
 * A process is looked at once, at its first sample (again after an exec):
 * its mappings name the interpreter's file, whose symbols give the
 * address the walk starts from (_PyRuntime, ruby_single_main_ractor) and,
 * for CPython, the eval loop's range (_PyEval_EvalFrameDefault; Ruby's
 * vm_exec_core is static and nameless, so the Ruby frames stand in place
 * of the first native frame in libruby and all after it). A frame is a
 * code object's (an iseq's) address; its name is read from the process's
 * memory the first time and kept per process (unless read in part: an
 * object being made or freed there); the sampling program reads them
 * itself the first time a sample shows the object (interp_iname()), so
 * that a name is known before the object can be freed, and again when
 * another object was made at a freed one's address (its tag, a hash of
 * the words that name it, changed: bpf/inames.bpf.h), the newer name
 * then taking the address's place. CPython: `qualname (file.py:LINE)`, with the line the
 * function starts at (co_firstlineno). Ruby: `label (file.rb:LINE)`, the
 * iseq's label (`meth`, `block in meth`, `<class:Foo>`, `<main>`,
 * `<top (required)>`) without the method's class (its owner's name is
 * several lookups away: not read), its path as loaded, and its first
 * line (0 for a file's top level).
 *
 * Threads: only the thread holding the interpreter's lock (the GIL, the
 * GVL) runs interpreted code, and only its samples get interpreter
 * frames; a thread waiting for the lock or running C without it gets its
 * native frames. A Ruby process that made a second ractor gets native
 * frames only (ruby_single_main_ractor is NULL then).
 */
#ifndef COLLECTOR_INTERP_H
#define COLLECTOR_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

struct backend;
struct interp;

/* interp__new - none registered yet; @be's interp_set registers them (NULL: frames off). */
struct interp *interp__new(struct backend *be);
void interp__free(struct interp *in);

/*
 * interp_check - process @pid (a sample of it came): the first time, find
 * out whether it runs an interpreter the sampling program can walk, and
 * register it there. Cheap after the first time.
 */
void interp_check(struct interp *in, pid_t pid);

/* interp_forget - @pid exec'd or exited: unregistered, its names dropped. */
void interp_forget(struct interp *in, pid_t pid);

/* Where a native user frame of @pid is, for splicing the interpreter's frames in. */
enum interp_where {
	INTERP_ELSEWHERE,	/* not in the interpreter's file */
	INTERP_MODULE,		/* in it, not in its eval loop */
	INTERP_EVAL,		/* in its eval loop: one call runs a run of frames */
};
enum interp_where interp_where(struct interp *in, pid_t pid, const struct bt_stack_build_id *b);

/*
 * interp_frame - the frame of interpreter frame @v (an iframe[] entry) of
 * @pid: `i:LEN:NAME` (docs/tsv-format.md, Profile rows), into @buf (@n
 * bytes, NUL-terminated). Its length, 0 when it does not fit.
 */
size_t interp_frame(struct interp *in, pid_t pid, uint64_t v, char *buf, size_t n);

/*
 * interp_java_frame - the frames of a JVM's iframe entry @v (not
 * BT_HS_NATIVE), at most @max: hotspot_frame() (hotspot.h); of node's
 * (BT_HS_V8), its one frame: v8_frame() (v8.h).
 */
size_t interp_java_frame(struct interp *in, pid_t pid, uint64_t v, char *buf, size_t n,
			 unsigned max, unsigned *frames);

/*
 * interp_iname - a code object's names, as the sampling program read them
 * the first time the process's samples showed it, or another object at its
 * address (BT_EV_INAME, before the sample): kept as its name when read
 * whole, in place of any the address had (interp_frame() reads it from
 * the process's memory when none came, or came in part: the old name is
 * dropped then too).
 */
void interp_iname(struct interp *in, const struct bt_iname_event *e);
/*
 * interp_iname_name - record @e's name, `label (file:LINE)` (each part cut
 * at BT_INAME_TEXT - 1 bytes and at a NUL), malloc'd; NULL when a part
 * was not read (or out of memory).
 */
char *interp_iname_name(const struct bt_iname_event *e);
/* interp_iname_counts - the BT_EV_INAME records so far, and those read in part. */
void interp_iname_counts(const struct interp *in, unsigned long long *all, unsigned long long *part);

/* The CPython 3.11 offsets the collector uses, for the test that checks them against DWARF. */
struct interp_py311 {
	unsigned runtime_tstate;	/* _PyRuntime → gilstate.tstate_current */
	unsigned runtime_main;		/* _PyRuntime → interpreters.main */
	struct bt_interp_proc proc;	/* the frame chain's (tstate_addr 0) */
	unsigned co_firstlineno, co_filename, co_qualname;
	unsigned str_length, str_state, str_ascii_data, str_utf8_length, str_utf8;
};
extern const struct interp_py311 interp_py311;

/* The Ruby 3.1 offsets the collector uses, for the test that checks them on a live process. */
struct interp_rb31 {
	struct bt_interp_proc proc;	/* the control frames' (tstate_addr 0) */
	unsigned iseq_body, body_pathobj, body_label, body_first_lineno;
	unsigned str_heap_len, str_heap_ptr, str_embed, ary_embed, ary_heap_ptr;
};
extern const struct interp_rb31 interp_rb31;

#endif /* COLLECTOR_INTERP_H */
