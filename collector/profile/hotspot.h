/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's Java frames (HotSpot, x86-64): the JVMs the sampling
 * program walks (bpf/hotspot.bpf.h), and the names of their frames.
 *
 * A JVM is registered when its libjvm.so is mapped and its code cache
 * made (the JVM's first tens of milliseconds): the offsets the walker
 * needs, where its code heaps and interpreter are, all from the JVM's
 * own VMStructs tables (vmstructs.h), read through the process's memory.
 * Checked on Debian 12's openjdk-17 and Temurin 25; the layouts that
 * changed between them (CodeBlob's code offsets, nmethod's debug data
 * moved off the code cache in JDK 23-25, HeapBlock's header) are told
 * apart by the fields VMStructs names, not by version numbers.
 *
 * Frames are named while the JVM lives, the first time each is seen,
 * and kept per process (a Method*'s name and line table; a compiled pc's
 * frames): a JVM that exits right after its boot keeps the names of the
 * frames its samples showed while it ran. Names:
 *  - interpreted: `i:LEN:pkg.Class.method (File.java:LINE)`, the line of
 *    its bytecode index from the method's line number table;
 *  - compiled (C1, C2): `j:LEN:pkg.Class.method (File.java:LINE)`, then
 *    the frames it had inlined into it, each its own `j:` frame, from the
 *    nmethod's PcDesc at the pc and its ScopeDesc chain;
 *  - the JVM's stubs: `j:LEN:NAME`, the CodeBlob's name (`Interpreter`,
 *    `StubRoutines (1)`, `_new_instance_Java`...), `call_stub` for the
 *    frame that calls Java from the VM;
 *  - a frame that cannot be read (the JVM gone, a walk gone wrong):
 *    `u:0xADDR`, unnamed.
 * No line: `(File.java)`; no source file: the name alone.
 */
#ifndef COLLECTOR_HOTSPOT_H
#define COLLECTOR_HOTSPOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct backend;
struct hotspot;

/* hotspot__new - none registered yet; @be's hotspot_set registers them (NULL: none can be). */
struct hotspot *hotspot__new(struct backend *be);
void hotspot__free(struct hotspot *hs);

/* hotspot_register()'s answers besides 0 */
#define HOTSPOT_NOT_YET 1	/* libjvm is there, its code cache not made yet: look again soon */

/*
 * hotspot_register - process @pid maps libjvm.so, readable as @file (its
 * /proc/PID/map_files entry), its symbols at their value + @bias: read
 * its VMStructs, register it with the sampling program. 0,
 * HOTSPOT_NOT_YET, or -1 (not a JVM the walker knows: *@why says why).
 */
int hotspot_register(struct hotspot *hs, pid_t pid, const char *file, uint64_t bias,
		     const char **why);

/* hotspot_forget - @pid exec'd or exited: unregistered, its names dropped. */
void hotspot_forget(struct hotspot *hs, pid_t pid);

/*
 * hotspot_frame - the frame(s) of iframe entry @v of JVM @pid (not a
 * BT_HS_NATIVE one: the caller names those as native code), as above,
 * space-separated, innermost first, at most @max of them (a compiled
 * frame's inlined ones cut from the outermost), into @buf (@n bytes,
 * NUL-terminated), *@frames how many. The length, 0 when it does not fit.
 */
size_t hotspot_frame(struct hotspot *hs, pid_t pid, uint64_t v, char *buf, size_t n,
		     unsigned max, unsigned *frames);

#endif /* COLLECTOR_HOTSPOT_H */
