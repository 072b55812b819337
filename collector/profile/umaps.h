/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What --profile's user addresses are, when the kernel gave no build id
 * for them (bpf/profile.bpf.h): the process's mappings (/proc/PID/maps)
 * name the file and the offset in it, and for code in anonymous memory
 * its perf map names the JIT'd function (/tmp/perf-PID.map, written by
 * `node --perf-basic-prof`, `python3 -X perf` and JVM agents: in a
 * container that is /proc/PID/root/tmp/perf-NSPID.map, NSPID the pid as
 * the container sees it). Read while the process lives, so that the TSV
 * says it all.
 *
 * A cache of processes, read on first use and again when an address is in
 * no mapping (the process mapped more since) or its perf map grew;
 * forgotten at exec and exit (umaps_forget()). Bounded: at UMAPS_MAX
 * processes it starts over.
 */
#ifndef COLLECTOR_UMAPS_H
#define COLLECTOR_UMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UMAPS_MAX 1024

struct umaps;

/* umaps__new - an empty cache reading /proc under @proc ("/proc"; tests give another). */
struct umaps *umaps__new(const char *proc);
void umaps__free(struct umaps *u);
struct jitmaps;
/*
 * umaps_set_late - the addresses umaps_frame() names `u:` in a live
 * process's anonymous memory go to @j (jitmaps.h), for a perf map written
 * after; NULL: nowhere.
 */
void umaps_set_late(struct umaps *u, struct jitmaps *j);
/* umaps_forget - @pid exec'd or exited: its mappings are not its next ones. */
void umaps_forget(struct umaps *u, pid_t pid);

/*
 * umaps_frame - the frame of user address @ip in process @pid
 * (docs/tsv-format.md, Profile rows): `f:LEN:PATH+0xOFF` in a file
 * mapping, `j:LEN:NAME` in its perf map, else `u:0xADDR` (anonymous
 * memory, or the process gone); into @buf (@n bytes, NUL-terminated). Its
 * length, or 0 when it does not fit or when @ip is in none of the live
 * process's mappings: a frame-pointer chain gone wrong, whose frame ends
 * the stack (docs/tsv-format.md).
 */
size_t umaps_frame(struct umaps *u, pid_t pid, uint64_t ip, char *buf, size_t n);

/* A mapping, as umaps_find() gives it. */
struct umaps_mapping {
	uint64_t start, end, pgoff;	/* its range, and the file offset at start */
	bool named;			/* a file's, [vdso] or [vsyscall]; else anonymous */
};

/*
 * umaps_find - the mapping of user address @ip in process @pid (its maps
 * read again on a miss): 0 and *@m, or -1 when none holds it (or the
 * process is gone).
 */
int umaps_find(struct umaps *u, pid_t pid, uint64_t ip, struct umaps_mapping *m);

/*
 * umaps_ns_pid - the pid of process @pid in its own (innermost) pid
 * namespace, NSpid's last field in @proc/PID/status (@proc "/proc"): the
 * PID of its perf map's name. @pid itself when it cannot be read.
 */
pid_t umaps_ns_pid(const char *proc, pid_t pid);

/*
 * The parsers, pure, for the tests. umaps_parse_maps_line - one line of
 * /proc/PID/maps: 0 and the range, the file offset and the path (@path
 * points into @line, *@path_len 0 for an anonymous mapping), or -1.
 */
int umaps_parse_maps_line(const char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			  const char **path, size_t *path_len);
/*
 * umaps_parse_perfmap_line - one line of a perf map: "START SIZE NAME",
 * hex numbers, NAME to the end of the line (spaces included): 0, or -1.
 */
int umaps_parse_perfmap_line(const char *line, uint64_t *start, uint64_t *size,
			     const char **name, size_t *name_len);

#endif /* COLLECTOR_UMAPS_H */
