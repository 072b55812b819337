/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A container's names as its runtime knows them, for its `meta` row
 * (docs/tsv-format.md, Meta rows; common/meta.h), read on the node
 * alone, with no API server and no runtime socket (FLEET.md):
 *
 *   the cgroup path   the runtime, the container id; under kubepods the
 *                     pod's uid and QoS class (collector/run/container_names.h);
 *   the OCI bundle    its config.json's annotations: containerd's CRI
 *                     (io.kubernetes.cri.sandbox-name, -namespace, -uid,
 *                     container-name, image-name, container-type,
 *                     sandbox-id) or CRI-O's (io.kubernetes.pod.name, ...);
 *   Docker's state    containers/<id>/config.v2.json under its data root:
 *                     Name, Config.Image;
 *   podman's conmon   its --name / -n (podman keeps the image in its
 *                     database only: none).
 *
 * The bundle is found from the processes that start the container, as
 * the collector sees its first task: runc create (its --bundle argument,
 * and its working directory: runc chdirs to the bundle), its parent the
 * shim or conmon (a shim's working directory is the bundle of the first
 * container it serves, the pod's sandbox: the pod's other bundles are
 * beside it, named by their ids; conmon has --bundle / -b). A config.json
 * counts only when its linux.cgroupsPath names this container's id (or
 * cgroup directory): a stale or foreign bundle is never taken. Docker's
 * data root is found from the bundle too: its /etc/hostname mount's
 * source is containers/<id>/hostname beside config.v2.json.
 *
 * Everything read here is hostile (whoever starts a pod writes its
 * annotations): files are read up to 1 MiB, values up to 255 bytes, and
 * the values go out escaped as LEN:BYTES strings.
 */
#ifndef COLLECTOR_RUNTIME_NAMES_H
#define COLLECTOR_RUNTIME_NAMES_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/meta.h"

#define RUNTIME_NAME_MAX 256

struct runtime_names {
	char val[META_NKEYS][RUNTIME_NAME_MAX];
	struct meta m;			/* points into val */
	const char *source;		/* the meta row's name: cgroup, oci, docker */
	char leaf[RUNTIME_NAME_MAX];	/* the id, or the cgroup's last directory */
	pid_t maker, maker_parent;	/* the task that made the cgroup, and its parent */
	pid_t last_pid;			/* the task of the last search (lifecycle.c) */
	unsigned tries;			/* bundle searches so far (lifecycle.c) */
};

/*
 * runtime_names_from_path - @rn from cgroup path @path (relative to the
 * mount) alone: source "cgroup". Returns 1 when the path is a runtime's
 * container (container_names.h's container_runtime_id(), or under kubepods), else 0
 * (then the container has no meta row).
 */
int runtime_names_from_path(const char *path, struct runtime_names *rn);

/*
 * runtime_names_from_bundle - add to @rn what the bundle of its container
 * says, found from @pid (a task of the container) and its ancestors, then
 * from rn->maker and rn->maker_parent (runc create and the shim or conmon
 * that ran it, as the cgroup's mkdir record gave them: the shim outlives a
 * container that is gone already; 0: none). Returns 1 when a bundle of
 * this container was read (source "oci" or, with Docker's state,
 * "docker"), 0 when none was found (its processes are gone).
 */
int runtime_names_from_bundle(struct runtime_names *rn, pid_t pid);

#endif /* COLLECTOR_RUNTIME_NAMES_H */
