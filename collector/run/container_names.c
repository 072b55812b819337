// SPDX-License-Identifier: BSD-2-Clause
/* Container names from cgroup paths: see container_names.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "collector/run/container_names.h"

#define SHORT_ID 12

static size_t hex_run(const char *s)
{
	size_t n = 0;

	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))
		n++;
	return n;
}

/* "<prefix><hex id>[.scope]": the id into @id (@n bytes), 1; 0 if @base is not one. */
static int runtime_id(const char *base, const char *prefix, char *id, size_t n)
{
	size_t pl = strlen(prefix), h;

	if (strncmp(base, prefix, pl) != 0)
		return 0;
	h = hex_run(base + pl);
	if (h < SHORT_ID || (base[pl + h] != '\0' && strcmp(base + pl + h, ".scope") != 0))
		return 0;
	snprintf(id, n, "%.*s", (int)h, base + pl);
	return 1;
}

/* The next component of path[*i, n): its start and length; 0 at the end. */
static int component(const char *path, size_t n, size_t *i, const char **c, size_t *len)
{
	while (*i < n && path[*i] == '/')
		(*i)++;
	if (*i >= n)
		return 0;
	*c = path + *i;
	while (*i < n && path[*i] != '/')
		(*i)++;
	*len = (size_t)(path + *i - *c);
	return 1;
}

static int comp_is(const char *c, size_t len, const char *s)
{
	return strlen(s) == len && memcmp(c, s, len) == 0;
}

static int comp_starts(const char *c, size_t len, const char *s)
{
	return len >= strlen(s) && memcmp(c, s, strlen(s)) == 0;
}

/* Copy @len bytes at @c into @out (@n bytes), '_' → '-' when @dashes; NUL-terminated. */
static void copy_comp(char *out, size_t n, const char *c, size_t len, int dashes)
{
	size_t i;

	for (i = 0; i < len && i + 1 < n; i++)
		out[i] = dashes && c[i] == '_' ? '-' : c[i];
	out[i] = '\0';
}

/* The pod's directory after the QoS one: "pod<uid>" or "kubepods[-<qos>]-pod<uid>.slice". */
static int kube_pod(const char *c, size_t len, int systemd, struct kube_path *kp)
{
	const char *p = systemd ? memmem(c, len, "-pod", 4) : c;
	size_t skip = systemd ? 4 : 3;

	if (!p || (!systemd && !comp_starts(c, len, "pod")) ||
	    (systemd && (len < 6 || memcmp(c + len - 6, ".slice", 6) != 0)))
		return 0;
	len -= (size_t)(p - c) + skip + (systemd ? 6 : 0);
	copy_comp(kp->pod_uid, sizeof(kp->pod_uid), p + skip, len, systemd);
	return 1;
}

/* The runtimes' scopes (systemd) and cgroup names: prefix, then the id. */
static const struct { const char *prefix, *runtime; } scopes[] = {
	{ "docker-", "docker" }, { "libpod-", "podman" },
	{ "cri-containerd-", "containerd" }, { "crio-", "crio" },
};

/* The container's own directory: a scope, or a bare id (cgroupfs). */
static void kube_container(const char *c, size_t len, struct kube_path *kp)
{
	size_t i, pl;

	if (comp_starts(c, len, "crio-conmon-")) {
		kp->conmon = true;
		return;
	}
	if (len > 6 && memcmp(c + len - 6, ".scope", 6) == 0)
		len -= 6;
	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		pl = strlen(scopes[i].prefix);
		if (comp_starts(c, len, scopes[i].prefix)) {
			snprintf(kp->runtime, sizeof(kp->runtime), "%s", scopes[i].runtime);
			copy_comp(kp->id, sizeof(kp->id), c + pl, len - pl, 0);
			return;
		}
	}
	/* cgroupfs: the bare id, the kubelet's containerd (docker's would be the same) */
	snprintf(kp->runtime, sizeof(kp->runtime), "containerd");
	copy_comp(kp->id, sizeof(kp->id), c, len, 0);
}

bool cgroup_path_kube(const char *path, size_t n, struct kube_path *kp)
{
	const char *c;
	size_t i = 0, len;
	int systemd = -1;

	memset(kp, 0, sizeof(*kp));
	while (component(path, n, &i, &c, &len)) {
		if (comp_is(c, len, "kubepods")) {
			systemd = 0;
			break;
		}
		if (comp_is(c, len, "kubepods.slice") ||
		    (comp_starts(c, len, "kubepods-") && systemd < 0)) {
			/* a slice's name holds its parents': kubepods-burstable.slice alone will do */
			systemd = 1;
			if (comp_is(c, len, "kubepods.slice"))
				break;
			i -= len;	/* read it again as the QoS slice */
			break;
		}
	}
	if (systemd < 0)
		return false;
	kp->kubepods = true;
	if (!component(path, n, &i, &c, &len))
		return true;
	if (comp_is(c, len, systemd ? "kubepods-burstable.slice" : "burstable") ||
	    comp_is(c, len, systemd ? "kubepods-besteffort.slice" : "besteffort")) {
		copy_comp(kp->qos, sizeof(kp->qos), c + (systemd ? 9 : 0),
			  len - (systemd ? 15 : 0), 0);
		if (!component(path, n, &i, &c, &len))
			return true;
	} else {
		snprintf(kp->qos, sizeof(kp->qos), "guaranteed");
	}
	if (!kube_pod(c, len, systemd, kp)) {
		kp->qos[0] = '\0';
		return true;
	}
	if (component(path, n, &i, &c, &len))
		kube_container(c, len, kp);
	return true;
}

int container_runtime_id(const char *path, const char **runtime, char *id, size_t n)
{
	const char *base = strrchr(path, '/');
	const char *parent_end = base;
	struct kube_path kp;
	size_t h, i;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (runtime_id(base, scopes[i].prefix, id, n)) {
			*runtime = scopes[i].runtime;
			return 1;
		}
	/*
	 * cgroupfs drivers name a container's cgroup by its bare id: docker
	 * under /docker or any --cgroup-parent (podman always writes
	 * libpod-<id>), the kubelet's containerd under
	 * /kubepods[/<qos>]/pod<uid>. Under a directory docker, 12 hex digits
	 * will do; elsewhere only a whole 64-digit id counts.
	 */
	h = hex_run(base);
	if (base[h] == '\0' && parent_end &&
	    ((h >= SHORT_ID && parent_end - path >= 7 && strncmp(parent_end - 7, "/docker", 7) == 0) ||
	     h == 64)) {
		*runtime = cgroup_path_kube(path, (size_t)(parent_end - path), &kp) ? "containerd"
										     : "docker";
		snprintf(id, n, "%s", base);
		return 1;
	}
	return 0;
}

int container_runtime_name(const char *path, char *out, size_t n)
{
	const char *rt;
	char id[256];

	if (!container_runtime_id(path, &rt, id, sizeof(id)))
		return 0;
	snprintf(out, n, "%s-%.*s", rt, SHORT_ID, id);
	return 1;
}

char *container_name_from_path(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');

	if (container_runtime_name(path, out, n))
		return out;
	base = base ? base + 1 : path;
	snprintf(out, n, "%s", *base ? base : "/");
	return out;
}
