// SPDX-License-Identifier: BSD-2-Clause
/* A container's names from its runtime's state: see runtime_names.h. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/json.h"
#include "collector/kernel/proc.h"
#include "collector/run/container_names.h"
#include "collector/run/runtime_names.h"

/* A bundle's config.json is ~10-30 KiB; Docker's config.v2.json a few KiB. */
#define MAX_FILE (1 << 20)
/* runc create, the shim or conmon, containerd or dockerd: 6 levels reach them all */
#define MAX_ANCESTORS 6

static void set(struct runtime_names *rn, enum meta_key k, const char *s, size_t n)
{
	if (n >= RUNTIME_NAME_MAX)
		n = RUNTIME_NAME_MAX - 1;
	memcpy(rn->val[k], s, n);
	rn->val[k][n] = '\0';
	rn->m.v[k].s = rn->val[k];
	rn->m.v[k].n = n;
}

static void set_str(struct runtime_names *rn, enum meta_key k, const char *s)
{
	if (s && *s)
		set(rn, k, s, strlen(s));
}

int runtime_names_from_path(const char *path, struct runtime_names *rn)
{
	const char *rt = NULL, *base = strrchr(path, '/');
	struct kube_path kp;
	char id[RUNTIME_NAME_MAX];
	bool kube;

	memset(rn, 0, sizeof(*rn));
	rn->source = "cgroup";
	kube = cgroup_path_kube(path, strlen(path), &kp);
	if (kube && kp.conmon)
		return 0;
	if (container_runtime_id(path, &rt, id, sizeof(id))) {
		set_str(rn, META_RUNTIME, rt);
		set_str(rn, META_ID, id);
	} else if (!kube || !kp.pod_uid[0]) {
		return 0;
	}
	if (kube) {
		set_str(rn, META_RUNTIME, kp.runtime);
		set_str(rn, META_ID, kp.id);
		set_str(rn, META_POD_UID, kp.pod_uid);
		set_str(rn, META_QOS, kp.qos);
	}
	snprintf(rn->leaf, sizeof(rn->leaf), "%s",
		 rn->m.v[META_ID].s ? rn->val[META_ID] : base ? base + 1 : path);
	return 1;
}

/*
 * Read @path whole (at most MAX_FILE bytes) into a malloc'd buffer; NULL on
 * failure. Not following a last symbolic link, and non-blocking: a FIFO
 * named config.json where a container's process points (its own working
 * directory, through /proc) gives nothing rather than stalling the
 * collector.
 */
static char *slurp(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t len = 0, cap = 64 << 10;
	char *buf = NULL, *nb;
	ssize_t r;

	if (fd < 0)
		return NULL;
	while (len < MAX_FILE) {
		if (len == cap || !buf) {
			cap = buf ? cap * 2 : cap;
			if (!(nb = realloc(buf, cap)))
				break;
			buf = nb;
		}
		r = read(fd, buf + len, cap - len);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	*n = len;
	if (buf && len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The string member @key of the object at @obj into @out (@n bytes); 1 if there. */
static int member_str(const char *obj, const char *end, const char *key, char *out, size_t n)
{
	const char *v = json_member(obj, end, key);

	return v && json_string(v, end, out, n) > 0;
}

/* Annotation → meta key: containerd's CRI plugin, then CRI-O's (FLEET.md). */
static const struct { const char *annotation; enum meta_key key; } annotations[] = {
	{ "io.kubernetes.cri.sandbox-name", META_POD },
	{ "io.kubernetes.cri.sandbox-namespace", META_NAMESPACE },
	{ "io.kubernetes.cri.sandbox-uid", META_POD_UID },
	{ "io.kubernetes.cri.container-name", META_CONTAINER },
	{ "io.kubernetes.cri.image-name", META_IMAGE },
	{ "io.kubernetes.cri.container-type", META_TYPE },
	{ "io.kubernetes.cri.sandbox-id", META_SANDBOX_ID },
	{ "io.kubernetes.pod.name", META_POD },
	{ "io.kubernetes.pod.namespace", META_NAMESPACE },
	{ "io.kubernetes.pod.uid", META_POD_UID },
	{ "io.kubernetes.container.name", META_CONTAINER },
	{ "io.kubernetes.cri-o.ImageName", META_IMAGE },
	{ "io.kubernetes.cri-o.ContainerType", META_TYPE },
	{ "io.kubernetes.cri-o.SandboxID", META_SANDBOX_ID },
};

/* Docker's Name and Config.Image, from the config.v2.json beside @hostname. */
static int docker_state(struct runtime_names *rn, const char *hostname)
{
	char path[PATH_MAX], v[RUNTIME_NAME_MAX];
	const char *slash = strrchr(hostname, '/'), *end, *cfg;
	size_t n;
	char *doc;
	int found = 0;

	if (!slash || snprintf(path, sizeof(path), "%.*s/config.v2.json",
			       (int)(slash - hostname), hostname) >= (int)sizeof(path))
		return 0;
	if (!(doc = slurp(path, &n)))
		return 0;
	end = doc + n;
	if (member_str(doc, end, "Name", v, sizeof(v))) {
		/* Docker keeps its names with a leading '/' */
		set_str(rn, META_NAME, v[0] == '/' ? v + 1 : v);
		found = 1;
	}
	if ((cfg = json_member(doc, end, "Config")) && member_str(cfg, end, "Image", v, sizeof(v)))
		set_str(rn, META_IMAGE, v);
	free(doc);
	return found;
}

/* The names config.json @doc gives; 1 when it is this container's bundle. */
static int read_bundle(struct runtime_names *rn, const char *doc, size_t n)
{
	const char *end = doc + n, *lx, *ann, *mounts, *it = NULL, *m;
	char v[RUNTIME_NAME_MAX], cg[PATH_MAX], dst[64], src[PATH_MAX];
	size_t i, cl, ll = strlen(rn->leaf);

	/* cgroupfs "/kubepods/burstable/pod<uid>/<id>", systemd "<slice>:cri-containerd:<id>" */
	if (!(lx = json_member(doc, end, "linux")) ||
	    !member_str(lx, end, "cgroupsPath", cg, sizeof(cg)))
		return 0;
	cl = strlen(cg);
	/* (a cgroupsPath longer than cg was cut: it names no container here) */
	if (!ll || cl < ll || cl >= sizeof(cg) - 1 || strcmp(cg + cl - ll, rn->leaf) != 0 ||
	    (cl > ll && cg[cl - ll - 1] != '/' && cg[cl - ll - 1] != ':' && cg[cl - ll - 1] != '-'))
		return 0;
	rn->source = "oci";
	if ((ann = json_member(doc, end, "annotations")))
		for (i = 0; i < sizeof(annotations) / sizeof(annotations[0]); i++)
			if (!rn->m.v[annotations[i].key].s &&
			    member_str(ann, end, annotations[i].annotation, v, sizeof(v)))
				set_str(rn, annotations[i].key, v);
	/* Docker: its /etc/hostname is containers/<id>/hostname under its data root */
	if ((mounts = json_member(doc, end, "mounts")))
		while ((m = json_next(mounts, end, &it)))
			if (member_str(m, end, "destination", dst, sizeof(dst)) &&
			    strcmp(dst, "/etc/hostname") == 0 &&
			    member_str(m, end, "source", src, sizeof(src)) &&
			    strstr(src, "/containers/") && docker_state(rn, src)) {
				rn->source = "docker";
				break;
			}
	if (!rn->m.v[META_TYPE].s && rn->m.v[META_POD].s)
		set_str(rn, META_TYPE, "container");
	return 1;
}

/* Try bundle directory @dir: @dir/config.json, then ../<id>/config.json. */
static int try_dir(struct runtime_names *rn, const char *dir)
{
	char path[PATH_MAX];
	const char *slash;
	size_t n;
	char *doc;
	int ok = 0, i;

	for (i = 0; i < 2 && !ok; i++) {
		if (i == 0) {
			if (snprintf(path, sizeof(path), "%s/config.json", dir) >= (int)sizeof(path))
				continue;
		} else {
			slash = strrchr(dir, '/');
			if (!slash || !rn->m.v[META_ID].s ||
			    snprintf(path, sizeof(path), "%.*s/%s/config.json", (int)(slash - dir),
				     dir, rn->val[META_ID]) >= (int)sizeof(path))
				continue;
		}
		if ((doc = slurp(path, &n))) {
			ok = read_bundle(rn, doc, n);
			free(doc);
		}
	}
	return ok;
}

/*
 * conmon's --name / -n: the container's name as podman (and CRI-O) gave
 * it, when the bundle of the same command line was this container's.
 */
static void conmon_name(struct runtime_names *rn, const char *buf, size_t n)
{
	const char *arg;
	size_t i;

	if (rn->m.v[META_NAME].s)
		return;
	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		arg = buf + i;
		if (strncmp(arg, "--name=", 7) == 0)
			set_str(rn, META_NAME, arg + 7);
		else if ((strcmp(arg, "--name") == 0 || strcmp(arg, "-n") == 0) &&
			 i + strlen(arg) + 1 < n)
			set_str(rn, META_NAME, arg + strlen(arg) + 1);
		else
			continue;
		return;
	}
}

/* @pid's command line, NUL-separated, into @buf (@cap bytes, NUL-terminated): its length. */
static size_t cmdline(pid_t pid, char *buf, size_t cap)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		buf[0] = '\0';
		return 0;
	}
	r = read(fd, buf, cap - 1);
	close(fd);
	buf[r > 0 ? r : 0] = '\0';
	return r > 0 ? (size_t)r : 0;
}

/* Process @pid's bundle: its --bundle / -b argument, and its working directory. */
static int try_process(struct runtime_names *rn, pid_t pid)
{
	char path[64], buf[8192], dir[PATH_MAX], full[PATH_MAX];
	size_t n = cmdline(pid, buf, sizeof(buf)), i;
	const char *arg, *val;
	ssize_t r;

	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		arg = buf + i;
		val = NULL;
		if (strncmp(arg, "--bundle=", 9) == 0)
			val = arg + 9;
		else if ((strcmp(arg, "--bundle") == 0 || strcmp(arg, "-b") == 0) &&
			 i + strlen(arg) + 1 < n)
			val = arg + strlen(arg) + 1;
		if (!val || !*val)
			continue;
		if (val[0] != '/') {
			/* relative to the process's working directory */
			snprintf(full, sizeof(full), "/proc/%d/cwd/%s", (int)pid, val);
			val = full;
		}
		if (try_dir(rn, val))
			return 1;
	}
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	r = readlink(path, dir, sizeof(dir) - 1);
	if (r <= 1)
		return 0;
	dir[r] = '\0';
	return try_dir(rn, dir);
}

/* conmon's name, when @pid or an ancestor is conmon (podman's: runc create's parent). */
static void find_conmon(struct runtime_names *rn, pid_t pid, int depth)
{
	char buf[8192], *base;
	size_t n;

	for (; pid > 1 && depth < MAX_ANCESTORS; depth++, pid = proc_ppid(pid)) {
		n = cmdline(pid, buf, sizeof(buf));
		base = strrchr(buf, '/');
		if (strcmp(base ? base + 1 : buf, "conmon") == 0) {
			conmon_name(rn, buf, n);
			return;
		}
	}
}

int runtime_names_from_bundle(struct runtime_names *rn, pid_t pid)
{
	int depth;

	for (depth = 0; pid > 1 && depth < MAX_ANCESTORS; depth++, pid = proc_ppid(pid))
		if (try_process(rn, pid)) {
			find_conmon(rn, pid, depth);
			return 1;
		}
	if ((rn->maker > 1 && try_process(rn, rn->maker)) ||
	    (rn->maker_parent > 1 && try_process(rn, rn->maker_parent))) {
		find_conmon(rn, rn->maker_parent, MAX_ANCESTORS - 1);
		return 1;
	}
	return 0;
}
