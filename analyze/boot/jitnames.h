/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JIT names that came late (docs/tsv-format.md, Jit rows): a process's
 * `jit` rows, written by the collector when it exited or exec'd (or at
 * the collector's end), are the entries of its perf map that name code its
 * stacks showed as `u:0xADDR` (a map written after those stacks: the
 * JVM's -XX:+DumpPerfMapAtExit, jcmd's Compiler.perfmap). Once the files
 * are read, each sample of that process taken before its jit rows gets its
 * stack with those frames as `j:LEN:NAME`: a stack string of its own, as
 * if the collector had named them, so every reader of the timeline
 * (--profile, the flame graphs, the critical path) sees the names.
 *
 * A pid's rows apply to its samples up to the rows' time (the process
 * that had that pid then); of two entries at one address, the later row.
 */
#ifndef ANALYZE_JITNAMES_H
#define ANALYZE_JITNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/timeline.h"
#include "analyze/read/frames.h"
#include "analyze/read/reader.h"

struct jitnames;

/*
 * jitnames_add - keep jit row @r (the reader checked its detail) in *@jp,
 * made the first time. 0, or -1 out of memory.
 */
int jitnames_add(struct jitnames **jp, const struct tsv_row *r);
/* jitnames__free - accepts NULL. */
void jitnames__free(struct jitnames *j);

/*
 * jitnames_apply - give the samples of @tl (finished: timeline_finish())
 * whose stacks hold `u:` frames that @j names their stacks with those
 * frames named. @j NULL: nothing to do. 0, or -1 out of memory.
 */
int jitnames_apply(struct jitnames *j, struct timeline *tl);

/* One entry: [start, end) named name (name_n bytes, raw). */
struct jitname {
	uint64_t start, end;
	const char *name;
	size_t name_n;
};

/*
 * jitnames_rewrite - pure: the stack @esc (@n bytes as the file has them,
 * escaped) with each `u:` frame that one of @v (@nv, sorted by start, no
 * two overlapping) holds written `j:LEN:NAME`, escaped, into @out (room for
 * TSV_ESCAPED_MAX(@n + the names) bytes; @scratch room for @n bytes and
 * @fr for FRAMES_MAX frames). Its length, or 0 when no frame changed (or
 * the stack does not parse).
 */
size_t jitnames_rewrite(const struct jitname *v, size_t nv, const char *esc, size_t n, char *out,
			size_t outsz, char *scratch, struct frame *fr);

#endif /* ANALYZE_JITNAMES_H */
