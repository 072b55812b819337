/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tracepoint record layouts from tracefs `format` files. Field offsets are
 * not ABI (sched_process_fork's changed in 6.16), so programs that read a
 * classic tracepoint's record as raw bytes (the legacy object) take them
 * from here at start-up.
 */
#ifndef COLLECTOR_TRACEFS_H
#define COLLECTOR_TRACEFS_H

#include <stddef.h>

#define TRACEFS_MAX_FIELDS 64
#define TRACEFS_NAME_MAX 64

enum tracefs_loc {
	TRACEFS_PLAIN,		/* the value is at offset */
	TRACEFS_DATA_LOC,	/* __data_loc: u32 at offset; data at (v & 0xffff), length v >> 16 */
	TRACEFS_REL_LOC,	/* __rel_loc (5.19): the same, relative to the field's end */
};

struct tracefs_field {
	char name[TRACEFS_NAME_MAX];	/* "args" for "unsigned long args[6]" */
	char type[TRACEFS_NAME_MAX];	/* "unsigned long", "__data_loc char[]" */
	unsigned int offset;
	unsigned int size;
	int is_signed;
	enum tracefs_loc loc;
};

struct tracefs_format {
	char name[TRACEFS_NAME_MAX];	/* the "name:" line */
	long id;			/* the "ID:" line: perf_event_attr.config */
	int nfields;
	struct tracefs_field fields[TRACEFS_MAX_FIELDS];
};

/*
 * Parse the text of a format file. 0, or -EINVAL when there is no ID or no
 * field line, or a field line is malformed (*line says which, 1-based, if
 * @line is not NULL). Fields beyond TRACEFS_MAX_FIELDS: -E2BIG.
 */
int tracefs_parse_format(const char *text, struct tracefs_format *out, int *line);

/* The field called @name, or NULL. */
const struct tracefs_field *tracefs_field(const struct tracefs_format *f, const char *name);

/*
 * The directory where tracefs is mounted, into @dir: the mount in
 * /proc/self/mounts at /sys/kernel/tracing or /sys/kernel/debug/tracing
 * if there is one, any other tracefs mount else, or a new mount at
 * /sys/kernel/tracing. 0 or -errno, with a message on stderr.
 */
int tracefs_dir(char *dir, size_t n);

/*
 * Read and parse @dir/events/@event/format, @event as "sched/sched_process_fork".
 * 0 or -errno, with a message on stderr ("tracepoint ... missing").
 */
int tracefs_read_format(const char *dir, const char *event, struct tracefs_format *out);

/*
 * uprobe_events, the way kernels before the uprobe PMU (4.17) make uprobes:
 * a line "p:GROUP/EVENT PATH:0xOFFSET" ("r:" for a return probe) makes
 * the trace event GROUP/EVENT, whose id perf_event_open(PERF_TYPE_TRACEPOINT)
 * takes; "-:GROUP/EVENT" removes it once no perf event uses it.
 */

/*
 * Add the uprobe event @group/@event at file offset @offset of @path
 * (@retprobe: a return probe) through @dir/uprobe_events. 0, or -errno
 * with a message on stderr; -EINVAL without writing anything for a path
 * with blanks (the syntax cannot carry them). The file is never opened with
 * O_TRUNC, which would remove every uprobe event of the host.
 */
int tracefs_uprobe_add(const char *dir, const char *group, const char *event, const char *path,
		       unsigned long long offset, int retprobe);

/*
 * Remove @group/@event: 0 or -errno, no message. While a perf event uses
 * it the kernel says EBUSY: tried again every 20 ms for up to @wait_ms.
 */
int tracefs_uprobe_del(const char *dir, const char *group, const char *event, int wait_ms);

/* The id of @dir/events/@group/@event (its `id` file): >= 0, or -errno. */
long tracefs_event_id(const char *dir, const char *group, const char *event);

/*
 * The group and event of a uprobe_events line ("p:G/E PATH:0x..."), into
 * @group and @event (each TRACEFS_NAME_MAX). 0, or -1 for a line of
 * another form.
 */
int tracefs_uprobe_parse_line(const char *line, char *group, char *event);

/*
 * Remove the uprobe events of every group @prefix<PID> whose process PID
 * is gone (a collector killed by SIGKILL could not remove its own), one
 * line on stderr per group. Events still in use stay. The number of events
 * removed; 0 when there is no uprobe_events file.
 */
int tracefs_uprobe_remove_stale(const char *dir, const char *prefix);

#endif /* COLLECTOR_TRACEFS_H */
