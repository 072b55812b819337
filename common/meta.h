/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The detail of a `meta` row (docs/tsv-format.md, Meta rows): what the
 * container's runtime calls it. Space-separated KEY=LEN:BYTES fields, as
 * in a sched row's detail (common/sched_detail.h), every value a
 * length-prefixed string, since every one comes from the runtime's state
 * or from whoever made the pod, and may hold anything:
 *
 *   image=16:registry/app:1.4 runtime=10:containerd id=64:3f2a... pod=5:web-0
 *   namespace=4:prod pod_uid=36:0b8c... container=3:app type=9:container
 *
 * A reader skips keys it does not know (later versions may add some);
 * a key given twice, or with a value that is not LEN:BYTES, is malformed.
 * The collector formats it, the analyzer and the collector's --metrics
 * parse it; both on the field's bytes after TSV unescaping. Pure.
 */
#ifndef BOOTTRACE_META_H
#define BOOTTRACE_META_H

#include <stdbool.h>
#include <stddef.h>

#include "common/sched_detail.h"

/*
 * The keys, in the order the collector writes them. The image first: a
 * reader that cannot walk the fields (SQL: dist/clickhouse/schema.sql)
 * finds it at the start of the detail, where no other value can hold
 * "image=".
 */
enum meta_key {
	META_IMAGE,		/* the image as the user named it: "registry/app:1.4" */
	META_RUNTIME,		/* containerd, crio, docker, podman */
	META_ID,		/* the runtime's container id (64 hex, or as the runtime names it) */
	META_NAME,		/* the runtime's container name (Docker's, without its "/") */
	META_POD,		/* Kubernetes: the pod's name */
	META_NAMESPACE,		/* the pod's namespace */
	META_POD_UID,		/* the pod's uid, with its '-' */
	META_CONTAINER,		/* the container's name in the pod spec */
	META_TYPE,		/* "sandbox" (the pod's pause container) or "container" */
	META_QOS,		/* the pod's QoS class from its cgroup path: guaranteed, burstable, besteffort */
	META_SANDBOX_ID,	/* the id of the pod's sandbox container */
	META_NKEYS,
};

/* A container's names: each NULL (s) when absent. Points into the parsed bytes. */
struct meta {
	struct sched_str v[META_NKEYS];
};

/* meta_key_name - "runtime", "id", ...; NULL out of range. */
const char *meta_key_name(enum meta_key k);

/*
 * meta_parse - @n bytes at @s (unescaped) into @m. 0, or -1 when malformed
 * (detail_field_next()'s rules, a known key's value not LEN:BYTES, a key
 * given twice).
 */
int meta_parse(const char *s, size_t n, struct meta *m);

/*
 * meta_format - @m's present values as the detail into @out (@cap bytes),
 * in key order. Returns the length (not NUL-terminated), or 0 when @cap is
 * too small or nothing is present.
 */
size_t meta_format(const struct meta *m, char *out, size_t cap);

/* meta_is_sandbox - whether @m names a pod's sandbox (type=sandbox). */
bool meta_is_sandbox(const struct meta *m);

#endif /* BOOTTRACE_META_H */
