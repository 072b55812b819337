// SPDX-License-Identifier: BSD-2-Clause
/*
 * Jit rows (docs/tsv-format.md, Jit rows): the perf map entries that name
 * the `u:` frames of a process's stacks, read when it exits or execs, or
 * at the collector's end for those still running (collector/profile/jitmaps.h).
 */
#include <stdio.h>

#include "collector/collector.h"
#include "collector/profile/jitmaps.h"
#include "collector/profile/samples.h"
#include "collector/rows/output.h"
#include "common/jit_detail.h"

struct jit_emit {
	struct collector *c;
	struct container *k;
	const struct bt_event_hdr *now;	/* the exit or exec record; NULL at the end */
	bool found;			/* k was looked up */
};

static void emit(void *ctx, const struct bt_event_hdr *h, const struct jitmaps_entry *e)
{
	struct jit_emit *x = ctx;
	struct jit_detail d = { e->start, e->size, e->name, e->len };
	char detail[4200];
	struct row r;
	size_t len = jit_detail_format(&d, detail, sizeof(detail));

	if (!len)
		return;
	if (!x->now && !x->found) {
		x->k = containers_find(&x->c->containers, h->cgroup_id);
		x->found = true;
	}
	records_row_from_hdr(x->c, &r, x->now ? x->now : h, x->k, "jit");
	r.name = field_str("perfmap");
	r.detail = (struct field){ detail, len };
	output_row(x->c->out, &r);
}

void jitrows_take(struct collector *c, struct container *k, const struct bt_event_hdr *h)
{
	struct jit_emit x = { c, k, h, true };

	samples_late(c->samples, (pid_t)h->pid, emit, &x);
}

void jitrows_finish(struct collector *c)
{
	pid_t pid;

	while ((pid = samples_late_any(c->samples))) {
		struct jit_emit x = { c, NULL, NULL, false };

		samples_late(c->samples, pid, emit, &x);
	}
}
