/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --spans: the interpreters' USDT probes (Ruby require and load, Python
 * import, the JVM's class load and static initializer) attached to
 * bpf/spans.bpf.h's program, once per interpreter file (by inode), for
 * every process: the kernel keeps the traced containers' firings only.
 *
 * Which files: at each exec row of a traced process, the files it runs,
 * reached through /proc/PID/root (an image carries its own interpreter):
 * the binary, its DT_NEEDED libruby or libpython, a java binary's
 * ../lib/server/libjvm.so, and what its maps already hold. That exec row
 * reaches user space after the exec, so an interpreter not seen before
 * can run its first requires before the probes are in (README has the
 * measure). With --spans host, also the host's interpreters (python3*,
 * libpython, libruby, libjvm in their usual places) at start, whose first
 * imports are then never missed; not by default, for each uprobe's detach
 * waits for an RCU grace period at exit (2.1 s for 7 files on the test VM).
 */
#ifndef COLLECTOR_SPANS_H
#define COLLECTOR_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct boottrace_bpf;
struct spans;

/* The attacher for @skel's bt_span program; NULL when out of memory. */
struct spans *spans__new(struct boottrace_bpf *skel, bool verbose);
/* Detach everything and free; NULL is fine. */
void spans__free(struct spans *s);

/*
 * --spans host: attach in the host's interpreter files. The number of
 * files whose probes are attached (0: none found, which is no error).
 */
size_t spans_attach_host(struct spans *s);

/*
 * A traced process @pid exec'd: attach in the interpreter files it runs,
 * each file once. Never fails: a process gone or a file without probes is
 * nothing to attach.
 */
void spans_on_exec(struct spans *s, pid_t pid);

/* Interpreter files attached so far. */
size_t spans_files(const struct spans *s);

#endif /* COLLECTOR_SPANS_H */
