/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Perf maps read however late they are written. umaps.c names a JIT's
 * frame from the process's perf map (/tmp/perf-PID.map) when the stack
 * is written; a map written later (the JVM's -XX:+DumpPerfMapAtExit at
 * its exit, `jcmd PID Compiler.perfmap` after the boot, .NET's at its
 * end) named none of the frames already written. So the addresses left
 * unnamed in anonymous memory are kept per process, and the map is read
 * again when the process exits or execs, and at the collector's end for
 * those still running: each entry that holds one of them becomes a `jit`
 * row (docs/tsv-format.md, Jit rows), by which analyze names the `u:`
 * frames of that process's samples.
 *
 * A container's /tmp is its own: the map is /proc/PID/root/tmp/
 * perf-NSPID.map, NSPID the pid the container gives it, and the process
 * is gone by the time its map is read. So at its first unnamed address
 * the process's /tmp is opened (O_PATH: a directory held open keeps its
 * mount, even once the container's mount namespace is gone) and its
 * NSPID read; the map is opened through them at the end.
 *
 * Bounded: JITMAPS_PROCS processes (an open fd each) and JITMAPS_ADDRS
 * addresses each; past that, addresses are not kept (they stay `u:`).
 */
#ifndef COLLECTOR_JITMAPS_H
#define COLLECTOR_JITMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

#define JITMAPS_PROCS 256
#define JITMAPS_ADDRS 65536

struct jitmaps;

/* jitmaps__new - none kept yet; /proc is at @proc ("/proc"; the tests give another). */
struct jitmaps *jitmaps__new(const char *proc);
/* jitmaps__free - closes what it holds; accepts NULL. */
void jitmaps__free(struct jitmaps *j);

/*
 * jitmaps_unnamed - user address @ip of process @pid, in anonymous
 * memory, has no name: kept, and the process's /tmp pinned the first time.
 */
void jitmaps_unnamed(struct jitmaps *j, pid_t pid, uint64_t ip);

/* jitmaps_seen - @h is the latest record of a process whose addresses are kept (its task, container). */
void jitmaps_seen(struct jitmaps *j, const struct bt_event_hdr *h);

/* One perf map entry that names kept addresses. */
struct jitmaps_entry {
	uint64_t start, size;
	const char *name;	/* not NUL-terminated */
	size_t len;
};

/*
 * jitmaps_take - read @pid's perf map now (it exited or exec'd), call
 * @emit with each entry that holds an address kept for it (once an entry,
 * by start address) and with the latest record seen of it (@h), then
 * forget it. The number of entries, or 0 (none kept, no map).
 */
size_t jitmaps_take(struct jitmaps *j, pid_t pid,
		    void (*emit)(void *ctx, const struct bt_event_hdr *h,
				 const struct jitmaps_entry *e),
		    void *ctx);

/* jitmaps_any - a process whose addresses are kept, its pid; 0 when none (for the run's end). */
pid_t jitmaps_any(const struct jitmaps *j);

#endif /* COLLECTOR_JITMAPS_H */
