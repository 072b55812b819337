// SPDX-License-Identifier: BSD-2-Clause
/* --plot's chart of the pods' boots: see pods_chart.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/pods.h"
#include "analyze/out/pods_chart.h"
#include "analyze/units.h"

/* Bars at most: a picture of more is unreadable (the TSV of --by pod has them all). */
#define MAX_BARS 60

/* "ns/pod container" of @c in pod @d, sanitized into @out (PLOT_NAME_BUF bytes). */
static const char *bar_label(const struct pod *d, const struct pod_ctr *c, char *out)
{
	const struct sched_str *ns = &d->names->v[META_NAMESPACE], *pod = &d->names->v[META_POD];
	const struct sched_str *cn = c->m.v[META_CONTAINER].s ? &c->m.v[META_CONTAINER] :
				     &c->m.v[META_NAME];
	char raw[3 * 256 + 4];

	snprintf(raw, sizeof(raw), "%.*s/%.*s %.*s", ns->s ? (int)ns->n : 1, ns->s ? ns->s : "-",
		 pod->s ? (int)pod->n : 1, pod->s ? pod->s : "-",
		 cn->s ? (int)cn->n : (int)c->name_n, cn->s ? cn->s : c->name);
	return plot_safe(raw, out);
}

/* Where @c's bar ends: its end, else its listen, else its exec, else its start. */
static uint64_t bar_end(const struct pod_ctr *c)
{
	if (c->t_end != POD_NONE)
		return c->t_end;
	if (c->t_listen != POD_NONE)
		return c->t_listen;
	return pods_exec(c) != POD_NONE ? pods_exec(c) : c->t_start;
}

void pods_chart(struct plot *p, const struct analysis *a)
{
	static const char *const colour[] = { "#9c9c9c", "#f28e2b", "#4e79a7" };
	static const char *const title[] = { "sandbox", "init container", "app container" };
	struct pod *d;
	size_t n, i, j, y = 0, rows[3] = { 0 }, listens = 0, readies = 0;
	int64_t max = 1, scale;
	const char *unit;
	char label[PLOT_NAME_BUF];
	int role;
	FILE *f;

	if (!a->pods)
		return;
	n = pods_list(a->pods, &d);
	if (n == (size_t)-1) {
		plot_failed(p);
		return;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < d[i].n; j++)
			if (bar_end(d[i].c[j]) - d[i].t0 > (uint64_t)max)
				max = (int64_t)(bar_end(d[i].c[j]) - d[i].t0);
	unit = units_pick(max, &scale);
	if (n && (f = plot_file(p, "pods.dat"))) {
		/* blocks 0-2: the bars of each role; 3: listens; 4: the pods' boots */
		for (role = 0; role <= 4; role++) {
			fprintf(f, "%s# y\tfrom_%s\tto_%s\n", role ? "\n\n" : "", unit, unit);
			for (i = 0, y = 0; i < n; i++) {
				for (j = 0; j < d[i].n && y < MAX_BARS; j++, y++) {
					const struct pod_ctr *c = d[i].c[j];

					if (role < 3 && (int)c->role == role) {
						fprintf(f, "%zu\t%.6f\t%.6f\n", y,
							(double)(c->t_start - d[i].t0) / (double)scale,
							(double)(bar_end(c) - d[i].t0) / (double)scale);
						rows[role]++;
					} else if (role == 3 && c->role == ROLE_APP && c->t_listen != POD_NONE) {
						fprintf(f, "%zu\t%.6f\t-\n", y,
							(double)(c->t_listen - d[i].t0) / (double)scale);
						listens++;
					}
				}
				if (role == 4 && d[i].ready != POD_NONE && y > 0) {
					fprintf(f, "%zu\t%.6f\t-\n", y - 1,
						(double)(d[i].ready - d[i].t0) / (double)scale);
					readies++;
				}
			}
			fprintf(f, "-\t-\t-\n");
		}
		plot_file_done(p, f, "pods.dat");
	}
	if (n && (f = plot_script(p, "pods", 1200, (int)(200 + 24 * (y ? y : 1))))) {
		bool first = true;

		fprintf(f, "set title 'Pod boots: each pod from its start (its sandbox), its containers in order (%zu pods)'\n"
			"set xlabel 'time from the pod start (%s)'\n"
			"set yrange [%zu:-1]\n"
			"set xrange [0:*]\n"
			"set style fill solid 0.8 border -1\n"
			"set key outside top center horizontal\n"
			"set offsets 0, graph 0.03, 0, 0\n"
			"set ytics (", n, unit, y);
		/* the labels here, sanitized (plot.h), not ytic() of the data: gnuplot drops one of those */
		for (i = 0, j = 0; i < n && j < MAX_BARS; i++) {
			size_t k;

			for (k = 0; k < d[i].n && j < MAX_BARS; k++, j++)
				fprintf(f, "%s'%s' %zu", j ? ", " : "", bar_label(&d[i], d[i].c[k], label), j);
		}
		fprintf(f, ")\nplot ");
		for (role = 0; role < 3; role++) {
			if (!rows[role])
				continue;
			fprintf(f, "%s'pods.dat' index %d using 2:1:2:3:($1-0.35):($1+0.35) "
				"with boxxyerror lc rgb '%s' title '%s'", first ? "" : ", \\\n     ", role,
				colour[role], title[role]);
			first = false;
		}
		if (listens)
			fprintf(f, ", \\\n     'pods.dat' index 3 using 2:1 with points pt 7 ps 1.2 "
				"lc rgb '#59a14f' title 'listen'");
		if (readies)
			fprintf(f, ", \\\n     'pods.dat' index 4 using 2:1 with points pt 5 ps 1.6 "
				"lc rgb '#e15759' title 'pod boot (every app listens)'");
		fprintf(f, "\n");
		plot_file_done(p, f, "pods.gp");
	}
	for (i = 0; i < n; i++)
		free(d[i].c);
	free(d);
}
