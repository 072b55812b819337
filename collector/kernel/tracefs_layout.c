// SPDX-License-Identifier: BSD-2-Clause
/*
 * The perf-buffer objects' tracepoint record layouts (tracefs_layout.h):
 * where the programs read each field, from tracefs `format` files, into
 * the legacy object's configuration. Out of backend_perf.c, which loads
 * and runs the objects.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "bpf/boottrace_legacy.h"
#include "collector/kernel/backend.h"
#include "collector/kernel/tracefs.h"
#include "collector/kernel/tracefs_layout.h"

/*
 * The record fields the programs read, and where their offsets go.
 * @optional: the fields of programs that are not always loaded: the
 * compat object's cgroup programs, in cgroup mode only (their `id`
 * fields, whose size says what they are, see tracefs_layout_cgroup_ids()), and the
 * scheduler programs, with --sched on only.
 */
static const struct field_spec {
	const char *event, *field;
	unsigned int size;
	enum tracefs_loc loc;
	size_t cfg_off;
	int optional;
} field_specs[] = {
#define F(ev, name, sz, loc, member) { ev, name, sz, loc, offsetof(struct bt_legacy_config, member), 0 }
#define C(ev, name, sz, loc, member) { ev, name, sz, loc, offsetof(struct bt_legacy_config, member), 1 }
	F("raw_syscalls/sys_enter", "id", 8, TRACEFS_PLAIN, enter_id),
	F("raw_syscalls/sys_enter", "args", 48, TRACEFS_PLAIN, enter_args),
	F("raw_syscalls/sys_exit", "id", 8, TRACEFS_PLAIN, exit_id),
	F("raw_syscalls/sys_exit", "ret", 8, TRACEFS_PLAIN, exit_ret),
	F("sched/sched_process_fork", "child_pid", 4, TRACEFS_PLAIN, fork_child_pid),
	F("sched/sched_process_exec", "filename", 4, TRACEFS_DATA_LOC, exec_filename),
	F("sched/sched_process_exec", "pid", 4, TRACEFS_PLAIN, exec_pid),
	F("sched/sched_process_exec", "old_pid", 4, TRACEFS_PLAIN, exec_old_pid),
	F("signal/signal_generate", "sig", 4, TRACEFS_PLAIN, sgen_sig),
	F("signal/signal_generate", "pid", 4, TRACEFS_PLAIN, sgen_pid),
	F("signal/signal_generate", "result", 4, TRACEFS_PLAIN, sgen_result),
	F("signal/signal_deliver", "sig", 4, TRACEFS_PLAIN, sdel_sig),
	F("signal/signal_deliver", "sa_handler", 8, TRACEFS_PLAIN, sdel_handler),
	C("cgroup/cgroup_mkdir", "root", 4, TRACEFS_PLAIN, cg_root),
	C("cgroup/cgroup_mkdir", "path", 4, TRACEFS_DATA_LOC, cg_path),
	C("cgroup/cgroup_attach_task", "dst_root", 4, TRACEFS_PLAIN, att_root),
	C("cgroup/cgroup_attach_task", "pid", 4, TRACEFS_PLAIN, att_pid),
	C("sched/sched_switch", "prev_comm", 16, TRACEFS_PLAIN, sw_prev_comm),
	C("sched/sched_switch", "prev_pid", 4, TRACEFS_PLAIN, sw_prev_pid),
	C("sched/sched_switch", "prev_state", 8, TRACEFS_PLAIN, sw_prev_state),
	C("sched/sched_switch", "next_comm", 16, TRACEFS_PLAIN, sw_next_comm),
	C("sched/sched_switch", "next_pid", 4, TRACEFS_PLAIN, sw_next_pid),
	C("sched/sched_waking", "pid", 4, TRACEFS_PLAIN, wk_pid),
	C("sched/sched_wakeup_new", "pid", 4, TRACEFS_PLAIN, wn_pid),
	C("sched/sched_process_free", "pid", 4, TRACEFS_PLAIN, free_pid),
#undef C
#undef F
};

static const char *loc_name(enum tracefs_loc loc)
{
	return loc == TRACEFS_DATA_LOC ? "a __data_loc field" :
	       loc == TRACEFS_REL_LOC ? "a __rel_loc field" : "a plain field";
}

/* The index of @event among the @n programs' @events, or -1. */
int tracefs_layout_event_index(const char **events, int n, const char *event)
{
	int j;

	for (j = 0; j < n; j++)
		if (!strcmp(events[j], event))
			return j;
	return -1;
}

/*
 * Fill @cfg's offsets from the formats of the programs' tracepoints (a
 * cgroup program not loaded has none to fill).
 */
int tracefs_layout_config_offsets(struct bt_legacy_config *cfg, struct tracefs_format *fmts,
			  const char **events, int n)
{
	size_t i;
	int j;

	for (i = 0; i < sizeof(field_specs) / sizeof(field_specs[0]); i++) {
		const struct field_spec *s = &field_specs[i];
		const struct tracefs_field *f = NULL;

		j = tracefs_layout_event_index(events, n, s->event);
		if (j < 0 && s->optional)
			continue;
		if (j < 0) {
			fprintf(stderr, "collector: the BPF object has no program on %s\n", s->event);
			return -ENOENT;
		}
		f = tracefs_field(&fmts[j], s->field);
		if (!f) {
			fprintf(stderr, "collector: tracepoint %s has no field '%s' (its format changed?)\n",
				s->event, s->field);
			return -ENOENT;
		}
		if (f->size != s->size || f->loc != s->loc || f->offset > 0xfff) {
			fprintf(stderr, "collector: tracepoint %s: field '%s' is %u bytes at %u, %s; "
				"the BPF object reads %u bytes, %s\n", s->event, s->field,
				f->size, f->offset, loc_name(f->loc), s->size, loc_name(s->loc));
			return -EINVAL;
		}
		*(__u32 *)((char *)cfg + s->cfg_off) = f->offset;
	}
	return 0;
}

/* Whether tracepoint field @f is a u64 at an offset the programs can read. */
int tracefs_layout_plain_u64(const struct tracefs_field *f)
{
	return f && f->size == 8 && f->loc == TRACEFS_PLAIN && f->offset <= 0xfff;
}

/*
 * cgroup mode: whether cgroup_mkdir and cgroup_rmdir carry the id
 * bpf_get_current_cgroup_id returns: a u64 since 5.5 ("cgroup: use
 * cgrp->kn->id as the cgroup ID", 743210386c03), before it an int, the
 * cgroup's number in its hierarchy. 1 (and cfg->cg_id set), 0, or -EINVAL
 * when the two events' layouts differ (they are one event class, and the
 * programs read both at the same offsets).
 * BOOTTRACE_COMPAT_NO_CGROUP_IDS=1 answers 0 (tests: what a 4.18 to 5.4
 * kernel does).
 */
int tracefs_layout_cgroup_ids(struct bt_legacy_config *cfg, struct tracefs_format *fmts,
		      const char **events, int n)
{
	static const char *const fields[] = { "root", "id", "path" };
	int mk = tracefs_layout_event_index(events, n, "cgroup/cgroup_mkdir");
	int rm = tracefs_layout_event_index(events, n, "cgroup/cgroup_rmdir");
	const struct tracefs_field *f, *g;
	size_t i;

	if (mk < 0 || rm < 0) {
		fprintf(stderr, "collector: the compat BPF object has no cgroup_mkdir or cgroup_rmdir program\n");
		return -ENOENT;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		f = tracefs_field(&fmts[mk], fields[i]);
		g = tracefs_field(&fmts[rm], fields[i]);
		if (!f || !g || f->offset != g->offset || f->size != g->size || f->loc != g->loc) {
			fprintf(stderr, "collector: tracepoints cgroup_mkdir and cgroup_rmdir differ in "
				"their field '%s' (the compat object reads both alike)\n", fields[i]);
			return -EINVAL;
		}
	}
	f = tracefs_field(&fmts[mk], "id");
	if (!tracefs_layout_plain_u64(f) || test_knob("BOOTTRACE_COMPAT_NO_CGROUP_IDS"))
		return 0;
	cfg->cg_id = f->offset;
	return 1;
}

/*
 * Whether the programs may read raw_syscalls' fields with plain loads
 * (BT_LEGACY_RAW_SYSCALLS): the verifier allows constant context offsets
 * only, so the object has them built in, and they must be what tracefs
 * says. BOOTTRACE_LEGACY_PROBE_READ=1 forces the bpf_probe_read path
 * (tests, benchmarks).
 */
int tracefs_layout_raw_syscalls_usual(const struct bt_legacy_config *cfg)
{
	if (test_knob("BOOTTRACE_LEGACY_PROBE_READ"))
		return 0;
	return cfg->enter_id == 8 && cfg->enter_args == 16 && cfg->exit_id == 8 &&
	       cfg->exit_ret == 16;
}

/*
 * Whether sched_switch's fields are where bt_sched_switch loads them
 * (bpf/sched_legacy.bpf.h): then it is loaded, else bt_sched_switch_read,
 * which reads them with bpf_probe_read. The same knob as
 * tracefs_layout_raw_syscalls_usual() forces bpf_probe_read.
 */
int tracefs_layout_sched_usual(const struct bt_legacy_config *cfg)
{
	if (test_knob("BOOTTRACE_LEGACY_PROBE_READ"))
		return 0;
	return cfg->sw_prev_pid == 24 && cfg->sw_prev_state == 32 && cfg->sw_next_pid == 56;
}
