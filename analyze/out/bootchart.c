// SPDX-License-Identifier: BSD-2-Clause
/* The boot chart of a container: see bootchart.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/critpath.h"
#include "analyze/out/bootchart.h"
#include "analyze/out/state_spans.h"
#include "analyze/stats/stats.h"
#include "analyze/units.h"

/* bootchart's colours: running blue, blocked (D) pink-red; the path orange. */
#define COL_RUN "#668cb3"
#define COL_BLOCKED "#c27a7a"
#define COL_PATH "#f28e2b"
/*
 * With scheduler rows, a task's bar by state, in Okabe and Ito's palette
 * (distinct in the three kinds of colour blindness, simulated: CIE76
 * distance 19 or more between any two of them and the path's orange;
 * light enough for the black exec labels): running sky blue, runnable
 * yellow, blocked (S) grey, blocked on I/O (D) reddish purple. The
 * long syscalls become a dark strip under the bar, the runtime's row
 * (no state: before the first task) an empty box.
 */
#define COL_ST_RUN "#56b4e9"
#define COL_ST_RUNNABLE "#f0e442"
#define COL_ST_BLOCKED "#cccccc"
#define COL_ST_BLOCKED_D "#cc79a7"
#define COL_ST_SYSCALL "#333333"
#define COL_ST_UNKNOWN "#888888"
/* spans of states shorter than this fraction of the chart are merged (state_spans.h) */
#define STATE_QUANTUM_DIV 2000
#define COL_PHASE "#2e7d32"
#define COL_MARK "#7b1fa2"
#define CHART_W 1400
#define ROW_PX 22
#define KEY_LINE_PX 20

/* ns as ms with 6 decimals, from integers (no double: exact, zero-padded). */
static void put_ms(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%06" PRIu64, ns / 1000000, ns % 1000000);
}

/* "Y<TAB>FROM<TAB>TO" in ms from @t0: a span on row @y. */
static void put_span(FILE *f, int y, uint64_t t0, uint64_t from, uint64_t to)
{
	fprintf(f, "%d\t", y);
	put_ms(f, from - t0);
	putc('\t', f);
	put_ms(f, to - t0);
}

/* A task's row: its index, whether it is shown, its y. */
struct row {
	uint32_t task;
	uint64_t life;		/* in the window */
	uint64_t cpu;		/* its running time in the window (without
				 * scheduler rows: its life, all it is known) */
	bool on_path;
	bool woke_path;		/* a host task that woke a task on the path */
	int y;			/* -1: hidden */
};

/* Which rows first: the path's tasks, then by CPU used, then by life. */
static int cmp_rank(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->on_path != b->on_path)
		return a->on_path ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu > b->cpu ? -1 : 1;
	if (a->life != b->life)
		return a->life > b->life ? -1 : 1;
	return a->task < b->task ? -1 : a->task > b->task;
}

/* The order on the chart: the path's tasks by begin, then the others by CPU used. */
static int cmp_show(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->on_path != b->on_path)
		return a->on_path ? -1 : 1;
	if (!a->on_path && a->cpu != b->cpu)
		return a->cpu > b->cpu ? -1 : 1;
	return a->task < b->task ? -1 : a->task > b->task; /* tasks are by begin */
}

static int cmp_task(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	return a->task < b->task ? -1 : a->task > b->task;
}

/* The time @t ran within [@b, @e): all of it but its off-CPU intervals. */
static uint64_t running_in(const struct tl_task *t, uint64_t b, uint64_t e)
{
	uint64_t off = 0;
	long j;

	if (e <= b)
		return 0;
	/* the interval that holds @b began before it; earlier ones end before */
	j = timeline_off_before(t, b);
	for (j = j > 0 ? j : 0; (size_t)j < t->noffs && t->offs[j].out < e; j++) {
		uint64_t from = t->offs[j].out > b ? t->offs[j].out : b;
		uint64_t in = t->offs[j].out + t->offs[j].dur, to = in < e ? in : e;

		if (to > from)
			off += to - from;
	}
	return off < e - b ? e - b - off : 0;
}

/* The end of @c's boot for the chart: the phase, else its last event. */
static uint64_t chart_end(const struct tl_container *c, uint64_t t1)
{
	uint64_t end = c->t_start;
	size_t i;

	if (t1 != TL_NONE)
		return t1;
	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].end > end && c->tasks[i].end != TL_NONE)
			end = c->tasks[i].end;
	return end;
}

/* Where state spans go: the .dat, the row, the chart's zero. */
struct span_out {
	FILE *f;
	int y;
	uint64_t t0;
	size_t n;		/* lines written */
};

/* A span not running (the bar beneath is): "Y FROM TO CODE NAME", CODE 1 runnable, 2 S, 3 D. */
static void put_state_span(const struct state_span *s, void *arg)
{
	struct span_out *so = arg;
	int code = s->state == ST_RUNNABLE ? 1 : s->state == ST_BLOCKED ? 2 : 3;

	if (s->state == ST_RUNNING)
		return;
	put_span(so->f, so->y, so->t0, s->from, s->to);
	fprintf(so->f, "\t%d\t\"%s\"\n", code,
		code == 1 ? "runnable" : code == 2 ? "blocked(S)" : "blocked(D)");
	so->n++;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/*
 * The plot command's first clauses with scheduler rows: the bars running,
 * the states off CPU over them (index 4), a legend entry per state even
 * when absent (the legend is the same on every chart), the runtime's row
 * an empty box, the long syscalls a strip under their row.
 */
static void plot_states(FILE *f, const char *dat, bool runtime_row, size_t nstates,
			size_t nblocks)
{
	fprintf(f, "plot '%s' index 0 using ($2+$3)/2:1:2:3:($1-0.3):($1+0.3):ytic(4) "
		"with boxxyerror lc rgb '%s' title 'running'", dat, COL_ST_RUN);
	fprintf(f, ", \\\n     keyentry with boxes fc rgb '%s' title 'runnable (wants a CPU)'"
		", \\\n     keyentry with boxes fc rgb '%s' title 'blocked (S) or idle (I)'"
		", \\\n     keyentry with boxes fc rgb '%s' title 'blocked on I/O (D)'",
		COL_ST_RUNNABLE, COL_ST_BLOCKED, COL_ST_BLOCKED_D);
	if (runtime_row)
		fprintf(f, ", \\\n     '' index 0 every ::0::0 using ($2+$3)/2:1:2:3:($1-0.3):($1+0.3) "
			"with boxxyerror fc rgb 'white' fs solid 1.0 border lc rgb '%s' "
			"title 'runtime (no state)'", COL_ST_UNKNOWN);
	if (nstates)
		fprintf(f, ", \\\n     '' index 4 using ($2+$3)/2:1:2:3:($1-0.3):($1+0.3):"
			"($4 == 1 ? 0x%s : $4 == 2 ? 0x%s : 0x%s) with boxxyerror lc rgb variable "
			"notitle", &COL_ST_RUNNABLE[1], &COL_ST_BLOCKED[1], &COL_ST_BLOCKED_D[1]);
	if (nblocks)
		fprintf(f, ", \\\n     '' index 1 using ($2+$3)/2:($1+0.37):2:3:($1+0.32):($1+0.42) "
			"with boxxyerror lc rgb '%s' title 'syscall (1 percent+)'", COL_ST_SYSCALL);
}

/* --- interpreter spans (span rows): bars over their task's ----------------------- */

#define COL_SPAN "#7b3294"

/*
 * Where span @k of @t, drawn over [@b, @e), puts its label: the middle of
 * its longest stretch that no labelled span inside it (5% of @boot or
 * more) covers, so that an outer span's label is not written under an
 * inner one's (a Rails boot's config/environment around its initializers);
 * its middle when they cover it all.
 */
static uint64_t label_at(const struct tl_task *t, size_t k, uint64_t b, uint64_t e,
			 uint64_t boot)
{
	const struct tl_span *s = &t->spans[k];
	uint64_t at = b, gap = 0, mid = b + (e - b) / 2;
	size_t j;

	for (j = k + 1; j < t->nspans && t->spans[j].ts < e; j++) {
		const struct tl_span *in = &t->spans[j];
		uint64_t from = in->ts > b ? in->ts : b;
		uint64_t to = in->dur > e - in->ts ? e : in->ts + in->dur;

		if (in->depth <= s->depth || to <= from || (to - from) * 20 < boot)
			continue;
		if (from > at && from - at > gap) {
			gap = from - at;
			mid = at + gap / 2;
		}
		if (to > at)
			at = to;
	}
	if (e > at && e - at > gap && at > b)
		mid = at + (e - at) / 2;
	return mid;
}

/*
 * The data blocks of the spans of 1% of the chart or more, on the shown
 * rows (@rows by task index): a block of y, from, to; then one of y, the
 * place of the label, the label (the file's base name) for those of 5%
 * or more, every level of them (label_at()). How many of each into
 * *@nbars, *@nlabels; a block holds "-" when empty (gnuplot warns about
 * an empty block).
 */
static void chart_spans(FILE *f, const struct timeline *tl, const struct tl_container *c,
			const struct row *rows, uint64_t t0, uint64_t end, uint64_t boot,
			size_t *nbars, size_t *nlabels)
{
	char s1[PLOT_NAME_BUF];
	size_t i, k, pass;

	*nbars = *nlabels = 0;
	for (pass = 0; pass < 2; pass++) {
		fprintf(f, "\n\n# %s\n", pass ? "y\tmid_ms\tlabel (an interpreter span of 5% or more)" :
			"y\tfrom_ms\tto_ms (an interpreter span of 1% of the boot or more)");
		for (i = 0; i < c->ntasks; i++) {
			const struct tl_task *t = &c->tasks[i];

			for (k = 0; rows[i].y >= 0 && k < t->nspans; k++) {
				const struct tl_span *s = &t->spans[k];
				uint64_t b = s->ts > t0 ? s->ts : t0, e = s->ts + s->dur;

				if (e > end)
					e = end;
				if (e <= b || (e - b) * 100 < boot || (pass && (e - b) * 20 < boot))
					continue;
				if (!pass) {
					put_span(f, rows[i].y, t0, b, e);
					putc('\n', f);
					(*nbars)++;
					continue;
				}
				fprintf(f, "%d\t", rows[i].y);
				put_ms(f, label_at(t, k, b, e, boot) - t0);
				fprintf(f, "\t\"%s\"\n",
					plot_safe(base_name(timeline_str(tl, s->what)), s1));
				(*nlabels)++;
			}
		}
		if (!(pass ? *nlabels : *nbars))
			fprintf(f, pass ? "-\t-\t\"none\"\n" : "-\t-\t-\n");
	}
}

/* The plot clauses of chart_spans()'s blocks, indexes @idx and @idx + 1. */
static void plot_spans(FILE *f, int idx, size_t nbars, size_t nlabels)
{
	if (nbars)
		fprintf(f, ", \\\n     '' index %d using ($2+$3)/2:1:2:3:($1-0.28):($1-0.02) with "
			"boxxyerror fs transparent solid 0.35 lc rgb '%s' title 'require, load, import "
			"(1 percent+)'", idx, COL_SPAN);
	if (nlabels)
		fprintf(f, ", \\\n     '' index %d using 2:($1-0.15):3 with labels font ',7' "
			"tc rgb '%s' notitle", idx + 1, COL_SPAN);
}

/*
 * Chart of container @ci to phase @phase (TL_NONE in the container: up to
 * its last event) as @base.dat / @base.gp.
 */
static void chart(struct plot *p, const struct analysis *a, size_t ci, uint32_t phase,
		  const char *base)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[ci];
	uint64_t t0 = c->t_start, t1 = timeline_phase(c, phase), end = chart_end(c, t1);
	uint64_t boot = end > t0 ? end - t0 : 1;
	struct cp_path path = { 0 };
	struct row *rows = calloc(c->ntasks ? c->ntasks : 1, sizeof(*rows));
	size_t i, k, shown = 0, hidden = 0, over = 0, nblocks = 0, nexecs = 0, nexecs_left = 0;
	size_t nstates = 0, idle_host = 0, nspanbars = 0, nspanlabels = 0;
	bool runtime_row = false;
	char dat[64], s1[PLOT_NAME_BUF], s2[PLOT_NAME_BUF], s3[PLOT_NAME_BUF], dur[UNITS_BUFSZ];
	FILE *f;
	int got = 0;

	if (!rows) {
		plot_failed(p);
		return;
	}
	if (t1 != TL_NONE)
		got = critpath_build(tl, ci, phase, analysis_phase_name(a, phase), &path);
	if (got < 0) {
		free(rows);
		plot_failed(p);
		return;
	}
	/* which rows: the path's tasks, then the longest-lived, at most BOOTCHART_MAX_ROWS */
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];
		uint64_t b = t->begin > t0 ? t->begin : t0, e = t->end < end ? t->end : end;

		rows[i].task = (uint32_t)i;
		rows[i].life = e > b ? e - b : 0;
		rows[i].cpu = c->has_sched ? running_in(t, b, e) : rows[i].life;
		rows[i].y = -1;
	}
	for (k = 0; k < path.nsegs; k++) {
		const struct cp_seg *sg = &path.segs[k];

		if (sg->task != TL_NOTASK)
			rows[sg->task].on_path = true;
		else
			runtime_row = true;
		/* a wake by a task the walk did not follow (outside the container) */
		if (sg->state == CP_ST_BLOCKED && sg->by) {
			uint32_t x = timeline_find_task(c, sg->by);

			if (x != TL_NOTASK)
				rows[x].woke_path = true;
		}
	}
	qsort(rows, c->ntasks, sizeof(*rows), cmp_rank);
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[rows[i].task];

		if (t->begin > end || (t->end < t0 && t->end != TL_NONE)) {
			rows[i].y = -2; /* not alive in the window: not a row at all */
			continue;
		}
		/* a host thread that slept through the boot (migration/0,
		 * rcu_preempt, an idle kworker): counted, not drawn */
		if (t->host && !rows[i].on_path && !rows[i].woke_path && !rows[i].cpu)
			idle_host++;
		else if (!rows[i].on_path && rows[i].life * 100 < boot)
			hidden++;
		else if (shown < BOOTCHART_MAX_ROWS)
			rows[i].y = (int)shown++;
		else
			over++;
	}
	/* y: the runtime's row (if on the path) first, then the path's tasks
	 * by begin, then the others by CPU used */
	qsort(rows, c->ntasks, sizeof(*rows), cmp_show);
	shown = runtime_row ? 1 : 0;
	for (i = 0; i < c->ntasks; i++)
		if (rows[i].y >= 0)
			rows[i].y = (int)shown++;
	qsort(rows, c->ntasks, sizeof(*rows), cmp_task);

	snprintf(dat, sizeof(dat), "%s.dat", base);
	f = plot_file(p, dat);
	if (!f)
		goto out;
	/* index 0: a bar per row: y, from, to, label */
	fprintf(f, "# %s: boot chart of one container; times in ms from its start\n"
		"# index 0: y\tfrom_ms\tto_ms\tlabel (a task alive)\n", base);
	if (runtime_row) {
		fprintf(f, "0\t0.000000\t");
		put_ms(f, path.segs[0].kind == CP_RUNTIME ? path.segs[0].dur : 0);
		fprintf(f, "\t\"runtime %s\"\n",
			plot_safe(c->nstarts ? timeline_str(tl, c->starts[0].comm) : "", s1));
	}
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];
		uint64_t b = t->begin > t0 ? t->begin : t0, e = t->end < end ? t->end : end;
		char label[PLOT_NAME_BUF + 32];

		if (rows[i].y < 0)
			continue;
		snprintf(label, sizeof(label), "%s %" PRId64 "%s",
			 plot_safe(timeline_str(tl, timeline_comm_at(t, e)), s1), t->tid,
			 t->tid != t->pid ? " (thread)" : "");
		put_span(f, rows[i].y, t0, b, e);
		fprintf(f, "\t\"%s\"\n", label);
	}
	/* index 1: syscalls of at least 1% of the boot: y, from, to */
	fprintf(f, "\n\n# index 1: y\tfrom_ms\tto_ms\tsyscall (>= 1%% of the boot)\n");
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];

		if (rows[i].y < 0)
			continue;
		for (k = 0; k < t->nrows; k++) {
			uint64_t b = t->rows[k].ts, e = timeline_row_end(&t->rows[k]);

			if (b < t0)
				b = t0;
			if (e > end)
				e = end;
			if (e <= b || (e - b) * 100 < boot)
				continue;
			put_span(f, rows[i].y, t0, b, e);
			fprintf(f, "\t\"%s\"\n", plot_safe(timeline_str(tl, t->rows[k].name), s1));
			nblocks++;
		}
	}
	if (!nblocks)
		fprintf(f, "-\t-\t-\t\"none\"\n");
	/* index 2: the critical path: y, from, to */
	fprintf(f, "\n\n# index 2: y\tfrom_ms\tto_ms (the critical path; its segments on one row joined)\n");
	for (k = 0; k < path.nsegs; k++) {
		const struct cp_seg *s = &path.segs[k];
		int y = s->task == TL_NOTASK ? 0 : rows[s->task].y;
		uint64_t to = s->ts + s->dur;

		if (y < 0)
			continue; /* cannot happen: the path's tasks come first */
		/* contiguous: join the next segments while they stay on this row */
		while (k + 1 < path.nsegs &&
		       (path.segs[k + 1].task == TL_NOTASK ? 0 : rows[path.segs[k + 1].task].y) == y) {
			k++;
			to = path.segs[k].ts + path.segs[k].dur;
		}
		put_span(f, y, t0, s->ts, to);
		putc('\n', f);
	}
	if (!path.nsegs)
		fprintf(f, "-\t-\t-\n");
	/* index 3: exec points: y, at, binary; an exec within 4% of the boot
	 * after the last labelled one on its row has no label (they would
	 * overlap; the first names a script, the next its interpreter) */
	fprintf(f, "\n\n# index 3: y\tat_ms\tbinary (an exec)\n");
	for (i = 0; i < c->ntasks; i++) {
		const struct tl_task *t = &c->tasks[i];
		uint64_t labelled = TL_NONE;

		if (rows[i].y < 0)
			continue;

		for (k = 0; k < t->nexecs; k++) {
			uint64_t at = t->execs[k].ts;
			bool crowded = labelled != TL_NONE && (at - labelled) * 25 < boot;

			if (at < t0 || at > end)
				continue;
			if (!crowded)
				labelled = at;
			/* the script's test, in the exact ns both sides print */
			if (at - t0 < (end - t0) / 2)
				nexecs_left++;
			fprintf(f, "%d\t", rows[i].y);
			put_ms(f, at - t0);
			fprintf(f, "\t\"%s\"\n", crowded ? "" :
				plot_safe(base_name(timeline_str(tl, t->execs[k].filename)), s1));
			nexecs++;
		}
	}
	if (!nexecs)
		fprintf(f, "-\t-\t\"none\"\n");
	/* index 4, with scheduler rows: each row's time off CPU, by state
	 * (running is the bar of index 0 beneath), bounded: state_spans.h */
	if (c->has_sched) {
		struct span_out so = { .f = f, .t0 = t0 };

		fprintf(f, "\n\n# index 4: y\tfrom_ms\tto_ms\tstate\tname (1 runnable, "
			"2 blocked (S), 3 blocked on I/O (D); spans under 1/%d of the chart "
			"merged into the state that took most of them)\n", STATE_QUANTUM_DIV);
		for (i = 0; i < c->ntasks; i++) {
			const struct tl_task *t = &c->tasks[i];
			uint64_t b = t->begin > t0 ? t->begin : t0, e = t->end < end ? t->end : end;

			if (rows[i].y < 0 || e <= b)
				continue;
			so.y = rows[i].y;
			state_spans(t, b, e, boot / STATE_QUANTUM_DIV, put_state_span, &so);
		}
		nstates = so.n;
		if (!nstates)
			fprintf(f, "-\t-\t-\t-\t\"none\"\n");
	}
	/* the next two indexes (4 and 5, or 5 and 6 with scheduler rows): spans */
	if (c->has_spans)
		chart_spans(f, tl, c, rows, t0, end, boot, &nspanbars, &nspanlabels);
	if (plot_file_done(p, f, dat) < 0)
		goto out;

	/* with scheduler rows the legend takes a second line */
	f = plot_script(p, base, CHART_W, 160 + (c->has_sched ? KEY_LINE_PX : 0) +
			ROW_PX * (int)(shown ? shown : 1));
	if (!f)
		goto out;
	/* gnuplot runs every script in one process: start from its defaults */
	fprintf(f, "reset\nset datafile missing '-'\n");
	fprintf(f, "set title 'Boot chart of %s: start to %s %s, %zu of %zu tasks shown",
		plot_safe(timeline_str(tl, c->name), s1),
		t1 != TL_NONE ? plot_safe(analysis_phase_name(a, phase), s2) : "last event",
		units_format((int64_t)(end - t0), dur), shown - (runtime_row ? 1 : 0),
		shown - (runtime_row ? 1 : 0) + hidden + over + idle_host);
	if (hidden)
		fprintf(f, " (%zu hidden: alive under 1 percent of the boot and off the critical path)",
			hidden);
	if (over)
		fprintf(f, " (%zu hidden: past %d rows)", over, BOOTCHART_MAX_ROWS);
	if (idle_host)
		fprintf(f, "; %zu idle host task%s not shown (neither ran nor woke the path)",
			idle_host, idle_host == 1 ? "" : "s");
	fprintf(f, "'\n"
		"set xlabel 'time from container start (ms)'\n"
		"set yrange [%zu:-1]\n"
		"set xrange [0:%.6f]\n"
		"set ytics nomirror font ',8'\n"
		"set grid xtics\n"
		"set key outside top center horizontal\n"
		"set style fill solid 0.9 noborder\n",
		shown ? shown : 1, (double)(end - t0) * 1.02 / 1e6);
	/* phases and marks: vertical lines, labelled at the top */
	for (k = 0; k < c->nphases; k++) {
		uint64_t ts = c->phases[k].ts;
		bool mark = c->phases[k].phase > PHASE_LISTEN;

		if (ts < t0 || ts > end)
			continue;
		fprintf(f, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2 lw 1.5 "
			"lc rgb '%s' front\n"
			"set label '%s' at %.6f, graph 1 %s offset %s,%.1f tc rgb '%s' font ',8' front\n",
			(double)(ts - t0) / 1e6, (double)(ts - t0) / 1e6, mark ? COL_MARK : COL_PHASE,
			plot_safe(analysis_phase_name(a, c->phases[k].phase), s3),
			(double)(ts - t0) / 1e6,
			/* in the right half, left of the line: labels stay on the canvas */
			(ts - t0) * 2 > end - t0 ? "right" : "left",
			(ts - t0) * 2 > end - t0 ? "-0.3" : "0.3",
			/* one line lower each: phases close in time do not overwrite */
			-0.8 - (double)(k % 4), mark ? COL_MARK : COL_PHASE);
	}
	/* only what has points: gnuplot warns about an empty block */
	if (c->has_sched) {
		plot_states(f, dat, runtime_row, nstates, nblocks);
	} else {
		fprintf(f, "plot '%s' index 0 using ($2+$3)/2:1:2:3:($1-0.3):($1+0.3):ytic(4) "
			"with boxxyerror lc rgb '%s' title 'alive (running, or in syscalls under 1 "
			"percent of the boot)'", dat, COL_RUN);
		if (nblocks)
			fprintf(f, ", \\\n     '' index 1 using ($2+$3)/2:1:2:3:($1-0.3):($1+0.3) with "
				"boxxyerror lc rgb '%s' title 'in a syscall of 1 percent of the boot or "
				"more (blocked or kernel CPU)'", COL_BLOCKED);
	}
	plot_spans(f, c->has_sched ? 5 : 4, nspanbars, nspanlabels);
	if (path.nsegs)
		fprintf(f, ", \\\n     '' index 2 using ($2+$3)/2:($1-0.38):2:3:($1-0.44):($1-0.32) "
			"with boxxyerror lc rgb '%s' title 'critical path'", COL_PATH);
	/* exec labels right of the point in the left half, left of it in the
	 * right half: none runs off the canvas. A labels plot whose every
	 * point is NaN crashes gnuplot 5.4.4: each side only when it has one. */
	if (nexecs)
		fprintf(f, ", \\\n     '' index 3 using 2:1 with points pt 9 ps 1.3 lc rgb 'black' "
			"title 'exec'");
	if (nexecs_left) {
		fprintf(f, ", \\\n     '' index 3 using ($2 < ");
		put_ms(f, (end - t0) / 2);
		fprintf(f, " ? $2 : NaN):1:3 with labels left offset 0.8,0 font ',8' notitle");
	}
	if (nexecs > nexecs_left) {
		fprintf(f, ", \\\n     '' index 3 using ($2 < ");
		put_ms(f, (end - t0) / 2);
		fprintf(f, " ? NaN : $2):1:3 with labels right offset -0.8,0 font ',8' notitle");
	}
	fprintf(f, "\n");
	plot_file_done(p, f, base);
out:
	critpath_release(&path);
	free(rows);
}

/* The phase the charts go to: --until's, else listen, else the last one any container reached. */
static uint32_t chart_phase(const struct analysis *a)
{
	size_t i;

	if (a->win.on)
		return a->win.phase;	/* --until's window */
	if (a->phases[PHASE_LISTEN].n)
		return PHASE_LISTEN;
	for (i = analysis_nphases(a); i-- > 0;)
		if (a->phases[i].n)
			return (uint32_t)i;
	return PHASE_LISTEN;
}

/* Does the (escaped) name @s, unescaped, match @glob? */
static bool name_matches(const char *s, const char *glob)
{
	size_t n = strlen(s);
	char *u = malloc(n + 1);
	bool ok = u && tsv_glob_match(s, n, glob, u);

	free(u);
	return ok;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* The container of the median lifetime (start -> end: --until end), or SIZE_MAX. */
static size_t median_life(const struct analysis *a)
{
	int64_t *v = malloc((a->nctrs ? a->nctrs : 1) * sizeof(*v)), med;
	size_t i, n = 0, got = SIZE_MAX;

	if (!v)
		return SIZE_MAX;	/* then no chart: said as for a phase nobody reached */
	for (i = 0; i < a->nctrs; i++)
		if (a->ctrs[i].life >= 0)
			v[n++] = a->ctrs[i].life;
	if (n) {
		qsort(v, n, sizeof(*v), cmp_i64);
		med = stats_percentile(v, n, 50);
		for (i = 0; i < a->nctrs && got == SIZE_MAX; i++)
			if (a->ctrs[i].life == med)
				got = i;
	}
	free(v);
	return got;
}

size_t bootchart_pick(const struct analysis *a, size_t *idx)
{
	uint32_t phase = chart_phase(a);
	const struct phase *ph = phase < analysis_nphases(a) ? &a->phases[phase] : NULL;
	size_t i, k, n = 1;

	idx[0] = phase == PHASE_END ? median_life(a) : SIZE_MAX;
	if (ph && ph->n) {
		int64_t med = stats_percentile(ph->v, ph->n, 50);

		for (i = 0; i < a->nctrs && idx[0] == SIZE_MAX; i++)
			for (k = a->ctrs[i].first; k < a->ctrs[i].first + a->ctrs[i].n; k++)
				if (a->cphases[k].phase == phase && a->cphases[k].v == med)
					idx[0] = i;
	}
	for (i = 0; a->opts.plot_container && i < a->nctrs && n <= BOOTCHART_MAX_CHOSEN; i++)
		if (name_matches(strtab_str(a->ctr_names, a->ctrs[i].name, NULL),
				 a->opts.plot_container))
			idx[n++] = i;
	return n;
}

/*
 * The timeline's container of a->ctrs[@i] (same file, same name in the
 * file), or -1: a pod's container, its pod's (pod_boot.h: the chart of the
 * pod's boot).
 */
static long timeline_ctr(const struct analysis *a, size_t i)
{
	const char *name = strtab_str(a->ctr_names, a->ctrs[i].name, NULL);
	const struct tl_container *c;
	size_t k;

	for (k = 0; k < a->tl->nctrs; k++) {
		c = &a->tl->ctrs[k];
		if (c->file == a->ctrs[i].file &&
		    strcmp(timeline_str(a->tl, c->renamed ? c->file_name : c->name), name) == 0)
			return c->merged ? (long)c->into : (long)k;
	}
	return -1;
}

void bootchart_figures(struct plot *p, const struct analysis *a)
{
	size_t idx[BOOTCHART_MAX_CHOSEN + 1], n = bootchart_pick(a, idx), i;
	uint32_t phase = chart_phase(a);
	char base[32];
	long k;

	for (i = 0; i < n; i++) {
		if (idx[i] == SIZE_MAX || (k = timeline_ctr(a, idx[i])) < 0)
			continue; /* no median; or not kept (cannot be: main keeps the picks) */
		if (i)
			snprintf(base, sizeof(base), "bootchart-%zu", i);
		chart(p, a, (size_t)k, phase, i ? base : "bootchart");
	}
}
