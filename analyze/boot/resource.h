/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * resource: who a container is, as OpenTelemetry resource attributes
 * (semantic conventions' names), from what analyze has of it: its file's
 * metadata and the container's own rows. The one place that names a
 * container for an export (--format otlp), the collector's meta rows
 * included (docs/tsv-format.md, Meta rows).
 *
 * Which attributes appear, and when (values TSV-escaped, as in the file):
 *   service.name        always: the container's name without a "#N" suffix
 *                       (a tracing UI lists traces by service);
 *   container.name      always: the runtime's name from the container's meta
 *                       row (Docker's, podman's), else the same;
 *   boottrace.container always: the container column as written ("web#2"
 *                       for a name given again in the run);
 *   container.runtime   when the name says: docker, podman, containerd,
 *                       crio (the collector's docker-<12 hex> ...);
 *   container.id        when a start row's detail is a cgroup path whose
 *                       last component holds a 64-hex id (docker-<id>.scope,
 *                       cri-containerd-<id>.scope, crio-<id>.scope,
 *                       libpod-<id>.scope, kubepods/.../<id>): the full id;
 *   host.name           when the file has `# host=`;
 *   os.type             always "linux"; os.version when the file has
 *                       `# kernel=`;
 *   boottrace.run_id    when the file has `# run_id=`;
 *   container.image.name, k8s.pod.name, k8s.namespace.name, k8s.pod.uid,
 *   k8s.container.name  from the container's meta row (analysis.pods,
 *                       which --format otlp keeps: analyze_opts.names),
 *                       each when it says it; its runtime and id stand in
 *                       for container.runtime and container.id when the
 *                       name and cgroup path do not say them.
 * Attributes with no value are left out, never written empty.
 *
 * The files' metadata is kept per file read (resource_file_add()), a few
 * short strings a file: memory is nothing next to the rows.
 */
#ifndef ANALYZE_RESOURCE_H
#define ANALYZE_RESOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/reader.h"
#include "common/meta.h"

struct analysis;

/* The most attributes resource_attrs() gives. */
#define RESOURCE_MAX_ATTRS 16

/* One attribute: a semantic conventions key and a TSV-escaped string value. */
struct res_attr {
	const char *key;
	const char *val;	/* escaped */
	size_t len;		/* its bytes: val[len] need not be NUL (a name without #N) */
};

/* What an export needs of a file beside its rows. */
struct res_file {
	char *host, *kernel, *run_id, *started;	/* escaped, or NULL */
	int64_t realtime_offset;	/* # realtime_offset_ns, else 0 */
	bool has_offset;
};

/* The files' metadata, in the order read (a container's file index). */
struct res_files {
	struct res_file *f;
	size_t n, cap;
	char idbuf[65];		/* resource_attrs()' container.id */
	char metabuf[META_NKEYS][1024];	/* its meta row's names, escaped (255 bytes at most each) */
};

/*
 * resource_file_add - keep the metadata of the file @r (its header read)
 * as file number @files->n. 0, or -1 out of memory.
 */
int resource_file_add(struct res_files *files, const struct tsv_reader *r);

/* resource_files_release - free what resource_file_add() kept; accepts an empty one. */
void resource_files_release(struct res_files *files);

/*
 * resource_pod_attrs - the attributes of pod boot @ctr (pod_boot.h: a
 * pod's containers merged into one timeline container) whose names are
 * meta @m (pods.h's pod names): service.name (the pod's name),
 * boottrace.container, k8s.pod.name, k8s.namespace.name, k8s.pod.uid,
 * host.name and k8s.node.name (the kubelet names its node after the
 * host), os.type, os.version, boottrace.run_id; the values in the same
 * buffers as resource_attrs()'s. Returns the count.
 */
size_t resource_pod_attrs(struct analysis *a, size_t ctr, const struct meta *m,
			  struct res_attr *out);

/*
 * resource_attrs - the resource attributes of container @ctr of @a's
 * timeline (a->tl must be set) into @out (RESOURCE_MAX_ATTRS of room), in
 * the order listed above. Returns the count. The values point into @a and
 * into a->res's buffers: valid until the next call.
 */
size_t resource_attrs(struct analysis *a, size_t ctr, struct res_attr *out);

/*
 * resource_file - file @i's metadata, or NULL when it was not kept (an
 * analysis reading parts).
 */
const struct res_file *resource_file(const struct analysis *a, uint32_t i);

#endif /* ANALYZE_RESOURCE_H */
