/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The files a profile's frames may be in, offered to symbols.h as
 * candidates for build ids (symbols_add_path()): a frame's build id names
 * its file only if a file with that id is found, and these are where to
 * look first, before the debug directories and debuginfod:
 *
 *   - every path the timeline names: exec rows' files, the paths of
 *     open, openat, openat2, creat, execve and execveat rows;
 *   - the binaries of sampled processes by their comm, in the usual
 *     directories of binaries (a daemon that started before the
 *     collector, dockerd or containerd, is named by nothing else);
 *   - the paths of f: frames, in the stacks of the samples and of the
 *     off-CPU intervals (sched rows' stack=).
 *
 * A wrong guess costs a build id read and names nothing.
 */
#ifndef ANALYZE_BINARIES_H
#define ANALYZE_BINARIES_H

#include "analyze/boot/timeline.h"
#include "analyze/read/frames.h"

struct symbols;

/*
 * binaries_offer - offer every file @tl names to @sym, in the order
 * above. @scratch (TSV_MAX_LINE + 1 bytes) and @fr (FRAMES_MAX frames)
 * are the caller's buffers. 0, or -1 out of memory.
 */
int binaries_offer(const struct timeline *tl, struct symbols *sym, char *scratch, struct frame *fr);

#endif
