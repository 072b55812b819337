// SPDX-License-Identifier: BSD-2-Clause
/* Container, syscall and address names: see names.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "collector/rows/names.h"
#include "syscall_names.h"

#define SHORT_ID 12

static size_t hex_run(const char *s)
{
	size_t n = 0;

	while ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))
		n++;
	return n;
}

/* "<prefix><hex id>[.scope]" → "<short><12 hex>"; 0 if @base is not one. */
static int runtime_name(const char *base, const char *prefix, const char *shortp,
			char *out, size_t n)
{
	size_t pl = strlen(prefix), h;

	if (strncmp(base, prefix, pl) != 0)
		return 0;
	h = hex_run(base + pl);
	if (h < SHORT_ID || (base[pl + h] != '\0' && strcmp(base + pl + h, ".scope") != 0))
		return 0;
	snprintf(out, n, "%s%.*s", shortp, SHORT_ID, base + pl);
	return 1;
}

/* Whether a directory of path[0, @end) is "kubepods" or starts with "kubepods-" or ".". */
static int under_kubepods(const char *path, const char *end)
{
	const char *p = path;

	while (p < end) {
		const char *q = memchr(p, '/', (size_t)(end - p));
		size_t len = q ? (size_t)(q - p) : (size_t)(end - p);

		if (len >= 8 && strncmp(p, "kubepods", 8) == 0 &&
		    (len == 8 || p[8] == '-' || p[8] == '.'))
			return 1;
		p += len + 1;
	}
	return 0;
}

int container_runtime_name(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');
	const char *parent_end = base;
	size_t h;

	base = base ? base + 1 : path;
	if (runtime_name(base, "docker-", "docker-", out, n) ||
	    runtime_name(base, "libpod-", "podman-", out, n) ||
	    runtime_name(base, "cri-containerd-", "containerd-", out, n) ||
	    runtime_name(base, "crio-", "crio-", out, n))
		return 1;
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
		snprintf(out, n, "%s%.*s", under_kubepods(path, parent_end) ? "containerd-" : "docker-",
			 SHORT_ID, base);
		return 1;
	}
	return 0;
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

const char *syscall_name(unsigned int nr)
{
	if (nr >= sizeof(syscall_names_table) / sizeof(syscall_names_table[0]))
		return NULL;
	return syscall_names_table[nr];
}

int syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(syscall_names_table) / sizeof(syscall_names_table[0]); i++)
		if (syscall_names_table[i] && strcmp(syscall_names_table[i], name) == 0)
			return (int)i;
	return -1;
}

size_t sockaddr_format(const void *addr, size_t len, char *out, size_t n)
{
	sa_family_t family;
	char ip[INET6_ADDRSTRLEN];
	int w;

	if (n == 0)
		return 0;
	out[0] = '\0';
	if (len < sizeof(family))
		return 0;
	memcpy(&family, addr, sizeof(family));
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in a;

		memcpy(&a, addr, sizeof(a));
		inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
		w = snprintf(out, n, "%s:%u", ip, ntohs(a.sin_port));
	} else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 a;

		memcpy(&a, addr, sizeof(a));
		inet_ntop(AF_INET6, &a.sin6_addr, ip, sizeof(ip));
		w = snprintf(out, n, "[%s]:%u", ip, ntohs(a.sin6_port));
	} else if (family == AF_UNIX) {
		const char *p = (const char *)addr + offsetof(struct sockaddr_un, sun_path);
		size_t plen = len - offsetof(struct sockaddr_un, sun_path), k, pre;

		if (len <= offsetof(struct sockaddr_un, sun_path)) {
			w = snprintf(out, n, "unix:unnamed");
			return (size_t)w < n ? (size_t)w : n - 1;
		}
		if (p[0] == '\0') { /* abstract: bytes up to len, NULs included */
			if (n < 2) /* room for the NUL only */
				return 0;
			k = plen - 1 < n - 2 ? plen - 1 : n - 2;
			out[0] = '@';
			memcpy(out + 1, p + 1, k);
			out[k + 1] = '\0';
			return k + 1;
		}
		/*
		 * A path: up to its NUL or len. A relative one gets "./" in
		 * front unless it starts with '.': it names the same file, and
		 * the first byte then tells every rendering apart ('/' or '.'
		 * a path, '@' an abstract name, a digit IPv4, '[' IPv6, 'u'
		 * unix:unnamed, 'f' family=N). Without it a socket file bound
		 * as "@x" (or "unix:unnamed", "10.0.0.1:80") read back as
		 * something else.
		 */
		pre = p[0] != '/' && p[0] != '.' ? 2 : 0;
		if (pre > n - 1)
			pre = n - 1;
		memcpy(out, "./", pre);
		for (k = 0; k < plen && pre + k < n - 1 && p[k]; k++)
			out[pre + k] = p[k];
		out[pre + k] = '\0';
		return pre + k;
	} else {
		w = snprintf(out, n, "family=%u", family);
	}
	if (w < 0)
		return 0;
	return (size_t)w < n ? (size_t)w : n - 1;
}

size_t pipe_format(bool fifo, unsigned long long ino, char *out, size_t n)
{
	int w;

	if (n == 0)
		return 0;
	w = snprintf(out, n, "%s:[%llu]", fifo ? "fifo" : "pipe", ino);
	if (w < 0) {
		out[0] = '\0';
		return 0;
	}
	return (size_t)w < n ? (size_t)w : n - 1;
}

bool name_of_dead_collector(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return false;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	if (*end || errno || pid <= 0 || pid > INT_MAX)
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}
