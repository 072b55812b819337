// SPDX-License-Identifier: BSD-2-Clause
/* A container's OpenTelemetry resource attributes: see resource.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/array.h"
#include "analyze/boot/analysis.h"
#include "analyze/boot/pods.h"
#include "analyze/boot/resource.h"
#include "common/meta.h"
#include "common/tsv.h"

static char *dup_meta(const struct tsv_reader *r, const char *key, int *err)
{
	const char *v = tsv_reader_meta(r, key);
	char *d;

	if (!v || !*v)
		return NULL;
	d = strdup(v);
	if (!d)
		*err = -1;
	return d;
}

int resource_file_add(struct res_files *files, const struct tsv_reader *r)
{
	struct res_file *f;
	const char *off;
	char *end;
	int err = 0;

	if (array_grow((void **)&files->f, &files->cap, files->n + 1, sizeof(*files->f), 4) < 0)
		return -1;
	f = &files->f[files->n];
	memset(f, 0, sizeof(*f));
	f->host = dup_meta(r, "host", &err);
	f->kernel = dup_meta(r, "kernel", &err);
	f->run_id = dup_meta(r, "run_id", &err);
	f->started = dup_meta(r, "started", &err);
	off = tsv_reader_meta(r, "realtime_offset_ns");
	if (off && *off) {
		errno = 0;
		f->realtime_offset = strtoll(off, &end, 10);
		f->has_offset = !errno && !*end;
		if (!f->has_offset)
			f->realtime_offset = 0;
	}
	files->n++;	/* kept even when a strdup failed: freed with the rest */
	return err;
}

void resource_files_release(struct res_files *files)
{
	size_t i;

	for (i = 0; i < files->n; i++) {
		free(files->f[i].host);
		free(files->f[i].kernel);
		free(files->f[i].run_id);
		free(files->f[i].started);
	}
	free(files->f);
	files->f = NULL;
	files->n = files->cap = 0;
}

const struct res_file *resource_file(const struct analysis *a, uint32_t i)
{
	return i < a->res.n ? &a->res.f[i] : NULL;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * The first run of exactly 64 lowercase hex digits in the last component
 * of cgroup path @p, into @id (65 bytes). Runtimes name a container's
 * cgroup after its id: docker-<id>.scope, cri-containerd-<id>.scope,
 * crio-<id>.scope, libpod-<id>.scope (systemd driver), or <id> itself
 * (cgroupfs: kubepods/<qos>/pod<uid>/<id>, /docker/<id>). false when none.
 */
static bool id_from_cgroup(const char *p, char *id)
{
	const char *s = strrchr(p, '/');
	size_t run = 0;

	for (s = s ? s + 1 : p; ; s++) {
		if (*s && is_hex(*s)) {
			run++;
			continue;
		}
		if (run == 64) {
			memcpy(id, s - 64, 64);
			id[64] = '\0';
			return true;
		}
		if (!*s)
			return false;
		run = 0;
	}
}

/* The runtime a collector's container name says (docs/tsv-format.md), or NULL. */
static const char *runtime_of(const char *name)
{
	static const char *const rts[] = { "docker", "podman", "containerd", "crio" };
	size_t i, n;

	for (i = 0; i < sizeof(rts) / sizeof(rts[0]); i++) {
		n = strlen(rts[i]);
		if (strncmp(name, rts[i], n) == 0 && name[n] == '-')
			return rts[i];
	}
	return NULL;
}

/* @key = the @len bytes at @val (all of it: SIZE_MAX), unless empty */
static void put_n(struct res_attr *out, size_t *n, const char *key, const char *val, size_t len)
{
	if (!val || !*val || !len || *n >= RESOURCE_MAX_ATTRS)
		return;
	out[*n].key = key;
	out[*n].val = val;
	out[*n].len = len == SIZE_MAX ? strlen(val) : len;
	(*n)++;
}

static void put(struct res_attr *out, size_t *n, const char *key, const char *val)
{
	put_n(out, n, key, val, SIZE_MAX);
}

/*
 * Value @k of container @c's meta row (docs/tsv-format.md, Meta rows),
 * escaped into a->res.metabuf[@k] (NULL: no meta row kept, or no such
 * name); *@len its length.
 */
static const char *meta_val(struct analysis *a, const struct pod_ctr *p, enum meta_key k,
			    size_t *len)
{
	const struct sched_str *v = p ? &p->m.v[k] : NULL;

	if (!v || !v->s || v->n > 255 || (size_t)k >= sizeof(a->res.metabuf) / sizeof(a->res.metabuf[0]))
		return NULL;
	*len = tsv_escape(v->s, v->n, a->res.metabuf[k]);
	a->res.metabuf[k][*len] = '\0';
	return a->res.metabuf[k];
}

size_t resource_pod_attrs(struct analysis *a, size_t ctr, const struct meta *m,
			  struct res_attr *out)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[ctr];
	const struct res_file *f = resource_file(a, c->file);
	const char *name = timeline_str(tl, c->name);
	struct pod_ctr p = { .m = *m };
	size_t n = 0, len;
	const char *v;

	/* the pod, named as the kubelet's spans' resource would (k8s.pod.*) */
	if ((v = meta_val(a, &p, META_POD, &len)))
		put_n(out, &n, "service.name", v, len);
	else
		put(out, &n, "service.name", name);
	put(out, &n, "boottrace.container", name);
	if ((v = meta_val(a, &p, META_POD, &len)))
		put_n(out, &n, "k8s.pod.name", v, len);
	if ((v = meta_val(a, &p, META_NAMESPACE, &len)))
		put_n(out, &n, "k8s.namespace.name", v, len);
	if ((v = meta_val(a, &p, META_POD_UID, &len)))
		put_n(out, &n, "k8s.pod.uid", v, len);
	put(out, &n, "host.name", f ? f->host : NULL);
	put(out, &n, "k8s.node.name", f ? f->host : NULL);
	put(out, &n, "os.type", "linux");
	put(out, &n, "os.version", f ? f->kernel : NULL);
	put(out, &n, "boottrace.run_id", f ? f->run_id : NULL);
	return n;
}

size_t resource_attrs(struct analysis *a, size_t ctr, struct res_attr *out)
{
	const struct timeline *tl = a->tl;
	const struct tl_container *c = &tl->ctrs[ctr];
	const struct res_file *f = resource_file(a, c->file);
	const char *name = timeline_str(tl, c->name), *hash = strrchr(name, '#'), *v;
	const struct pod_ctr *p = a->pods ? pods_find(a->pods, c->file, f ? f->run_id : NULL, name,
						      strlen(name)) : NULL;
	static const struct { enum meta_key k; const char *attr; } k8s[] = {
		{ META_IMAGE, "container.image.name" }, { META_POD, "k8s.pod.name" },
		{ META_NAMESPACE, "k8s.namespace.name" }, { META_POD_UID, "k8s.pod.uid" },
		{ META_CONTAINER, "k8s.container.name" },
	};
	size_t i, n = 0, base = strlen(name), len;
	bool id = false;

	/* "web#2": the collector's second boot under that name in the run */
	if (hash && hash > name && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1))
		base = (size_t)(hash - name);
	for (i = 0; i < c->nstarts && !id; i++)
		if (c->starts[i].detail != TL_NOSTR)
			id = id_from_cgroup(timeline_str(tl, c->starts[i].detail), a->res.idbuf);

	put_n(out, &n, "service.name", name, base);
	/* the runtime's name when its meta row says it (Docker's, podman's), else the collector's */
	if ((v = meta_val(a, p, META_NAME, &len)))
		put_n(out, &n, "container.name", v, len);
	else
		put_n(out, &n, "container.name", name, base);
	put(out, &n, "boottrace.container", name);
	put(out, &n, "container.runtime", runtime_of(name) ? runtime_of(name) :
					  meta_val(a, p, META_RUNTIME, &len));
	put(out, &n, "container.id", id ? a->res.idbuf : meta_val(a, p, META_ID, &len));
	put(out, &n, "host.name", f ? f->host : NULL);
	put(out, &n, "os.type", "linux");
	put(out, &n, "os.version", f ? f->kernel : NULL);
	put(out, &n, "boottrace.run_id", f ? f->run_id : NULL);
	/* the collector's meta rows (analysis.pods, kept for --format otlp) */
	for (i = 0; i < sizeof(k8s) / sizeof(k8s[0]); i++)
		if ((v = meta_val(a, p, k8s[i].k, &len)))
			put_n(out, &n, k8s[i].attr, v, len);
	return n;
}
