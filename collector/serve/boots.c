// SPDX-License-Identifier: BSD-2-Clause
/* Each container's boot phases from its rows: see boots.h. */
#include <stdlib.h>
#include <string.h>

#include "collector/serve/boots.h"
#include "collector/idmap.h"
#include "collector/serve/metrics.h"
#include "collector/run/container_names.h"
#include "common/entrypoint.h"
#include "common/meta.h"

#define NONE UINT64_MAX
#define PH_EXEC 0
#define PH_LISTEN 1
/* phases have a bit each in a 64-bit mask: exec, listen and 62 mark labels */
#define MAX_PHASES 64
#define MAX_PENDING 8

struct boot {
	char *name;			/* the container column's bytes */
	size_t len;
	enum boot_runtime rt;
	int started;
	uint64_t t_start;
	uint64_t done;			/* phases timed (or waiting), a bit each */
	unsigned npend;			/* phases waiting for the start row */
	uint8_t pend_ph[MAX_PENDING];
	uint64_t pend_ts[MAX_PENDING];
	const char *label[BL_COUNT];	/* its label values: "" until known */
};

/* The values one label took, at most max of them (then "other"). */
struct label_cap {
	char **v;
	size_t n, max;
};

struct boots {
	enum boots_kind kind;
	struct boots_sink sink;
	struct idmap live;		/* hash of the name → struct boot */
	size_t nlive;
	uint64_t rows;
	char *phases[MAX_PHASES];	/* "exec", "listen", mark labels (escaped) */
	size_t nphases;
	struct label_cap caps[BL_COUNT];	/* --metrics-label's values so far */
};

static const char *const runtime_names[RT_COUNT] = {
	"docker", "podman", "containerd", "crio", "kubernetes", "runc", "spawn", "other",
};

const char *boots_runtime_name(enum boot_runtime rt)
{
	return rt < RT_COUNT ? runtime_names[rt] : "other";
}

static int field_is(struct field f, const char *s)
{
	size_t n = strlen(s);

	return f.s && f.n == n && memcmp(f.s, s, n) == 0;
}

static int field_starts(struct field f, const char *s)
{
	size_t n = strlen(s);

	return f.s && f.n >= n && memcmp(f.s, s, n) == 0;
}

/*
 * @f is @prefix, 12 lowercase hex digits, and maybe "#N"
 * (collector/run/container_names.c's short ids).
 */
static int runtime_named(struct field f, const char *prefix)
{
	size_t p = strlen(prefix), i;

	if (!field_starts(f, prefix) || f.n < p + 12)
		return 0;
	for (i = p; i < p + 12; i++)
		if (!((f.s[i] >= '0' && f.s[i] <= '9') || (f.s[i] >= 'a' && f.s[i] <= 'f')))
			return 0;
	return f.n == p + 12 || f.s[p + 12] == '#';
}

enum boot_runtime boots_runtime(enum boots_kind kind, struct field name, struct field how,
				struct field comm, struct field detail)
{
	struct kube_path kp;

	if (kind == BOOTS_SPAWN || field_is(how, "spawn"))
		return RT_SPAWN;
	if ((field_is(how, "mkdir") || field_is(how, "attach")) && detail.s &&
	    cgroup_path_kube(detail.s, detail.n, &kp))
		return RT_KUBERNETES;
	if (runtime_named(name, "docker-"))
		return RT_DOCKER;
	if (runtime_named(name, "podman-"))
		return RT_PODMAN;
	if (runtime_named(name, "containerd-"))
		return RT_CONTAINERD;
	if (runtime_named(name, "crio-"))
		return RT_CRIO;
	/* runc's comm is "runc", its init "runc:[0:PARENT]" and so on */
	if (field_is(comm, "runc") || field_starts(comm, "runc:[") || field_is(comm, "crun") ||
	    field_is(comm, "youki"))
		return RT_RUNC;
	return RT_OTHER;
}

struct boots *boots__new(enum boots_kind kind, const struct boots_sink *sink,
			 const size_t caps[BL_COUNT])
{
	struct boots *b = calloc(1, sizeof(*b));
	int i, fail = 0;

	if (!b)
		return NULL;
	b->kind = kind;
	b->sink = *sink;
	b->phases[PH_EXEC] = strdup("exec");
	b->phases[PH_LISTEN] = strdup("listen");
	b->nphases = 2;
	for (i = 0; i < BL_COUNT; i++) {
		b->caps[i].max = caps[i];
		if (caps[i] && !(b->caps[i].v = calloc(caps[i], sizeof(char *))))
			fail = 1;
	}
	if (!b->phases[PH_EXEC] || !b->phases[PH_LISTEN] || fail) {
		boots__free(b);
		return NULL;
	}
	return b;
}

static void boot_free(struct boot *k)
{
	free(k->name);
	free(k);
}

void boots__free(struct boots *b)
{
	size_t i;
	int l;

	if (!b)
		return;
	for (i = 0; i < b->live.cap; i++)
		if (b->live.slots[i].key)
			boot_free(b->live.slots[i].val);
	idmap_free(&b->live);
	for (i = 0; i < b->nphases; i++)
		free(b->phases[i]);
	for (l = 0; l < BL_COUNT; l++) {
		for (i = 0; i < b->caps[l].n; i++)
			free(b->caps[l].v[i]);
		free(b->caps[l].v);
	}
	free(b);
}

uint64_t boots_rows(const struct boots *b)
{
	return b->rows;
}

size_t boots_live(const struct boots *b)
{
	return b->nlive;
}

static uint64_t name_hash(struct field f)
{
	return idmap_key_of(f.s, f.n);
}

/*
 * The state of container @f, made when @make and new; NULL when not
 * there, out of memory, or (64-bit hash collision, never seen) another
 * container has its hash: that one alone is timed.
 */
static struct boot *boot_get(struct boots *b, struct field f, int make)
{
	uint64_t h = name_hash(f);
	struct boot *k = idmap_get(&b->live, h);
	int i;

	if (k)
		return k->len == f.n && memcmp(k->name, f.s, f.n) == 0 ? k : NULL;
	if (!make || !(k = calloc(1, sizeof(*k))))
		return NULL;
	k->name = malloc(f.n ? f.n : 1);
	if (!k->name || idmap_put(&b->live, h, k) < 0) {
		boot_free(k);
		return NULL;
	}
	memcpy(k->name, f.s, f.n);
	k->len = f.n;
	k->rt = RT_OTHER;
	for (i = 0; i < BL_COUNT; i++)
		k->label[i] = "";
	return k;
}

static void boot_drop(struct boots *b, struct boot *k)
{
	idmap_del(&b->live, name_hash((struct field){ k->name, k->len }));
	boot_free(k);
}

/* The id of mark label @f, added when new; -1 when there are MAX_PHASES or out of memory. */
static int phase_id(struct boots *b, struct field f)
{
	char label[METRICS_LABEL_MAX];
	size_t i;

	metrics_label_from_raw(f.s ? f.s : "", f.s ? f.n : 0, label, sizeof(label));
	for (i = 2; i < b->nphases; i++)
		if (strcmp(b->phases[i], label) == 0)
			return (int)i;
	if (b->nphases == MAX_PHASES || !(b->phases[b->nphases] = strdup(label)))
		return -1;
	return (int)b->nphases++;
}

static void emit(struct boots *b, struct boot *k, int ph, uint64_t ts)
{
	if (b->sink.phase)
		b->sink.phase(b->sink.ctx, k->rt, b->phases[ph], k->label,
			      (int64_t)(ts - k->t_start));
}

/* Container @k reached phase @ph at @ts: timed now, or when its start row comes. */
static void reach(struct boots *b, struct boot *k, int ph, uint64_t ts)
{
	if (ph < 0 || (k->done & (1ULL << ph)))
		return;
	if (k->started) {
		k->done |= 1ULL << ph;
		emit(b, k, ph, ts);
	} else if (k->npend < MAX_PENDING) {
		k->done |= 1ULL << ph;
		k->pend_ph[k->npend] = (uint8_t)ph;
		k->pend_ts[k->npend++] = ts;
	}
}

/* The value of label @l for @n raw bytes at @s: a value known, a new one within the cap, or "other". */
static const char *cap_label(struct boots *b, enum boot_label l, const char *s, size_t n)
{
	struct label_cap *c = &b->caps[l];
	char label[METRICS_LABEL_MAX];
	size_t i;

	if (!c->max)
		return "";
	metrics_label_from_raw(s ? s : "", s ? n : 0, label, sizeof(label));
	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i], label) == 0)
			return c->v[i];
	if (c->n == c->max || !(c->v[c->n] = strdup(label)))
		return BOOT_LABEL_OTHER;
	return c->v[c->n++];
}

/* The entrypoint label of an exec of @file: its basename. */
static const char *entry_label(struct boots *b, struct field file)
{
	size_t i, base = 0;

	for (i = 0; file.s && i < file.n; i++)
		if (file.s[i] == '/')
			base = i + 1;
	return cap_label(b, BL_ENTRYPOINT, file.s ? file.s + base : NULL,
			 file.s ? file.n - base : 0);
}

/*
 * A meta row: the container's namespace and image. The row as written is
 * its raw bytes (the writer escapes them), which meta_parse() reads.
 */
static void on_meta(struct boots *b, const struct row *r)
{
	struct boot *k;
	struct meta m;

	if (!(b->caps[BL_NAMESPACE].max || b->caps[BL_IMAGE].max) || !r->detail.s ||
	    meta_parse(r->detail.s, r->detail.n, &m) < 0 || !(k = boot_get(b, r->container, 1)))
		return;
	if (m.v[META_NAMESPACE].s)
		k->label[BL_NAMESPACE] = cap_label(b, BL_NAMESPACE, m.v[META_NAMESPACE].s,
						   m.v[META_NAMESPACE].n);
	if (m.v[META_IMAGE].s)
		k->label[BL_IMAGE] = cap_label(b, BL_IMAGE, m.v[META_IMAGE].s, m.v[META_IMAGE].n);
}

static void on_start(struct boots *b, const struct row *r)
{
	struct boot *k = boot_get(b, r->container, 1);
	unsigned i;

	if (!k || k->started)
		return;
	k->started = 1;
	k->t_start = r->ts_ns;
	k->rt = boots_runtime(b->kind, r->container, r->name, r->comm, r->detail);
	b->nlive++;
	if (b->sink.started)
		b->sink.started(b->sink.ctx, k->rt);
	for (i = 0; i < k->npend; i++)
		emit(b, k, k->pend_ph[i], k->pend_ts[i]);
	k->npend = 0;
}

static void on_end(struct boots *b, const struct row *r)
{
	struct boot *k = boot_get(b, r->container, 0);

	if (!k)
		return;
	if (k->started) {
		b->nlive--;
		if (b->sink.ended)
			b->sink.ended(b->sink.ctx, k->rt);
	}
	boot_drop(b, k);
}

void boots_row(void *ctx, const struct row *r)
{
	struct boots *b = ctx;
	const char *ev = r->event;
	struct boot *k;

	b->rows++;
	/* syscall rows are nearly all of them: only a successful listen counts */
	if (ev[0] == 's' && ev[1] == 'y') {
		if (r->has_ret && r->ret == 0 && field_is(r->name, "listen") &&
		    (k = boot_get(b, r->container, 1)))
			reach(b, k, PH_LISTEN, r->ts_ns + (r->has_dur ? r->dur_ns : 0));
		return;
	}
	if (strcmp(ev, "start") == 0) {
		on_start(b, r);
	} else if (strcmp(ev, "end") == 0) {
		on_end(b, r);
	} else if (strcmp(ev, "exec") == 0) {
		if ((field_is(r->name, "init") ||
		     !entrypoint_is_runtime(r->detail.s ? r->detail.s : "", r->detail.s ? r->detail.n : 0)) &&
		    (k = boot_get(b, r->container, 1)) && !(k->done & (1ULL << PH_EXEC))) {
			k->label[BL_ENTRYPOINT] = entry_label(b, r->detail);
			reach(b, k, PH_EXEC, r->ts_ns);
		}
	} else if (strcmp(ev, "meta") == 0) {
		on_meta(b, r);
	} else if (strcmp(ev, "mark") == 0) {
		if ((k = boot_get(b, r->container, 1)))
			reach(b, k, phase_id(b, r->name), r->ts_ns);
	}
}
