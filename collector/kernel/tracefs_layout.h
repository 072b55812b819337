/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tracepoint record layouts the perf-buffer objects (the legacy and
 * compat builds of bpf/boottrace_legacy.bpf.c) read with plain loads:
 * each field's offset from tracefs' `format` files (tracefs.h) into the
 * object's configuration, checked against the size and kind the programs
 * read, and whether the layouts are the usual ones the objects have built
 * in. A mismatch is one message on stderr naming the tracepoint and field.
 */
#ifndef COLLECTOR_TRACEFS_LAYOUT_H
#define COLLECTOR_TRACEFS_LAYOUT_H

struct bt_legacy_config;
struct tracefs_format;
struct tracefs_field;

/* The index of @event among the @n programs' @events, or -1. */
int tracefs_layout_event_index(const char **events, int n, const char *event);

/*
 * Fill @cfg's offsets from @fmts, the formats of the @n programs'
 * tracepoints @events (a cgroup or scheduler program not loaded has none
 * to fill): 0, -ENOENT (a program or field missing) or -EINVAL (a field
 * of another size or kind than the programs read).
 */
int tracefs_layout_config_offsets(struct bt_legacy_config *cfg, struct tracefs_format *fmts,
				  const char **events, int n);

/* Whether tracepoint field @f is a u64 at an offset the programs can read. */
int tracefs_layout_plain_u64(const struct tracefs_field *f);

/*
 * cgroup mode: whether cgroup_mkdir and cgroup_rmdir carry cgroup ids
 * (5.5+): 1 (cfg->cg_id set), 0, or -errno (their layouts differ).
 */
int tracefs_layout_cgroup_ids(struct bt_legacy_config *cfg, struct tracefs_format *fmts,
			      const char **events, int n);

/* Whether raw_syscalls' fields are where the objects have them built in. */
int tracefs_layout_raw_syscalls_usual(const struct bt_legacy_config *cfg);

/* Whether sched_switch's fields are where bt_sched_switch loads them. */
int tracefs_layout_sched_usual(const struct bt_legacy_config *cfg);

#endif /* COLLECTOR_TRACEFS_LAYOUT_H */
