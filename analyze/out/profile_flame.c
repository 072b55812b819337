// SPDX-License-Identifier: BSD-2-Clause
/* --plot's flame graphs of each container's boot profile (profile_flame.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/out/flamegraph.h"
#include "analyze/out/profile_flame.h"
#include "common/tsv.h"

/* The frame names of @pc's folded stacks, root first, into one arena. -1 out of memory. */
static int flame_one(FILE *f, struct profile *prof, const struct prof_ctr *pc, const char *title)
{
	struct flame_stack *st = calloc(pc->nfolded ? pc->nfolded : 1, sizeof(*st));
	const struct tl_span *spans[PROFILE_SPANS_MAX];
	const char **names = NULL;
	char **owned = NULL;
	size_t i, k, total = 0, at = 0;
	int rc = -1;

	if (!st)
		return -1;
	for (i = 0; i < pc->nfolded; i++)
		total += profile_stack(prof, pc->folded[i].stack)->n + 1 +
			 profile_folded_spans(&pc->folded[i], spans);
	names = calloc(total ? total : 1, sizeof(*names));
	owned = calloc(total ? total : 1, sizeof(*owned));
	if (!names || !owned)
		goto out;
	for (i = 0; i < pc->nfolded; i++) {
		const struct prof_stack *s = profile_stack(prof, pc->folded[i].stack);
		const char *comm = timeline_str(prof->tl, pc->folded[i].comm);
		char *raw = malloc(strlen(comm) + 1);
		size_t ns = profile_folded_spans(&pc->folded[i], spans);
		long n;

		if (!raw)
			goto out;
		n = tsv_unescape(comm, strlen(comm), raw);
		raw[n < 0 ? 0 : n] = '\0';
		owned[at] = raw;
		st[i].frames = &names[at];
		names[at++] = raw;
		/* the interpreter spans it was in, above the native frames */
		for (k = 0; k < ns; k++) {
			char sn[1024], *d;

			profile_span_name(prof, spans[k], sn, sizeof(sn));
			if (!(d = strdup(sn)))
				goto out;
			owned[at] = d;
			names[at++] = d;
		}
		for (k = s->n; k-- > 0;) {
			const char *name = profile_fn_name(prof, s->fns[k]);

			if (profile_fn_kernel(prof, s->fns[k])) {
				char *kn = malloc(strlen(name) + 5);

				if (!kn)
					goto out;
				sprintf(kn, "%s_[k]", name);
				owned[at] = kn;
				names[at++] = kn;
			} else {
				names[at++] = name;
			}
		}
		st[i].nframes = s->n + 1 + ns;
		st[i].count = pc->folded[i].count;
	}
	rc = flamegraph_write_unit(f, title, st, pc->nfolded,
				   pc->samples ? pc->cpu_ns / pc->samples : 0,
				   prof->offcpu ? "us" : "samples");
out:
	for (i = 0; owned && i < total; i++)
		free(owned[i]);
	free(owned);
	free(names);
	free(st);
	return rc;
}

size_t profile_flame_write(struct plot *p, struct profile *prof)
{
	size_t i, n = 0;

	if (!prof || !prof->any)
		return 0;
	for (i = 0; i < prof->nctrs && i < PROFILE_FLAME_MAX; i++) {
		const struct prof_ctr *pc = &prof->ctrs[i];
		const char *cname = timeline_str(prof->tl, prof->tl->ctrs[pc->ctr].name);
		const char *what = prof->offcpu ? "off-CPU profile of " : "boot profile of ";
		char name[32], *title = malloc(strlen(cname) + 64);
		size_t wl = strlen(what);
		FILE *f;
		long u;

		snprintf(name, sizeof(name), "%sflame-%zu.svg", prof->offcpu ? "offcpu-" : "", i + 1);
		f = plot_file(p, name);
		if (!f || !title) {
			free(title);
			if (f)
				plot_file_done(p, f, name);
			plot_failed(p);
			continue;
		}
		/* the title in raw bytes: flamegraph_write() escapes it */
		strcpy(title, what);
		u = tsv_unescape(cname, strlen(cname), title + wl);
		title[wl + (u < 0 ? 0 : u)] = '\0';
		if (flame_one(f, prof, pc, title) < 0) {
			fprintf(plot_err(p), "analyze: %s: cannot write the flame graph\n", name);
			plot_failed(p);
		}
		free(title);
		if (plot_file_done(p, f, name) == 0)
			n++;
	}
	return n;
}
