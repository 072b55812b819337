// SPDX-License-Identifier: BSD-2-Clause
/* --format otlp, --otlp-endpoint: see otlp.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/critpath.h"
#include "analyze/boot/pod_boot.h"
#include "analyze/boot/resource.h"
#include "common/tsv.h"
#include "analyze/out/otlp.h"
#include "analyze/out/report.h"

#define SPAN_KIND_INTERNAL 1

struct ids {
	uint64_t hi, lo;	/* the trace id */
};

static uint64_t mix64(uint64_t z)	/* splitmix64's finalizer */
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The trace id of a boot: @key (its run, NUL-separated parts) hashed in two lanes. */
static struct ids trace_ids(const char *key, size_t n)
{
	struct ids t = {
		.hi = mix64(fnv1a(0xcbf29ce484222325ULL, key, n)),
		.lo = mix64(fnv1a(0x84222325cbf29ce4ULL, key, n) ^ 0x9e3779b97f4a7c15ULL),
	};

	if (!t.hi && !t.lo)
		t.lo = 1;
	return t;
}

static uint64_t span_id(const struct ids *t, uint64_t idx)
{
	uint64_t s = mix64(t->hi ^ mix64(t->lo + 0x9e3779b97f4a7c15ULL * (idx + 1)));

	return s ? s : 1;
}

/* a row's time as UNIX ns: + the file's realtime offset, clamped to uint64 */
static uint64_t unix_ns(uint64_t ts, const struct res_file *f)
{
	__int128 v = (__int128)ts + (f ? f->realtime_offset : 0);

	if (v < 0)
		return 0;
	return v > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

static void json_s(FILE *f, const char *s)
{
	report_json_string(f, s, strlen(s));
}

/* Attribute lists: @first says whether a comma goes before. */
static void attr_str(FILE *f, bool *first, const char *key, const char *val)
{
	fprintf(f, "%s{\"key\":\"%s\",\"value\":{\"stringValue\":", *first ? "" : ",", key);
	json_s(f, val);
	fputs("}}", f);
	*first = false;
}

static void attr_int(FILE *f, bool *first, const char *key, int64_t v)
{
	fprintf(f, "%s{\"key\":\"%s\",\"value\":{\"intValue\":\"%" PRId64 "\"}}",
		*first ? "" : ",", key, v);
	*first = false;
}

/* The start of span @idx (parent @parent, or none when @idx is 0), up to its attributes. */
static void span_begin(FILE *f, const struct ids *t, uint64_t idx, uint64_t parent,
		       const char *name, uint64_t t0, uint64_t t1, const struct res_file *rf)
{
	fprintf(f, "%s{\"traceId\":\"%016" PRIx64 "%016" PRIx64 "\",\"spanId\":\"%016" PRIx64 "\"",
		idx ? "," : "", t->hi, t->lo, span_id(t, idx));
	if (idx)
		fprintf(f, ",\"parentSpanId\":\"%016" PRIx64 "\"", span_id(t, parent));
	fputs(",\"name\":", f);
	json_s(f, name);
	fprintf(f, ",\"kind\":%d,\"startTimeUnixNano\":\"%" PRIu64 "\",\"endTimeUnixNano\":\"%"
		PRIu64 "\",\"attributes\":[", SPAN_KIND_INTERNAL, unix_ns(t0, rf), unix_ns(t1, rf));
}

/* The critical path's segments to @phase, children of span @parent; -1 out of memory. */
static int path_spans(FILE *f, const struct analysis *a, size_t ci, uint32_t phase,
		      const struct ids *t, uint64_t *idx, uint64_t parent,
		      const struct res_file *rf)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[ci];
	struct cp_path p;
	char name[128];
	size_t k;
	int got = critpath_build(tl, ci, phase, analysis_phase_name(a, phase), &p);

	if (got <= 0)
		return got;
	for (k = 0; k < p.nsegs; k++) {
		const struct cp_seg *s = &p.segs[k];
		const struct tl_task *tk = s->task == TL_NOTASK ? NULL : &c->tasks[s->task];
		bool first = true;

		if (s->kind == CP_SYSCALL)
			snprintf(name, sizeof(name), "syscall:%s", timeline_str(tl, s->name));
		else
			snprintf(name, sizeof(name), "%s", critpath_kind_name((enum cp_kind)s->kind));
		span_begin(f, t, (*idx)++, parent, name, s->ts, s->ts + s->dur, rf);
		attr_str(f, &first, "boottrace.segment.kind",
			 critpath_kind_name((enum cp_kind)s->kind));
		if (tk) {
			attr_int(f, &first, "thread.id", tk->tid);
			attr_int(f, &first, "process.pid", tk->pid);
			attr_str(f, &first, "thread.name",
				 timeline_str(tl, timeline_comm_at(tk, s->ts)));
		}
		if (s->kind == CP_SYSCALL && s->detail != TL_NOSTR)
			attr_str(f, &first, "boottrace.syscall.detail", timeline_str(tl, s->detail));
		if (c->has_sched) {
			attr_str(f, &first, "boottrace.state",
				 critpath_state_name((enum cp_state)s->state));
			if (s->state == CP_ST_BLOCKED || s->state == CP_ST_RUNNABLE) {
				attr_str(f, &first, "boottrace.wake",
					 timeline_wake_name((enum tl_wake)s->wake));
				if (s->by)
					attr_int(f, &first, "boottrace.by.tid", s->by);
				if (s->by_comm != TL_NOSTR)
					attr_str(f, &first, "boottrace.by.comm",
						 timeline_str(tl, s->by_comm));
			}
		}
		fputs("]}", f);
	}
	critpath_release(&p);
	return 1;
}

/* The key of a boot's trace id: run (or host and start), name, start ts. */
static size_t trace_key(char *buf, size_t n, const struct res_file *rf, const char *name,
			uint64_t t_start)
{
	int k;

	if (rf && rf->run_id)
		k = snprintf(buf, n, "%s%c%s%c%" PRIu64, rf->run_id, 0, name, 0, t_start);
	else
		k = snprintf(buf, n, "%s%c%s%c%s%c%" PRIu64, rf && rf->host ? rf->host : "", 0,
			     rf && rf->started ? rf->started : "", 0, name, 0, t_start);
	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

/* Meta value @v as an attribute @key, TSV-escaped as every value from the rows is. */
static void attr_meta(FILE *f, bool *first, const char *key, const struct sched_str *v)
{
	char buf[4 * 256 + 1];
	size_t n;

	if (!v->s || v->n > 256)
		return;
	n = tsv_escape(v->s, v->n, buf);
	buf[n] = '\0';
	attr_str(f, first, key, buf);
}

/* A span named as the kubelet's CRI call @name, of pod @pm (and its container @pc, or NULL). */
static void cri_span(FILE *f, const struct ids *t, uint64_t *idx, uint64_t parent, const char *name,
		     uint64_t t0, uint64_t t1, const struct res_file *rf, const struct meta *pm,
		     const struct pod_ctr *pc)
{
	static const char *const roles[] = { "sandbox", "init", "app" };
	bool first = true;

	span_begin(f, t, (*idx)++, parent, name, t0, t1, rf);
	attr_meta(f, &first, "k8s.pod.uid", &pm->v[META_POD_UID]);
	attr_meta(f, &first, "k8s.pod.name", &pm->v[META_POD]);
	if (pc) {
		attr_meta(f, &first, "k8s.container.name", &pc->m.v[META_CONTAINER]);
		attr_meta(f, &first, "container.id", &pc->m.v[META_ID]);
		attr_meta(f, &first, "container.image.name", &pc->m.v[META_IMAGE]);
		attr_str(f, &first, "boottrace.pod.role", roles[pc->role]);
	}
	fputs("]}", f);
}

/*
 * The kubelet's CRI calls over pod @d's steps (pod_boot.h), children of
 * the root: RunPodSandbox (the start to the sandbox's process running;
 * under it `network`, the CNI plugins), then for each container
 * CreateContainer (from the step before's end, an init container's end or
 * an app's exec, to its shim start, else its cgroup: containerd's create
 * and the kubelet's turn between the calls; from the one before's start
 * when they overlap) and StartContainer (from there to its entrypoint's
 * exec). -1 out of memory.
 */
static int pod_spans(FILE *f, struct analysis *a, size_t ci, const struct pod *d,
		     const struct ids *t, uint64_t *idx, const struct res_file *rf)
{
	struct pod_boot b;
	uint64_t prev, mid, prev_mid = TL_NONE, rps = UINT64_MAX;
	size_t k;

	if (pod_boot_steps(a->tl, ci, d, &b) < 0)
		return -1;
	prev = b.t0;
	for (k = 0; k < b.nsteps; k++)
		if (b.steps[k].c->role == ROLE_SANDBOX && b.steps[k].exec != TL_NONE &&
		    b.steps[k].exec >= b.t0) {
			rps = *idx;
			cri_span(f, t, idx, 0, "RunPodSandbox", b.t0, b.steps[k].exec, rf, d->names,
				 b.steps[k].c);
			prev = b.steps[k].exec;
		}
	if (rps != UINT64_MAX && b.net_begin != TL_NONE && b.net_end != TL_NONE &&
	    b.net_end >= b.net_begin) {
		bool first = true;

		span_begin(f, t, (*idx)++, rps, "network", b.net_begin, b.net_end, rf);
		attr_meta(f, &first, "k8s.pod.uid", &d->names->v[META_POD_UID]);
		attr_int(f, &first, "boottrace.cni.plugins", (int64_t)b.plugins);
		fputs("]}", f);
	}
	for (k = 0; k < b.nsteps; k++) {
		const struct pod_step *s = &b.steps[k];

		if (s->c->role == ROLE_SANDBOX)
			continue;
		mid = s->shim != TL_NONE ? s->shim : s->create;
		if (mid == TL_NONE || prev == TL_NONE)
			continue;
		/* a container started before the one before it ran: from that one's start */
		if (mid < prev)
			prev = prev_mid != TL_NONE && prev_mid <= mid ? prev_mid : mid;
		cri_span(f, t, idx, 0, "CreateContainer", prev, mid, rf, d->names, s->c);
		if (s->exec != TL_NONE && s->exec >= mid)
			cri_span(f, t, idx, 0, "StartContainer", mid, s->exec, rf, d->names, s->c);
		prev = s->c->role == ROLE_INIT ? s->end : s->exec;
		prev_mid = mid;
	}
	pod_boot_release(&b);
	return 0;
}

/* Boot @ci (pod @d's, or NULL) as one TracesData object on @f (no newline). -1 out of memory. */
static int boot_trace(FILE *f, struct analysis *a, size_t ci, const struct pod *d, uint32_t cp_phase)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[ci];
	const struct res_file *rf = resource_file(a, c->file);
	struct res_attr attrs[RESOURCE_MAX_ATTRS];
	size_t i, n = d ? resource_pod_attrs(a, ci, d->names, attrs) : resource_attrs(a, ci, attrs);
	uint64_t end = c->t_start, idx = 0, cp_parent = UINT64_MAX;
	char key[1024], name[128];
	struct ids t;
	bool first = true;

	t = trace_ids(key, trace_key(key, sizeof(key), rf, timeline_str(tl, c->name),
				       c->t_start));
	fputs("{\"resourceSpans\":[{\"resource\":{\"attributes\":[", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"key\":\"%s\",\"value\":{\"stringValue\":", i ? "," : "",
			attrs[i].key);
		report_json_string(f, attrs[i].val, attrs[i].len);
		fputs("}}", f);
	}
	fputs("]},\"scopeSpans\":[{\"scope\":{\"name\":\"boottrace\",\"version\":\""
	      BOOTTRACE_VERSION "\"},\"spans\":[", f);

	/* the root: to the latest phase reached, else to its latest event */
	for (i = 0; i < c->nphases; i++)
		if (c->phases[i].ts > end)
			end = c->phases[i].ts;
	for (i = 0; !c->nphases && i < c->ntasks; i++)
		if (c->tasks[i].end != TL_NONE && c->tasks[i].end > end)
			end = c->tasks[i].end;
	span_begin(f, &t, idx++, 0, "boot", c->t_start, end, rf);
	attr_str(f, &first, "boottrace.start",
		 c->nstarts ? timeline_str(tl, c->starts[0].how) : "");
	if (c->lost)
		attr_int(f, &first, "boottrace.lost", (int64_t)c->lost);
	fputs("]}", f);

	for (i = 0; i < c->nphases; i++) {
		const char *pn = analysis_phase_name(a, c->phases[i].phase);

		if (c->phases[i].ts < c->t_start)
			continue;	/* not after the start: no span (critpath.h says the same) */
		if (c->phases[i].phase == cp_phase)
			cp_parent = idx;
		snprintf(name, sizeof(name), "start -> %s", pn);
		first = true;
		span_begin(f, &t, idx++, 0, name, c->t_start, c->phases[i].ts, rf);
		attr_str(f, &first, "boottrace.phase", pn);
		fputs("]}", f);
	}
	if (d && pod_spans(f, a, ci, d, &t, &idx, rf) < 0)
		return -1;
	if (cp_parent != UINT64_MAX && path_spans(f, a, ci, cp_phase, &t, &idx, cp_parent, rf) < 0)
		return -1;
	fputs("]}]}]}", f);
	return 0;
}

int otlp_export(struct analysis *a, const struct otlp_opts *o, FILE *err, size_t *sent)
{
	const struct timeline *tl = a->tl;
	char *buf = NULL, why[512];
	size_t len = 0, ci, np = 0, k;
	struct pod *pods = NULL;
	long *pod_of = calloc(tl->nctrs ? tl->nctrs : 1, sizeof(*pod_of)), pc;
	FILE *m;
	int rc = 0;

	*sent = 0;
	/* the pods' boots (pod_boot.h): which timeline container is which pod's */
	if (a->pods && (np = pods_list(a->pods, &pods)) == (size_t)-1)
		np = 0, rc = 1;
	for (ci = 0; pod_of && ci < tl->nctrs; ci++)
		pod_of[ci] = -1;
	for (k = 0; pod_of && k < np; k++)
		if ((pc = pod_boot_find(tl, &pods[k])) >= 0)
			pod_of[pc] = (long)k;
	if (!pod_of || rc) {
		fprintf(err, "analyze: out of memory\n");
		rc = 1;
	}
	for (ci = 0; ci < tl->nctrs && !rc; ci++) {
		const struct tl_container *c = &tl->ctrs[ci];

		if (c->t_start == TL_NONE || c->is_host)
			continue;
		m = open_memstream(&buf, &len);
		if (!m || boot_trace(m, a, ci, pod_of[ci] >= 0 ? &pods[pod_of[ci]] : NULL,
				     o->cp_phase) < 0 || fflush(m) != 0 || ferror(m)) {
			fprintf(err, "analyze: out of memory\n");
			rc = 1;
		}
		if (m)
			fclose(m);
		if (!rc && o->out && (fwrite(buf, 1, len, o->out) != len || putc('\n', o->out) == EOF)) {
			fprintf(err, "analyze: write error: %s\n", strerror(errno));
			rc = 1;
		}
		if (!rc && o->url) {
			if (otlp_http_post(o->url, buf, len, why, sizeof(why)) < 0) {
				fprintf(err, "analyze: --otlp-endpoint %s: %s\n", o->url->text, why);
				rc = 1;
			} else {
				(*sent)++;
			}
		}
		free(buf);
		buf = NULL;
	}
	for (k = 0; k < np; k++)
		free(pods[k].c);
	free(pods);
	free(pod_of);
	return rc;
}
