/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profile: what the CPU did during each container's boot, from the
 * profile rows the timeline kept (its tasks' samples and their stacks).
 *
 * A container's window is critpath's and --until's: from its start to the
 * moment it reached the phase (both ends included); a timed container
 * that never reached it is left out (counted in not_reached), and so are
 * the hosts' rows (container \N) but for the runtime's: the samples of
 * the host tasks that worked for the boot (the client, dockerd,
 * containerd, the shim, runc: host_tasks_mark_runtime()) are the boot's,
 * each process under its own comm. Every sample of its tasks with ts in the
 * window counts once: for its innermost frame's function, "self"; for
 * each function on its stack, "total" (once per sample, however many
 * times the function is on it, as perf report --children does).
 *
 * A function is a name and a module (the file's base name, "[kernel]",
 * "[jit]", "[unknown]"): k: frames are named as the TSV names them,
 * "[unknown]" for a bare kernel address; b: and f: frames through
 * read/symbols.h — the function, else "[BASENAME+0xOFF]" when the file is
 * known, else "[unknown]"; j: frames by their JIT name; u: frames
 * "[unknown]". The tracer's own frames, a sample taken while one of the
 * collector's BPF programs ran in the task (read/tracer.h), are one
 * function "[boottrace]" (module "[boottrace]") in their place, above the
 * frames that reached its hook. The candidate files for build ids are the paths the
 * timeline names: exec filenames, open/openat/openat2/execve/execveat
 * paths and f: frame paths, in order of first appearance. A sample whose
 * stack row is missing, or is empty, is one "[unknown]" frame.
 * Names are raw bytes (hostile): printers escape them.
 *
 * The files whose code stayed unnamed ([BASE+0xOFF] frames at an offset
 * inside the file: not a broken chain's garbage) are listed with their
 * samples over every window (unnamed: a sample counts once per file),
 * so that --profile can say which debug files would name them.
 */
#ifndef ANALYZE_PROFILE_H
#define ANALYZE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"

struct profile_opts {
	const char *const *debug_dirs;	/* --debug-dir, in order */
	size_t ndebug_dirs;
	bool no_system;			/* not /usr/lib/debug (tests) */
	/*
	 * --profile=offcpu: where the tasks waited, not what the CPU did:
	 * each blocked interval (S, D) of the window weighs its off-CPU
	 * stack (the sched row's stack=) by its blocked time, clipped to the
	 * window, a count per microsecond; "samples" are microseconds,
	 * cpu_ns the blocked ns, period_ns 1000; a stack's "self" is the
	 * code that waited (profile_code()), its innermost function when
	 * it names none
	 */
	bool offcpu;
};

/* A function's samples: self (innermost) and total (on the stack). */
struct prof_count {
	uint32_t fn;
	uint64_t self, total;
};

struct profile;

/*
 * Samples of one stack by one comm within one interpreter span (the
 * innermost its task was in: a require, load, import, class or clinit,
 * or none), for folded stacks and flame graphs.
 */
struct prof_folded {
	uint32_t comm;		/* timeline_str() (escaped) */
	uint32_t stack;		/* profile_stack() index */
	const struct tl_task *task;	/* with span: whose span it is */
	uint32_t span;		/* the index in task->spans, or TL_NOSPAN */
	uint64_t count;
};

/* At most this many spans, the innermost's outermost ones, are frames of a folded stack. */
#define PROFILE_SPANS_MAX 32

/*
 * profile_folded_spans - the spans @fo's samples were in, outermost first,
 * into @out (room for PROFILE_SPANS_MAX): frames above the native ones
 * (nearer the root) in folded stacks and flame graphs. Their count.
 */
size_t profile_folded_spans(const struct prof_folded *fo, const struct tl_span **out);

/*
 * profile_span_name - span @sp as a frame, "KIND WHAT" ("load
 * /app/config/initializers/slow.rb"), unescaped into @buf (@n bytes,
 * NUL-terminated). Its length.
 */
size_t profile_span_name(const struct profile *p, const struct tl_span *sp, char *buf, size_t n);

struct prof_ctr {
	size_t ctr;		/* index in tl->ctrs; SIZE_MAX for the aggregate */
	uint64_t t0, t1;	/* its window */
	uint64_t samples;	/* in the window */
	uint64_t cpu_ns;	/* their periods, summed */
	uint64_t period_ns;	/* the period of its first sample (0: none) */
	struct prof_count *fns;	/* by self, total (descending), then name */
	size_t nfns;
	struct prof_folded *folded;	/* in order of first appearance */
	size_t nfolded;
};

/* A file whose code stayed unnamed ([BASE+0xOFF] frames), and its samples. */
struct prof_unnamed {
	uint32_t module;	/* profile_unnamed_path() */
	uint64_t samples;	/* of every window, with a frame of it unnamed */
};

struct prof_stack {
	uint32_t *fns;		/* function ids, innermost first */
	size_t n;
};

struct symbols;

struct profile {
	const struct timeline *tl;
	uint32_t phase;
	bool offcpu;		/* profile_opts' offcpu: the off-CPU view */
	bool any;		/* the timeline has sample rows (offcpu: sched rows' stacks) */
	struct prof_ctr *ctrs;	/* the containers that reached the phase, in order */
	size_t nctrs;
	size_t not_reached;	/* timed containers left out */
	struct prof_ctr all;	/* every container's window together */
	struct prof_unnamed *unnamed;	/* by samples, descending: those with any */
	size_t nunnamed;
	/* internal */
	struct symbols *sym;
	struct strtab *fnkeys;	/* "name\0module" -> function id */
	struct strtab *stack_ix;	/* a stack's string id (4 bytes) -> index */
	struct prof_stack *stacks;
	size_t stacks_cap;
	uint64_t *scratch;	/* per function: self, total, stamp (task_top) */
	size_t scratch_cap;
	struct strtab *umods;	/* unnamed files' paths (raw) -> module id */
	uint32_t *fn_umod;	/* per function: 1 + its unnamed module, or 0 */
	size_t fn_umod_cap;
	uint64_t *umod_size;	/* per unnamed module: its file's size here, or 0 */
	size_t umod_size_cap;
};

/*
 * profile__new - the profiles of @tl's containers (finished) in their
 * windows up to phase @phase. NULL when out of memory.
 */
struct profile *profile__new(const struct timeline *tl, uint32_t phase,
			     const struct profile_opts *o);
/* profile__free - accepts NULL. */
void profile__free(struct profile *p);

/* profile_fn_name - function @fn's name (raw bytes, NUL-terminated). */
const char *profile_fn_name(const struct profile *p, uint32_t fn);
/* profile_fn_module - its module: a base name, "[kernel]", "[jit]" or "[unknown]". */
const char *profile_fn_module(const struct profile *p, uint32_t fn);
/* profile_fn_kernel - whether it is a kernel function. */
bool profile_fn_kernel(const struct profile *p, uint32_t fn);
/* profile_fn_interp - whether it is an interpreter's frame (CPython's, Ruby's: "FUNCTION (FILE:LINE)"). */
bool profile_fn_interp(const struct profile *p, uint32_t fn);

/*
 * profile_unnamed_path - the path (raw bytes, NUL-terminated) of unnamed
 * module @module (a prof_unnamed's): the f: frame's, or the file found
 * for the build id.
 */
const char *profile_unnamed_path(const struct profile *p, uint32_t module);

/*
 * profile_stack - the functions of stack index @ix (a prof_folded's stack),
 * innermost first.
 */
const struct prof_stack *profile_stack(const struct profile *p, uint32_t ix);

/*
 * profile_sample_fn - the function sample @s was in: its stack's innermost
 * (a stack has one at least: "[unknown]" when it has no frames), or -1
 * out of memory.
 */
long profile_sample_fn(struct profile *p, const struct tl_sample *s);

/*
 * profile_code - the code a stack of frames waited in (timeline string
 * @frames, an off-CPU stack: tl_wakeinfo's stack): its innermost
 * interpreter frame when it has one (a CPython or Ruby thread's own
 * function, whose frames the collector takes off-CPU too); else its
 * first function, innermost first, that is the program's own, past the
 * kernel's, libc's, the dynamic loader's, libpthread's, the C++ and GCC
 * runtimes' and Go's runtime's (the wait machinery), and an interpreter's
 * native code (CPython, Ruby, the JVM, node), and frames without a name
 * ([bash+0x9665a]: no symbols). Its function id, and its source line
 * "file.c:42" into @src (@n bytes; "" when DWARF does not say; an
 * interpreter frame's "file.py:LINE", the line its function starts at);
 * -1 when it has none (or @frames is TL_NOSTR), -2 out of memory.
 */
long profile_code(struct profile *p, uint32_t frames, char *src, size_t n);

/* The module of an interpreter frame's function (profile_fn_module()). */
#define INTERP_MODULE "[interpreted]"

/*
 * profile_interp_place - an interpreter frame's name @name (@len bytes,
 * "FUNCTION (FILE:LINE)") split: FUNCTION's length, returned, and
 * "BASE:LINE" (FILE's base name) into @src (@n bytes); @len and "" when
 * @name has no place (not cut: a reader may name anything).
 */
size_t profile_interp_place(const char *name, size_t len, char *src, size_t n);

/*
 * profile_task_top - the (at most) @ntop functions of most self samples of
 * task @t's samples with ts in [@a, @b), into @top by self descending;
 * *@nsamples gets how many samples there were. Returns how many functions
 * were written, or -1 out of memory.
 */
long profile_task_top(struct profile *p, const struct tl_task *t, uint64_t a, uint64_t b,
		      struct prof_count *top, size_t ntop, uint64_t *nsamples);

#endif /* ANALYZE_PROFILE_H */
