// SPDX-License-Identifier: BSD-2-Clause
/* The printers of --by pod|image|namespace: see pods_report.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/pod_boot.h"
#include "analyze/boot/pods.h"
#include "analyze/out/pods_report.h"
#include "analyze/stats/stats.h"
#include "analyze/units.h"
#include "common/tsv.h"

/* A value as printed: its escaped bytes, malloc'd (NULL: absent or out of memory, *n = 0). */
static char *esc(const struct sched_str *v, size_t *n)
{
	char *out;

	*n = 0;
	if (!v->s || !(out = malloc(TSV_ESCAPED_MAX(v->n) + 1)))
		return NULL;
	*n = tsv_escape(v->s, v->n, out);
	out[*n] = '\0';
	return out;
}

/* "ns" or "\N" for TSV, "-" in text, null in JSON. */
static void put_time(FILE *f, enum report_format fmt, uint64_t t, uint64_t t0)
{
	char b[UNITS_BUFSZ];

	if (t == POD_NONE || t0 == POD_NONE || t < t0)
		fputs(fmt == FMT_TSV ? "\\N" : fmt == FMT_JSON ? "null" : "-", f);
	else if (fmt == FMT_TEXT)
		fputs(units_format((int64_t)(t - t0), b), f);
	else
		fprintf(f, "%" PRIu64, t - t0);
}

/* A name (escaped bytes @s, @n) as @fmt prints it; absent (NULL): \N, "-" or null. */
static void put_name(FILE *f, enum report_format fmt, const char *s, size_t n, int width)
{
	if (fmt == FMT_JSON) {
		if (s)
			report_json_string(f, s, n);
		else
			fputs("null", f);
	} else if (!s) {
		fprintf(f, "%-*s", width, fmt == FMT_TSV ? "\\N" : "-");
	} else {
		fprintf(f, "%-*.*s", width, (int)n, s);
	}
}

static const char *const role_names[] = { "sandbox", "init", "app" };

/* What the pod's start row says it was: "the client's spawn", "its cgroup made" ... */
static const char *start_kind(const struct analysis *a, const struct pod_boot *b)
{
	const struct tl_container *c;
	const char *how;

	if (!a->tl || b->ctr == SIZE_MAX || !(c = &a->tl->ctrs[b->ctr])->nstarts)
		return "its sandbox's start row";
	how = timeline_str(a->tl, c->starts[0].how);
	if (strcmp(how, "client") == 0)
		return "the client's spawn";
	if (strcmp(how, "mkdir") == 0)
		return "runc create's mkdir of its sandbox's cgroup";
	if (strcmp(how, "shim") == 0)
		return "its sandbox's shim start (containerd-shim-runc-v2 start, host rows)";
	return how;
}

/* A step of a container relative to the pod's start, as put_time() does. */
static uint64_t pt(uint64_t t)
{
	return t == TL_NONE ? POD_NONE : t;
}

#define NSTEPS 6
static const char *const step_names[NSTEPS] = { "shim", "create", "runc start", "exec", "listen", "end" };
/* (JSON: the TSV's column names) */
static const char *const step_keys[NSTEPS] = { "shim", "create", "runc_start", "exec", "listen", "end" };

static void steps_of(const struct pod_step *s, uint64_t t[NSTEPS])
{
	t[0] = pt(s->shim);
	t[1] = pt(s->create);
	t[2] = pt(s->start);
	t[3] = pt(s->exec);
	t[4] = pt(s->listen);
	t[5] = pt(s->end);
}

static int pod_print(FILE *f, const struct analysis *a, const struct pod *d,
		     const struct pod_boot *pb, enum report_format fmt, bool first)
{
	const enum meta_key keys[] = { META_NAMESPACE, META_POD, META_POD_UID };
	uint64_t t0 = pt(pb->t0), t[NSTEPS];
	char *v[3], *cn;
	size_t n[3], cnn, i, k;
	char b[UNITS_BUFSZ], b2[UNITS_BUFSZ];

	for (k = 0; k < 3; k++)
		v[k] = esc(&d->names->v[keys[k]], &n[k]);
	if (fmt == FMT_TEXT) {
		fprintf(f, "%spod %.*s/%.*s (uid %.*s): ", first ? "" : "\n", (int)n[0],
			v[0] ? v[0] : "-", (int)n[1], v[1] ? v[1] : "-", (int)n[2], v[2] ? v[2] : "-");
		if (d->ready == POD_NONE || t0 == POD_NONE)
			fprintf(f, "not ready (an app never listened)\n");
		else
			fprintf(f, "boot %s (start → every app's listen)\n",
				units_format((int64_t)(d->ready - t0), b));
		fprintf(f, "  start: %s\n", start_kind(a, pb));
		if (pb->net_end != TL_NONE && pb->net_begin != TL_NONE && t0 != POD_NONE)
			fprintf(f, "  network: %s (%zu CNI plugin%s, from %s)\n",
				units_format((int64_t)(pb->net_end - t0), b), pb->plugins,
				pb->plugins == 1 ? "" : "s", units_format((int64_t)(pb->net_begin - t0), b2));
		else
			fprintf(f, "  network: - (no CNI plugin seen: host network, or no host rows)\n");
		fprintf(f, "  %-8s %-24s", "role", "container");
		for (k = 0; k < NSTEPS; k++)
			fprintf(f, " %10s", step_names[k]);
		fputc('\n', f);
	} else if (fmt == FMT_JSON) {
		fprintf(f, "%s\n    {\"namespace\": ", first ? "" : ",");
		put_name(f, fmt, v[0], n[0], 0);
		fprintf(f, ", \"pod\": ");
		put_name(f, fmt, v[1], n[1], 0);
		fprintf(f, ", \"pod_uid\": ");
		put_name(f, fmt, v[2], n[2], 0);
		fprintf(f, ", \"start\": ");
		report_json_string(f, start_kind(a, pb), strlen(start_kind(a, pb)));
		fprintf(f, ", \"boot\": ");
		put_time(f, fmt, d->ready, t0);
		fprintf(f, ", \"network_begin\": ");
		put_time(f, fmt, pt(pb->net_begin), t0);
		fprintf(f, ", \"network\": ");
		put_time(f, fmt, pt(pb->net_end), t0);
		fprintf(f, ", \"cni_plugins\": %zu, \"started\": ", pb->plugins);
		put_time(f, fmt, pt(pb->started), t0);
		fprintf(f, ", \"containers\": [");
	} else {
		/* the pod's row: started (every app's entrypoint) as its exec, ready as its listen */
		for (k = 0; k < 3; k++) {
			put_name(f, fmt, v[k], n[k], 0);
			fputc('\t', f);
		}
		fprintf(f, "\\N\tpod\t0\t");
		put_time(f, fmt, pt(pb->started), t0);
		fputc('\t', f);
		put_time(f, fmt, d->ready, t0);
		fprintf(f, "\t\\N\t\\N\t\\N\t\\N\n");
		/* the network's: the CNI plugins, from the first's exec to the last's exit */
		for (k = 0; k < 3; k++) {
			put_name(f, fmt, v[k], n[k], 0);
			fputc('\t', f);
		}
		fprintf(f, "\\N\tnetwork\t");
		put_time(f, fmt, pt(pb->net_begin), t0);
		fprintf(f, "\t\\N\t\\N\t");
		put_time(f, fmt, pt(pb->net_end), t0);
		fprintf(f, "\t\\N\t\\N\t\\N\n");
	}
	for (i = 0; i < pb->nsteps; i++) {
		const struct pod_ctr *c = pb->steps[i].c;
		const struct sched_str *nm = c->m.v[META_CONTAINER].s ? &c->m.v[META_CONTAINER] :
					     &c->m.v[META_NAME];

		steps_of(&pb->steps[i], t);
		cn = esc(nm, &cnn);
		if (fmt == FMT_TEXT) {
			fprintf(f, "  %-8s ", role_names[c->role]);
			put_name(f, fmt, cn ? cn : c->name, cn ? cnn : c->name_n, 24);
			for (k = 0; k < NSTEPS; k++)
				fprintf(f, " %10s", t[k] == POD_NONE || t0 == POD_NONE || t[k] < t0 ? "-" :
					units_format((int64_t)(t[k] - t0), b));
			fputc('\n', f);
		} else if (fmt == FMT_JSON) {
			fprintf(f, "%s{\"container\": ", i ? ", " : "");
			put_name(f, fmt, cn ? cn : c->name, cn ? cnn : c->name_n, 0);
			fprintf(f, ", \"tsv_container\": ");
			put_name(f, fmt, c->name, c->name_n, 0);
			fprintf(f, ", \"role\": \"%s\", \"start\": ", role_names[c->role]);
			put_time(f, fmt, c->t_start, t0);
			for (k = 0; k < NSTEPS; k++) {
				fprintf(f, ", \"%s\": ", step_keys[k]);
				put_time(f, fmt, t[k], t0);
			}
			fputc('}', f);
		} else {
			for (k = 0; k < 3; k++) {
				put_name(f, fmt, v[k], n[k], 0);
				fputc('\t', f);
			}
			put_name(f, fmt, cn ? cn : c->name, cn ? cnn : c->name_n, 0);
			fprintf(f, "\t%s\t", role_names[c->role]);
			/* (the columns of before: start exec listen end, then shim create runc_start) */
			put_time(f, fmt, c->t_start, t0);
			fputc('\t', f);
			put_time(f, fmt, t[3], t0);
			fputc('\t', f);
			put_time(f, fmt, t[4], t0);
			fputc('\t', f);
			put_time(f, fmt, t[5], t0);
			for (k = 0; k < 3; k++) {
				fputc('\t', f);
				put_time(f, fmt, t[k], t0);
			}
			fputc('\n', f);
		}
		free(cn);
	}
	if (fmt == FMT_JSON)
		fprintf(f, "]}");
	for (k = 0; k < 3; k++)
		free(v[k]);
	return 0;
}

/* The pods' phases across pods: network, sandbox, started, ready (from each pod's start). */
enum { PP_NETWORK, PP_SANDBOX, PP_STARTED, PP_READY, PP_N };
static const char *const pp_names[PP_N] = { "network", "sandbox", "started", "ready" };

static void pod_phases(const struct pod_boot *b, int64_t *v[PP_N], size_t n[PP_N])
{
	uint64_t t[PP_N] = { b->net_end, TL_NONE, b->started, b->ready };
	size_t i, k;

	for (i = 0; i < b->nsteps; i++)
		if (b->steps[i].c->role == ROLE_SANDBOX)
			t[PP_SANDBOX] = b->steps[i].exec;
	for (k = 0; k < PP_N; k++)
		if (t[k] != TL_NONE && b->t0 != TL_NONE && t[k] >= b->t0)
			v[k][n[k]++] = (int64_t)(t[k] - b->t0);
}

static void phase_line(FILE *f, enum report_format fmt, const char *key, size_t kn,
		       const char *phase, int64_t *v, size_t n, bool first);

static int by_pod(FILE *f, const struct analysis *a, enum report_format fmt)
{
	struct pod *d;
	size_t n = pods_list(a->pods, &d), i, k, pn[PP_N] = { 0 };
	int64_t *pv[PP_N] = { NULL };
	struct pod_boot pb;
	int rc = 0;
	long ci;

	if (n == (size_t)-1) {
		errno = ENOMEM;
		return -1;
	}
	for (k = 0; k < PP_N; k++)
		if (!(pv[k] = malloc((n ? n : 1) * sizeof(int64_t))))
			rc = -1;
	if (fmt == FMT_TSV)
		fprintf(f, "namespace\tpod\tpod_uid\tcontainer\trole\tstart\texec\tlisten\tend\tshim\tcreate\trunc_start\n");
	else if (fmt == FMT_JSON)
		fprintf(f, "[");
	else if (n == 0)
		fprintf(f, "no pods: no container has a meta row with a pod_uid\n");
	for (i = 0; i < n && !rc; i++) {
		ci = a->tl ? pod_boot_find(a->tl, &d[i]) : -1;
		if (pod_boot_steps(ci >= 0 ? a->tl : NULL, ci >= 0 ? (size_t)ci : SIZE_MAX, &d[i], &pb) < 0) {
			rc = -1;
			break;
		}
		pod_print(f, a, &d[i], &pb, fmt, i == 0);
		pod_phases(&pb, pv, pn);
		pod_boot_release(&pb);
	}
	if (fmt == FMT_JSON)
		fprintf(f, "\n  ]");
	if (!rc && n && fmt == FMT_TEXT) {
		fprintf(f, "\npod phases, from each pod's start (started: every app's entrypoint exec'd, "
			"the kubelet's SLI's end; ready: every app listening)\n%-7s %6s %10s %10s %10s %10s %10s %10s\n",
			"phase", "count", "min", "avg", "max", "p50", "p90", "p99");
		for (k = 0; k < PP_N; k++)
			phase_line(f, FMT_TEXT, NULL, 0, pp_names[k], pv[k], pn[k], false);
	}
	for (k = 0; k < PP_N; k++)
		free(pv[k]);
	for (i = 0; i < n; i++)
		free(d[i].c);
	free(d);
	if (rc)
		errno = ENOMEM;
	return rc;
}

/* A group of --by image|namespace: its value and its containers' phases. */
struct vgroup {
	const struct sched_str *v;	/* NULL: none */
	int64_t *ph[2];			/* exec, listen */
	size_t n[2];
};

static bool same_value(const struct sched_str *a, const struct sched_str *b)
{
	if (!a || !b)
		return a == b;
	return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

static void phase_line(FILE *f, enum report_format fmt, const char *key, size_t kn,
		       const char *phase, int64_t *v, size_t n, bool first)
{
	struct stats st;
	char b[7][UNITS_BUFSZ];

	stats_sort(v, n);
	stats_compute(v, n, &st);
	if (fmt == FMT_JSON) {
		fprintf(f, "%s\"%s\": {\"count\": %zu", first ? "" : ", ", phase, n);
		if (n)
			fprintf(f, ", \"min\": %" PRId64 ", \"avg\": %" PRId64 ", \"max\": %" PRId64
				", \"p50\": %" PRId64 ", \"p90\": %" PRId64 ", \"p99\": %" PRId64,
				st.min, st.avg, st.max, st.p50, st.p90, st.p99);
		fputc('}', f);
		return;
	}
	if (fmt == FMT_TSV) {
		put_name(f, fmt, key, kn, 0);
		fprintf(f, "\t%s\t%zu", phase, n);
		if (n)
			fprintf(f, "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64
				"\t%" PRId64 "\n", st.min, st.avg, st.max, st.p50, st.p90, st.p99);
		else
			fprintf(f, "\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n");
		return;
	}
	if (first)
		put_name(f, fmt, key, kn, 32);
	else if (key)
		fprintf(f, "%-32s", "");
	if (!n) {
		fprintf(f, "%s%-7s %6zu\n", key || first ? " " : "", phase, n);
		return;
	}
	fprintf(f, "%s%-7s %6zu %10s %10s %10s %10s %10s %10s\n", key || first ? " " : "", phase, n,
		units_format(st.min, b[0]), units_format(st.avg, b[1]), units_format(st.max, b[2]),
		units_format(st.p50, b[3]), units_format(st.p90, b[4]), units_format(st.p99, b[5]));
}

static int by_value(FILE *f, const struct analysis *a, enum by_kind by, enum report_format fmt)
{
	enum meta_key key = by == BY_IMAGE ? META_IMAGE : META_NAMESPACE;
	const char *kname = by == BY_IMAGE ? "image" : "namespace";
	const struct pods *p = a->pods;
	struct vgroup *g = calloc(p->n ? p->n : 1, sizeof(*g));
	size_t ng = 0, i, j, k, kn;
	int ret = 0;
	char *ks;

	if (!g)
		return -1;
	for (i = 0; i < p->n; i++) {
		const struct pod_ctr *c = &p->c[i];
		const struct sched_str *v = c->m.v[key].s ? &c->m.v[key] : NULL;
		uint64_t t[2] = { pods_exec(c), c->t_listen };

		if (c->t_start == POD_NONE)
			continue;
		for (j = 0; j < ng && !same_value(g[j].v, v); j++)
			;
		if (j == ng) {
			g[ng].v = v;
			for (k = 0; k < 2 && ret == 0; k++)
				if (!(g[ng].ph[k] = malloc(p->n * sizeof(int64_t))))
					ret = -1;
			ng++;
			if (ret < 0)
				break;
		}
		for (k = 0; k < 2; k++)
			if (t[k] != POD_NONE && t[k] >= c->t_start)
				g[j].ph[k][g[j].n[k]++] = (int64_t)(t[k] - c->t_start);
	}
	if (ret == 0) {
		if (fmt == FMT_TSV)
			fprintf(f, "%s\tphase\tcount\tmin\tavg\tmax\tp50\tp90\tp99\n", kname);
		else if (fmt == FMT_TEXT)
			fprintf(f, "boot phases by %s (from the meta rows; - : none)\n%-32s %-7s %6s %10s %10s %10s %10s %10s %10s\n",
				kname, kname, "phase", "count", "min", "avg", "max", "p50", "p90", "p99");
		else
			fprintf(f, "[");
		for (j = 0; j < ng; j++) {
			ks = g[j].v ? esc(g[j].v, &kn) : NULL;
			if (!ks)
				kn = 0;
			if (fmt == FMT_JSON) {
				fprintf(f, "%s\n    {\"%s\": ", j ? "," : "", kname);
				put_name(f, fmt, ks, kn, 0);
				fprintf(f, ", \"phases\": {");
			}
			phase_line(f, fmt, ks, kn, "exec", g[j].ph[0], g[j].n[0], true);
			phase_line(f, fmt, ks, kn, "listen", g[j].ph[1], g[j].n[1], false);
			if (fmt == FMT_JSON)
				fprintf(f, "}}");
			free(ks);
		}
		if (fmt == FMT_JSON)
			fprintf(f, "\n  ]");
	} else {
		errno = ENOMEM;
	}
	for (j = 0; j < ng; j++)
		for (k = 0; k < 2; k++)
			free(g[j].ph[k]);
	free(g);
	return ret;
}

int pods_print(FILE *f, const struct analysis *a, enum by_kind by, enum report_format fmt)
{
	if (!a->pods) {
		errno = EINVAL;
		return -1;
	}
	return by == BY_POD ? by_pod(f, a, fmt) : by_value(f, a, by, fmt);
}
