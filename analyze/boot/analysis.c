// SPDX-License-Identifier: BSD-2-Clause
/* Rows to phases and per-key totals: see analysis.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/array.h"
#include "analyze/boot/analysis.h"
#include "analyze/boot/analysis_int.h"
#include "analyze/boot/jitnames.h"
#include "analyze/boot/pod_boot.h"
#include "analyze/boot/pods.h"
#include "analyze/read/keycache.h"
#include "analyze/stats/stats.h"
#include "common/end_detail.h"
#include "common/entrypoint.h"

/* A container of a run carried to the run's next file (analysis.h). */
struct carried {
	struct file_ctr c;	/* its times so far; marks in analysis.cm */
	uint32_t file;		/* the file of its start row */
	bool live;		/* not timed yet */
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return array_grow(p, cap, need, size, 16);
}

static void group_table_release(struct group_table *t)
{
	size_t i, n = t->keys ? strtab_count(t->keys) : 0;

	for (i = 0; i < n; i++)
		llhist_release(&t->g[i].h);
	free(t->g);
	strtab__free(t->keys);
	free(t->kc);
	memset(t, 0, sizeof(*t));
}

/*
 * The group of key @s, created when new; NULL when out of memory. @cached:
 * @s is a field of a row (see kc_intern()).
 */
static inline __attribute__((always_inline)) struct group *
group_get(struct group_table *t, const char *s, size_t n, bool cached, long *id_out)
{
	int added;
	long id = kc_intern(cached ? t->kc : NULL, t->keys, s, n, &added);

	if (id < 0)
		return NULL;
	if (added) {
		if (grow((void **)&t->g, &t->cap, (size_t)id + 1, sizeof(*t->g)) < 0)
			return NULL;
		memset(&t->g[id], 0, sizeof(t->g[id]));
		t->g[id].min = UINT64_MAX;
		llhist_init(&t->g[id].h);
	}
	if (id_out)
		*id_out = id;
	return &t->g[id];
}

struct group *analysis_group_get(struct group_table *t, const char *s, size_t n)
{
	return group_get(t, s, n, false, NULL);
}

static int group_add(struct group *g, const struct tsv_row *r)
{
	g->calls++;
	if (!(r->null & (1u << TSV_RET)) && r->ret < 0)
		g->errors++;
	if (r->null & (1u << TSV_DUR_NS))
		return 0;
	g->timed++;
	g->total += r->dur_ns;
	if (r->dur_ns < g->min)
		g->min = r->dur_ns;
	if (r->dur_ns > g->max)
		g->max = r->dur_ns;
	return llhist_add(&g->h, r->dur_ns);
}

uint64_t group_percentile(const struct group *g, unsigned p)
{
	uint64_t v;

	if (!g->timed)
		return 0;
	/* The extreme ranks are known exactly: a p99 of 100 or fewer values is
	 * their maximum, whatever the bucket width. */
	if (stats_rank(p, g->timed) == g->timed)
		return g->max;
	if (stats_rank(p, g->timed) == 1)
		return g->min;
	v = llhist_percentile(&g->h, p);
	if (v < g->min)
		v = g->min;
	if (v > g->max)
		v = g->max;
	return v;
}

struct analysis *analysis__new(const struct analyze_opts *opts)
{
	struct analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->opts = *opts;
	a->phase_names = strtab__new();
	a->ctr_names = strtab__new();
	a->by.keys = strtab__new();
	a->sys.keys = strtab__new();
	a->by.kc = calloc(1, sizeof(*a->by.kc));
	a->sys.kc = calloc(1, sizeof(*a->sys.kc));
	a->kc_ctr = malloc(sizeof(*a->kc_ctr));
	a->scratch = malloc(TSV_MAX_LINE + 1);
	if (!a->phase_names || !a->ctr_names || !a->by.keys || !a->sys.keys ||
	    !a->by.kc || !a->sys.kc || !a->kc_ctr || !a->scratch ||
	    strtab_intern(a->phase_names, "exec", 4, NULL) != PHASE_EXEC ||
	    strtab_intern(a->phase_names, "listen", 6, NULL) != PHASE_LISTEN ||
	    grow((void **)&a->phases, &a->phases_cap, 2, sizeof(*a->phases)) < 0 ||
	    (opts->timeline && !(a->tl = timeline__new())) ||
	    ((BY_META(opts->by) || opts->names || opts->timeline) && !(a->pods = pods__new()))) {
		analysis__free(a);
		return NULL;
	}
	memset(a->phases, 0, 2 * sizeof(*a->phases));
	return a;
}

void analysis__free(struct analysis *a)
{
	size_t i;

	if (!a)
		return;
	if (a->phase_names)
		for (i = 0; i < strtab_count(a->phase_names); i++)
			free(a->phases[i].v);
	free(a->phases);
	strtab__free(a->phase_names);
	strtab__free(a->ctr_names);
	pods__free(a->pods);
	free(a->ctrs);
	free(a->cphases);
	group_table_release(&a->by);
	group_table_release(&a->sys);
	strtab__free(a->fnames);
	free(a->fc);
	free(a->fm);
	free(a->kc_ctr);
	free(a->scratch);
	timeline__free(a->tl);
	jitnames__free(a->jit);
	strtab__free(a->carry_names);
	free(a->carry);
	free(a->cm);
	free(a->run_id);
	resource_files_release(&a->res);
	free(a);
}

size_t analysis_nphases(const struct analysis *a)
{
	return strtab_count(a->phase_names);
}

const char *analysis_phase_name(const struct analysis *a, size_t i)
{
	if (i == PHASE_END)
		return "end";
	if (i >= strtab_count(a->phase_names))
		return "(none)";	/* a window no container reached (main.c) */
	return strtab_str(a->phase_names, i, NULL);
}

int analysis_begin_file(struct analysis *a)
{
	strtab__free(a->fnames);
	a->fnames = strtab__new();
	a->nfm = 0;
	memset(a->kc_ctr, 0, sizeof(*a->kc_ctr));
	if (a->tl && timeline_begin_file(a->tl) < 0)
		return -1;
	return a->fnames ? 0 : -1;
}

/* Does the unescaped value of field @f match @glob? */
static bool field_matches(struct analysis *a, const struct tsv_field *f,
			  const char *glob)
{
	return tsv_glob_match(f->p, f->n, glob, a->scratch);
}

/* The id of phase @s (a mark label), created when new; -1 out of memory. */
static long phase_get(struct analysis *a, const char *s, size_t n)
{
	int added;
	long id = strtab_intern(a->phase_names, s, n, &added);

	if (id < 0)
		return -1;
	if (added) {
		if (grow((void **)&a->phases, &a->phases_cap, (size_t)id + 1,
			 sizeof(*a->phases)) < 0)
			return -1;
		memset(&a->phases[id], 0, sizeof(a->phases[id]));
	}
	return id;
}

/*
 * Mark @phase at @ts into the list at *@head in *@fm (*@n used of *@cap),
 * for container @ctr: the smaller time when the phase is there. 0, or -1
 * out of memory.
 */
static int list_mark_min(struct file_mark **fm, size_t *n, size_t *cap, int32_t *head,
			 uint32_t ctr, uint32_t phase, uint64_t ts)
{
	int32_t k;

	for (k = *head; k >= 0; k = (*fm)[k].next) {
		if ((*fm)[k].phase == phase) {
			if (ts < (*fm)[k].ts)
				(*fm)[k].ts = ts;
			return 0;
		}
	}
	if (grow((void **)fm, cap, *n + 1, sizeof(**fm)) < 0)
		return -1;
	(*fm)[*n].phase = phase;
	(*fm)[*n].ctr = ctr;
	(*fm)[*n].ts = ts;
	(*fm)[*n].next = *head;
	*head = (int32_t)(*n)++;
	return 0;
}

/* Container @ctr reached mark @phase at @ts. 0, or -1 out of memory. */
static int mark_min(struct analysis *a, uint32_t ctr, uint32_t phase, uint64_t ts)
{
	return list_mark_min(&a->fm, &a->nfm, &a->fm_cap, &a->fc[ctr].marks, ctr, phase, ts);
}

int analysis_mark_min(struct analysis *a, uint32_t ctr, uint32_t phase, uint64_t ts)
{
	return mark_min(a, ctr, phase, ts);
}

long analysis_phase_get(struct analysis *a, const char *s, size_t n)
{
	return phase_get(a, s, n);
}

/*
 * The id of container @s in the current file, created when new; -1 out of
 * memory. @cached: @s is a field of a row (see kc_intern()).
 */
static inline __attribute__((always_inline)) long
file_ctr_get(struct analysis *a, const char *s, size_t n, bool cached)
{
	int added;
	long id = kc_intern(cached ? a->kc_ctr : NULL, a->fnames, s, n, &added);
	struct file_ctr *c;

	if (id < 0)
		return -1;
	if (added) {
		if (grow((void **)&a->fc, &a->fc_cap, (size_t)id + 1, sizeof(*a->fc)) < 0)
			return -1;
		c = &a->fc[id];
		c->t_start = c->t_exec = c->t_init = c->t_listen = NONE;
		c->rows = 0;
		c->marks = -1;
		c->selected = -1;
		c->keep = -1;
		c->ended = 0;
		c->by_id = -1;
		c->t_end = c->t_exit = NONE;
		c->end_how = END_UNKNOWN;
	}
	return id;
}

long analysis_file_ctr_get(struct analysis *a, const char *s, size_t n)
{
	return file_ctr_get(a, s, n, false);
}

/*
 * Count syscall row @r in the per-syscall and --by tables. @c: its file
 * container (caches its --by container group), or NULL. @cached: @r's
 * fields are a reader's row (see kc_intern()). 0, or -1 out of memory.
 */
static inline __attribute__((always_inline)) int
count_syscall(struct analysis *a, struct file_ctr *c, const struct tsv_row *r, bool cached)
{
	const struct tsv_field *name = &r->f[TSV_NAME], *cf = &r->f[TSV_CONTAINER];

	if (a->opts.by == BY_SYSCALL || a->opts.syscalls) {
		struct group *g = group_get(&a->sys, name->p, name->n, cached, NULL);

		if (!g || group_add(g, r) < 0)
			return -1;
	}
	if (a->opts.by == BY_CONTAINER) {
		struct group *g;
		long gid;

		if (!c || c->by_id < 0) {
			if (!group_get(&a->by, cf->p, cf->n, cached, &gid))
				return -1;
			if (c)
				c->by_id = (int32_t)gid;
		} else {
			gid = c->by_id;
		}
		g = &a->by.g[gid];
		if (group_add(g, r) < 0)
			return -1;
	} else if (a->opts.by == BY_COMM) {
		const struct tsv_field *comm = &r->f[TSV_COMM];
		struct group *g = group_get(&a->by, comm->p, comm->n, cached, NULL);

		if (!g || group_add(g, r) < 0)
			return -1;
	}
	return 0;
}

int analysis_count_syscall(struct analysis *a, const struct tsv_row *r)
{
	return count_syscall(a, NULL, r, false);
}

int analysis_add_row(struct analysis *a, const struct tsv_row *r)
{
	const struct tsv_field *cf = &r->f[TSV_CONTAINER], *ev = &r->f[TSV_EVENT];
	struct file_ctr *c;
	long id;

	/* a jit row names the `u:` frames of its process's stacks (jitnames.h) */
	if (field_is(ev, "jit", 3)) {
		a->rows++;
		return a->tl ? jitnames_add(&a->jit, r) : 0;
	}
	/*
	 * A host row (container \N: a task outside every container, recorded
	 * around a boot for the runtime's side of it) is no container's: only
	 * the timeline keeps it, for the containers' critical paths.
	 */
	if (tsv_is_null(cf->p, cf->n)) {
		a->rows++;
		return a->tl ? timeline_add_row(a->tl, r) : 0;
	}
	id = file_ctr_get(a, cf->p, cf->n, true);
	if (id < 0)
		return -1;
	a->rows++;
	c = &a->fc[id];
	c->rows++;
	if (c->selected < 0)
		c->selected = !a->opts.container_glob ||
			      field_matches(a, cf, a->opts.container_glob);
	/*
	 * A stack row is the file's: the samples of every container name it
	 * (docs/tsv-format.md), whichever container's sample came first.
	 */
	if (a->tl && field_is(ev, "stack", 5))
		return timeline_add_row(a->tl, r);
	if (!c->selected)
		return 0;
	if (a->tl) {
		if (c->keep < 0)
			c->keep = !a->opts.tl_keep ||
				  a->opts.tl_keep(a->opts.tl_keep_ctx, a->nfiles, cf->p, cf->n);
		if (c->keep && timeline_add_row(a->tl, r) < 0)
			return -1;
	}

	if (field_is(ev, "syscall", 7)) {
		const struct tsv_field *name = &r->f[TSV_NAME];

		if (field_is(name, "listen", 6) && !(r->null & (1u << TSV_RET)) &&
		    r->ret == 0 && !(r->null & (1u << TSV_TS_NS))) {
			uint64_t t = r->ts_ns;

			if (a->pods && pods_row(a->pods, a->nfiles, a->run_id, r) < 0)
				return -1;

			if (!(r->null & (1u << TSV_DUR_NS)))
				t += r->dur_ns;
			if (t < c->t_listen)
				c->t_listen = t;
		}
		if (!a->opts.windowed && count_syscall(a, c, r, true) < 0)
			return -1;
		return 0;
	}
	if (r->null & (1u << TSV_TS_NS))
		return 0; /* cannot be placed in time */
	if (a->pods && (field_is(ev, "start", 5) || field_is(ev, "exec", 4) ||
			field_is(ev, "end", 3) || field_is(ev, "meta", 4)) &&
	    pods_row(a->pods, a->nfiles, a->run_id, r) < 0)
		return -1;
	if (field_is(ev, "start", 5)) {
		if (r->ts_ns < c->t_start)
			c->t_start = r->ts_ns;
	} else if (field_is(ev, "exec", 4)) {
		const struct tsv_field *file = &r->f[TSV_DETAIL];

		if (a->opts.exec_pattern) {
			if (r->ts_ns < c->t_exec && field_matches(a, file, a->opts.exec_pattern))
				c->t_exec = r->ts_ns;
		} else {
			if (r->ts_ns < c->t_init && field_is(&r->f[TSV_NAME], "init", 4))
				c->t_init = r->ts_ns;
			if (r->ts_ns < c->t_exec && !entrypoint_is_runtime(file->p, file->n))
				c->t_exec = r->ts_ns;
		}
	} else if (field_is(ev, "mark", 4)) {
		long ph = phase_get(a, r->f[TSV_NAME].p, r->f[TSV_NAME].n);

		return ph < 0 ? -1 : mark_min(a, (uint32_t)id, (uint32_t)ph, r->ts_ns);
	} else if (field_is(ev, "exit", 4)) {
		if (c->t_exit == NONE || r->ts_ns > c->t_exit)
			c->t_exit = r->ts_ns;
	} else if (field_is(ev, "end", 3)) {
		c->ended = 1;
		if (r->ts_ns < c->t_end) {
			long pid;

			c->t_end = r->ts_ns;
			c->end_how = end_detail_parse(r->f[TSV_DETAIL].p, r->null & (1u << TSV_DETAIL) ?
						      0 : r->f[TSV_DETAIL].n, &pid);
		}
	} else if (field_is(ev, "sample", 6)) {
		a->samples++;
	}
	return 0;
}

static int push_value(struct analysis *a, uint32_t ctr, uint32_t phase, int64_t v)
{
	struct phase *p = &a->phases[phase];

	if (grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) < 0 ||
	    grow((void **)&a->cphases, &a->cphases_cap, a->ncphases + 1,
		 sizeof(*a->cphases)) < 0)
		return -1;
	p->v[p->n++] = v;
	a->cphases[a->ncphases].phase = phase;
	a->cphases[a->ncphases].v = v;
	a->ncphases++;
	a->ctrs[ctr].n++;
	return 0;
}

/* The exec phase's time of @c: its first init exec, else its entrypoint's. */
static uint64_t exec_time(const struct file_ctr *c)
{
	return c->t_init != NONE ? c->t_init : c->t_exec;
}

/* The phase times of file container @c into the timeline. 0, or -1 out of memory. */
static int timeline_phases(struct analysis *a, const struct file_ctr *c, const char *name,
			   size_t len)
{
	long ci = timeline_find_container(a->tl, name, len);
	int32_t k;

	if (ci < 0)
		return 0; /* not reached: a selected container's rows are in it */
	if (exec_time(c) != NONE &&
	    timeline_set_phase(a->tl, (size_t)ci, PHASE_EXEC, exec_time(c)) < 0)
		return -1;
	if (c->t_listen != NONE &&
	    timeline_set_phase(a->tl, (size_t)ci, PHASE_LISTEN, c->t_listen) < 0)
		return -1;
	for (k = c->marks; k >= 0; k = a->fm[k].next)
		if (timeline_set_phase(a->tl, (size_t)ci, a->fm[k].phase, a->fm[k].ts) < 0)
			return -1;
	return 0;
}

/*
 * Container @c (its marks listed in @fm) named @cname (@clen bytes, as in
 * the file) of file @file is timed: its phases go into the table. 0, or -1
 * out of memory.
 */
static int fold_ctr(struct analysis *a, const char *cname, size_t clen, uint32_t file,
		    const struct file_ctr *c, const struct file_mark *fm)
{
	long nid = strtab_intern(a->ctr_names, cname, clen, NULL);
	uint64_t t_exec;
	uint32_t me;
	int32_t k;

	if (nid < 0 || grow((void **)&a->ctrs, &a->ctrs_cap, a->nctrs + 1, sizeof(*a->ctrs)) < 0)
		return -1;
	me = (uint32_t)a->nctrs++;
	a->ctrs[me].name = (uint32_t)nid;
	a->ctrs[me].file = file;
	a->ctrs[me].first = a->ncphases;
	a->ctrs[me].n = 0;
	a->ctrs[me].how = c->end_how;
	a->ctrs[me].life = -1;
	if (c->t_end != NONE) {
		/* its last process's exit, as boot/ending.h takes it */
		uint64_t end = c->t_exit != NONE && c->t_exit <= c->t_end ? c->t_exit : c->t_end;

		a->ctrs[me].life = end >= c->t_start ? (int64_t)(end - c->t_start) : 0;
	}
	a->ncontainers++;
	t_exec = exec_time(c);
	if (t_exec != NONE && push_value(a, me, PHASE_EXEC, (int64_t)(t_exec - c->t_start)) < 0)
		return -1;
	if (c->t_listen != NONE &&
	    push_value(a, me, PHASE_LISTEN, (int64_t)(c->t_listen - c->t_start)) < 0)
		return -1;
	/* the list is newest first: walk it into phase order later */
	for (k = c->marks; k >= 0; k = fm[k].next)
		if (push_value(a, me, fm[k].phase, (int64_t)(fm[k].ts - c->t_start)) < 0)
			return -1;
	return 0;
}

/* Carried container @id is timed. 0, or -1 out of memory. */
static int fold_carried(struct analysis *a, long id)
{
	size_t len;
	const char *name = strtab_str(a->carry_names, (size_t)id, &len);

	a->carry[id].live = false;
	return fold_ctr(a, name, len, a->carry[id].file, &a->carry[id].c, a->cm);
}

/* Every container still carried is timed; the run is over. 0, or -1 out of memory. */
static int carry_flush(struct analysis *a)
{
	size_t i, n = a->carry_names ? strtab_count(a->carry_names) : 0;
	int ret = 0;

	for (i = 0; i < n; i++)
		if (a->carry[i].live && fold_carried(a, (long)i) < 0)
			ret = -1;
	strtab__free(a->carry_names);
	a->carry_names = NULL;
	a->ncm = 0;
	free(a->run_id);
	a->run_id = NULL;
	return ret;
}

/*
 * File container @c named @cname, in a file of a run: joined to the
 * container it continues (carried), or carried itself (a start row, no
 * end row). 1 when done so, 0 when it is to be taken as in any file, -1
 * out of memory.
 */
static int carry_ctr(struct analysis *a, const char *cname, size_t clen, struct file_ctr *c)
{
	long id = a->carry_names ? strtab_find(a->carry_names, cname, clen) : -1;
	struct carried *k;
	int32_t m;
	int added;

	if (id >= 0 && a->carry[id].live && c->t_start != NONE && fold_carried(a, id) < 0)
		return -1; /* a new boot under its name: the carried one lost its end row */
	if (id >= 0 && a->carry[id].live) {
		k = &a->carry[id];
		k->c.t_exec = min_u64(k->c.t_exec, c->t_exec);
		k->c.t_init = min_u64(k->c.t_init, c->t_init);
		k->c.t_listen = min_u64(k->c.t_listen, c->t_listen);
		k->c.rows += c->rows;
		file_ctr_merge_end(&k->c, c);
		for (m = c->marks; m >= 0; m = a->fm[m].next)
			if (list_mark_min(&a->cm, &a->ncm, &a->cm_cap, &k->c.marks, 0, a->fm[m].phase,
					  a->fm[m].ts) < 0)
				return -1;
		return k->c.ended && fold_carried(a, id) < 0 ? -1 : 1;
	}
	if (c->t_start == NONE || c->ended)
		return 0;
	if (!a->carry_names && !(a->carry_names = strtab__new()))
		return -1;
	id = strtab_intern(a->carry_names, cname, clen, &added);
	if (id < 0 || grow((void **)&a->carry, &a->carry_cap, (size_t)id + 1, sizeof(*a->carry)) < 0)
		return -1;
	k = &a->carry[id];
	k->c = *c;
	k->c.marks = -1;
	k->file = a->nfiles;
	k->live = true;
	for (m = c->marks; m >= 0; m = a->fm[m].next)
		if (list_mark_min(&a->cm, &a->ncm, &a->cm_cap, &k->c.marks, 0, a->fm[m].phase,
				  a->fm[m].ts) < 0)
			return -1;
	return 1;
}

int analysis_end_file(struct analysis *a, const char *name, FILE *err)
{
	size_t i, n = strtab_count(a->fnames);
	uint64_t orows = 0, octrs = 0;

	for (i = 0; i < n; i++) {
		struct file_ctr *c = &a->fc[i];
		const char *cname;
		size_t clen;
		int carried = 0;

		if (!c->selected)
			continue;
		cname = strtab_str(a->fnames, i, &clen);
		if (a->run_id && (carried = carry_ctr(a, cname, clen, c)) < 0)
			return -1;
		if (!carried && c->t_start == NONE) {
			orows += c->rows;
			octrs++;
			continue;
		}
		if (!carried && fold_ctr(a, cname, clen, a->nfiles, c, a->fm) < 0)
			return -1;
		if (c->t_start != NONE && a->tl && timeline_phases(a, c, cname, clen) < 0)
			return -1;
	}
	if (octrs && err)
		fprintf(err, "analyze: %s: %llu rows of %llu container%s without a start row ignored\n",
			name, (unsigned long long)orows, (unsigned long long)octrs,
			octrs == 1 ? "" : "s");
	a->orphan_rows += orows;
	a->orphan_ctrs += octrs;
	a->nfiles++;
	return 0;
}

/* The rows of @r, one thread. Returns 0, 1 or 2 as analysis_read(). */
static int read_rows(struct analysis *a, struct tsv_reader *r, const char *name,
		     FILE *err, struct file_tail *t)
{
	struct tsv_row row;
	int rc;

	while ((rc = tsv_reader_next(r, &row)) == 1) {
		if (analysis_add_row(a, &row) < 0) {
			fprintf(err, "analyze: %s: out of memory\n", name);
			return 1;
		}
	}
	if (rc < 0) {
		fprintf(err, "analyze: %s\n", tsv_reader_error(r));
		return rc == -2 ? 1 : 2;
	}
	t->skipped = tsv_reader_skipped(r);
	t->trailer = tsv_reader_trailer(r, &t->lost, NULL);
	return 0;
}

/*
 * The file being read is of run @run (NULL: none): the containers carried
 * from the previous file go on in it, or (another run) are timed. 0, or -1
 * out of memory.
 */
static int join_run(struct analysis *a, const char *run)
{
	if (a->run_id && (!run || strcmp(run, a->run_id)) && carry_flush(a) < 0)
		return -1;
	if (run && *run && !a->run_id && !(a->run_id = strdup(run)))
		return -1;
	return 0;
}

int analysis_read(struct analysis *a, const char *path, FILE *err)
{
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	struct tsv_reader *r = NULL;
	struct file_tail t = { 0 };
	struct stat st;
	off_t start = -1;
	int rc, ret = 0;

	if (fd < 0) {
		fprintf(err, "analyze: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* the timeline needs the ids, and one reader: it is not merged from parts */
	r = tsv_reader__new(name, fd, a->opts.reader_flags | (a->tl ? 0 : TSV_NO_IDS));
	if (!r || analysis_begin_file(a) < 0) {
		fprintf(err, "analyze: %s: out of memory\n", name);
		ret = 1;
		goto out;
	}
	/* Only a regular file can be read at offsets, in parts. */
	if (a->opts.threads > 1 && !a->tl && !a->pods && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		start = lseek(fd, 0, SEEK_CUR);
	rc = tsv_reader_header(r);
	if (rc < 0) {
		fprintf(err, "analyze: %s\n", tsv_reader_error(r));
		ret = rc == -2 ? 1 : 2;
		goto out;
	}
	if (a->tl) {
		const char *sched = tsv_reader_meta(r, "sched");
		const char *host = tsv_reader_meta(r, "host_rows");

		timeline_file_sched(a->tl, sched && strcmp(sched, "on") == 0);
		if (resource_file_add(&a->res, r) < 0) {
			fprintf(err, "analyze: %s: out of memory\n", name);
			ret = 1;
			goto out;
		}
		timeline_file_host_rows(a->tl, host && (strcmp(host, "boots") == 0 ||
							strcmp(host, "all") == 0));
	}
	if (join_run(a, tsv_reader_meta(r, "run_id")) < 0) {
		fprintf(err, "analyze: %s: out of memory\n", name);
		ret = 1;
		goto out;
	}
	ret = -1;
	if (start >= 0)
		ret = parts_read(a, fd, name, (uint64_t)start + tsv_reader_consumed(r),
			       (uint64_t)st.st_size, tsv_reader_line(r), err, &t);
	if (ret < 0)
		ret = read_rows(a, r, name, err, &t);
	if (ret)
		goto out;
	a->skipped += t.skipped;
	if (!t.trailer)
		fprintf(err, "analyze: %s: no trailer (file cut short?)\n", name);
	else if (t.lost)
		fprintf(err, "analyze: %s: the collector lost %llu events\n", name,
			(unsigned long long)t.lost);
	a->lost += t.lost;
	if (analysis_end_file(a, name, err) < 0) {
		fprintf(err, "analyze: %s: out of memory\n", name);
		ret = 1;
	}
	if (a->tl)
		timeline_end_file(a->tl, t.lost);
out:
	tsv_reader__free(r);
	if (fd > 0)
		close(fd);
	return ret;
}

int analysis_finish(struct analysis *a)
{
	size_t i;

	if (carry_flush(a) < 0)
		return -1;
	for (i = 0; i < analysis_nphases(a); i++)
		stats_sort(a->phases[i].v, a->phases[i].n);
	/* a pod is one boot in the timeline (pod_boot.h) */
	if (a->tl && a->pods && pod_boot_merge(a->tl, a->pods) < 0)
		return -1;
	if (a->tl && timeline_finish(a->tl) < 0)
		return -1;
	return a->tl ? jitnames_apply(a->jit, a->tl) : 0;
}

static int cmp_ref(const void *x, const void *y)
{
	const struct group_ref *a = x, *b = y;

	if (a->g->total != b->g->total)
		return a->g->total < b->g->total ? 1 : -1;
	if (a->g->calls != b->g->calls)
		return a->g->calls < b->g->calls ? 1 : -1;
	return strcmp(a->key, b->key);
}

size_t analysis_groups(const struct group_table *t, struct group_ref **out)
{
	size_t i, n = strtab_count(t->keys);

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return (size_t)-1;
	for (i = 0; i < n; i++) {
		(*out)[i].key = strtab_str(t->keys, i, NULL);
		(*out)[i].g = &t->g[i];
	}
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_ref);
	return n;
}
