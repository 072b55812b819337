/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which exec is a container's entrypoint (its exec phase), and which are a
 * container runtime's own: the analyzer's rule, which the collector's
 * progress line (collector/run/progress.h) follows too. In order:
 *   1. with analyze --exec PATTERN, the first exec whose filename matches;
 *   2. else the first exec the collector marked `init` (name column): after
 *      it the task is pid 1 of a pid namespace below the host's — runc's
 *      runc:[2:INIT] exec'ing the entrypoint, crun and tini alike (the
 *      modern BPF object knows it; older objects and files leave \N);
 *   3. else the first exec that is not a runtime's own (entrypoint_is_runtime()):
 *      runc and crun re-exec themselves (/proc/self/exe, then their memfd
 *      copy as /dev/fd/N or /proc/self/fd/N: CVE-2019-5736), and conmon,
 *      containerd-shim*, runc, crun, youki run in the container's process
 *      tree in pidtree mode. Whether those land in the container's cgroup
 *      is a race (runc joins the cgroup v2 last, after nine v1 hierarchies).
 * busybox runs its applets by exec'ing /proc/self/exe: those come after the
 * entrypoint, so rule 3 skips them only before it, which is what it needs.
 * Both programs use it: analyze for its exec phase, the collector for
 * --metrics' (collector/serve/boots.h says where the two may differ).
 */
#ifndef COMMON_ENTRYPOINT_H
#define COMMON_ENTRYPOINT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * entrypoint_is_runtime - whether an exec of @filename (@n bytes, as the
 * TSV has it, escaped, or raw: the names it knows have nothing to escape)
 * is a container runtime's own.
 */
bool entrypoint_is_runtime(const char *filename, size_t n);

#endif /* COMMON_ENTRYPOINT_H */
