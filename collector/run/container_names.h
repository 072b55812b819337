/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Names users know for containers: from their cgroup paths (the
 * runtimes' and the kubelet's layouts).
 */
#ifndef COLLECTOR_CONTAINER_NAMES_H
#define COLLECTOR_CONTAINER_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * container_name_from_path - the name of the container whose cgroup is
 * @path (relative to the cgroup2 mount, e.g. "/system.slice/docker-<id>.scope"),
 * written to @out (@n bytes, NUL-terminated, truncated if needed).
 * docker-<64 hex>.scope and /docker/<64 hex> give "docker-<12 hex>",
 * libpod-<id>[.scope] "podman-<12>", cri-containerd-<id>.scope
 * "containerd-<12>", crio-<id>.scope "crio-<12>"; a bare 64-hex id (a
 * cgroupfs driver's) "docker-<12>" under any parent (a --cgroup-parent),
 * "containerd-<12>" under kubepods; anything else is the last path
 * component (a systemd unit keeps its suffix: "nginx.service").
 * Returns @out.
 */
char *container_name_from_path(const char *path, char *out, size_t n);

/* What the kubelet's cgroup path of a container says (FLEET.md). */
struct kube_path {
	bool kubepods;		/* under kubepods/ (cgroupfs) or kubepods*.slice (systemd) */
	bool conmon;		/* crio-conmon-<id>.scope: CRI-O's monitor, not the container */
	char qos[16];		/* burstable, besteffort, guaranteed (no QoS level); "" unknown */
	char pod_uid[40];	/* with its '-' (a systemd slice writes them '_') */
	char runtime[16];	/* containerd, crio, docker; "" */
	char id[80];		/* the container's id: the scope's, or the bare directory (cgroupfs) */
};

/*
 * cgroup_path_kube - read cgroup path @path (@n bytes, not NUL-terminated,
 * relative to the mount) as the kubelet lays it out, both drivers:
 *   systemd   kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice/
 *             {cri-containerd,crio,docker}-<id>.scope (no QoS slice for a
 *             Guaranteed pod: kubepods.slice/kubepods-pod<uid>.slice/...);
 *   cgroupfs  kubepods/<qos>/pod<uid>/<id>, kubepods/pod<uid>/<id>, crio-<id>.
 * Fills what the path holds into @kp (zeroed first). Returns whether the
 * path is under kubepods (a directory "kubepods", "kubepods.slice" or
 * "kubepods-*.slice"): the one rule the container names and --metrics'
 * runtime label share.
 */
bool cgroup_path_kube(const char *path, size_t n, struct kube_path *kp);

/*
 * container_runtime_name - as container_name_from_path() when @path is a
 * container runtime's cgroup (the docker-, podman-, containerd-, crio-
 * names): 1; else 0 and @out untouched.
 */
int container_runtime_name(const char *path, char *out, size_t n);

/*
 * container_runtime_id - when @path is a container runtime's cgroup (as
 * container_runtime_name() tells): its runtime in *@runtime ("docker",
 * "podman", "containerd", "crio", static) and its whole id into @id (@n
 * bytes, NUL-terminated, truncated), 1; else 0.
 */
int container_runtime_id(const char *path, const char **runtime, char *id, size_t n);

#endif /* COLLECTOR_CONTAINER_NAMES_H */
