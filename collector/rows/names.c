// SPDX-License-Identifier: BSD-2-Clause
/* Syscall and address names: see names.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "collector/rows/names.h"
#include "syscall_names.h"

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
