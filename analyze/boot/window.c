// SPDX-License-Identifier: BSD-2-Clause
/* Boot windows for --until: see window.h. */
#include <string.h>

#include "analyze/boot/window.h"

/* A string of the timeline as a row's field. */
static void field(struct tsv_field *f, const struct timeline *tl, uint32_t id)
{
	size_t n = 0;

	f->p = id == TL_NOSTR ? "" : strtab_str(tl->strs, id, &n);
	f->n = (uint32_t)n;
}

/* Count the rows of task @t inside [@t0, @t1]. -1 out of memory. */
static int count_task(struct analysis *a, const struct tl_container *c, const struct tl_task *t,
		      uint64_t t0, uint64_t t1)
{
	const struct timeline *tl = a->tl;
	long last = timeline_row_before(t, t1), k;
	struct tsv_row r;

	memset(&r, 0, sizeof(r));
	field(&r.f[TSV_CONTAINER], tl, c->name);
	for (k = 0; k <= last; k++) {
		const struct tl_row *w = &t->rows[k];
		uint64_t from = w->ts, to = timeline_row_end(w);

		if (w->dur == TL_NONE ? from < t0 : to < t0 || (to == t0 && from < t0))
			continue; /* over before the window */
		r.null = 0;
		if (w->ret == TL_NORET)
			r.null |= 1u << TSV_RET;
		r.ret = w->ret == TL_NORET ? 0 : w->ret;
		if (w->dur == TL_NONE) {
			r.null |= 1u << TSV_DUR_NS;
			r.dur_ns = 0;
		} else {
			if (from < t0 || to > t1)
				a->win.clipped++;
			if (from < t0)
				from = t0;
			if (to > t1)
				to = t1;
			r.dur_ns = to - from;
		}
		field(&r.f[TSV_NAME], tl, w->name);
		field(&r.f[TSV_COMM], tl, timeline_comm_at(t, w->ts));
		if (analysis_count_syscall(a, &r) < 0)
			return -1;
		a->win.rows++;
	}
	return 0;
}

int window_apply(struct analysis *a, uint32_t phase)
{
	const struct timeline *tl = a->tl;
	size_t i, k;

	memset(&a->win, 0, sizeof(a->win));
	a->win.on = true;
	a->win.phase = phase;
	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];
		uint64_t t0 = c->t_start, t1 = timeline_phase(c, phase);

		if (t0 == TL_NONE)
			continue; /* not timed: reported as such by the analysis */
		if (t1 == TL_NONE || t1 < t0) {
			a->win.not_reached++;
			continue;
		}
		a->win.containers++;
		a->win.wall += t1 - t0;
		for (k = 0; k < c->ntasks; k++)
			if (count_task(a, c, &c->tasks[k], t0, t1) < 0)
				return -1;
	}
	return 0;
}
