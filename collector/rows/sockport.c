// SPDX-License-Identifier: BSD-2-Clause
/* A listening TCP socket's port, from /proc: see sockport.h. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/rows/sockport.h"

/* The next blank-separated field after *@p: its start in *@f, its length; *@p moves past it. */
static size_t next_field(const char **p, const char **f)
{
	const char *s = *p;

	while (*s == ' ' || *s == '\t')
		s++;
	*f = s;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n')
		s++;
	*p = s;
	return (size_t)(s - *f);
}

/* Exactly @n (<= 8) hex digits at @s into *@v: 0, or -EINVAL. */
static int hex_exact(const char *s, size_t n, unsigned int *v)
{
	unsigned int x = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else
			return -EINVAL;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

/* Decimal digits only, @n of them at @s, into *@v without overflow: 0, or -EINVAL. */
static int dec_exact(const char *s, size_t n, unsigned long long *v)
{
	unsigned long long x = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (~0ULL - 9) / 10)
			return -EINVAL;
		x = x * 10 + (unsigned long long)(s[i] - '0');
	}
	*v = x;
	return 0;
}

/*
 * An address field, "%08X:%04X" (IPv4) or "%08X%08X%08X%08X:%04X"
 * (IPv6): each group is a 32-bit word of the address in network order as
 * the host loads it (net/ipv4/tcp_ipv4.c, net/ipv6/tcp_ipv6.c), so its
 * value stored back as the host stores it is those bytes; the port is
 * printed in host order.
 */
static int parse_addr(const char *s, size_t n, int family, struct sockaddr_storage *out)
{
	size_t words = family == AF_INET ? 1 : 4, i;
	unsigned int w, port;
	unsigned char bytes[16];

	if (n != words * 8 + 5 || s[words * 8] != ':' || hex_exact(s + words * 8 + 1, 4, &port))
		return -EINVAL;
	for (i = 0; i < words; i++) {
		if (hex_exact(s + i * 8, 8, &w))
			return -EINVAL;
		memcpy(bytes + i * 4, &w, 4);
	}
	memset(out, 0, sizeof(*out));
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)out;

		a->sin_family = AF_INET;
		a->sin_port = htons((unsigned short)port);
		memcpy(&a->sin_addr, bytes, 4);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)out;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((unsigned short)port);
		memcpy(&a->sin6_addr, bytes, 16);
	}
	return 0;
}

int sockport_parse_line(const char *line, int family, struct sockaddr_storage *out,
			unsigned int *state, unsigned long long *ino)
{
	struct sockaddr_storage a, remote;
	unsigned long long slot, inode;
	const char *p = line, *f;
	unsigned int st;
	size_t n, i;

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	/* "%4d:": the slot */
	n = next_field(&p, &f);
	if (n < 2 || f[n - 1] != ':' || dec_exact(f, n - 1, &slot))
		return -EINVAL;
	n = next_field(&p, &f);
	if (parse_addr(f, n, family, &a))
		return -EINVAL;
	/* the remote address, only checked */
	n = next_field(&p, &f);
	if (parse_addr(f, n, family, &remote))
		return -EINVAL;
	n = next_field(&p, &f);
	if (n != 2 || hex_exact(f, 2, &st))
		return -EINVAL;
	/* tx_queue:rx_queue tr:tm->when retrnsmt uid timeout, then the inode */
	for (i = 0; i < 5; i++)
		if (!next_field(&p, &f))
			return -EINVAL;
	n = next_field(&p, &f);
	if (dec_exact(f, n, &inode))
		return -EINVAL;
	*out = a;
	*state = st;
	*ino = inode;
	return 0;
}

int sockport_socket_ino(const char *link, unsigned long long *ino)
{
	size_t n = strlen(link);

	if (n < 10 || strncmp(link, "socket:[", 8) || link[n - 1] != ']' ||
	    dec_exact(link + 8, n - 9, ino))
		return -ENOTSOCK;
	return 0;
}

/* Listener @ino in /proc/@pid/task/@tid/net/@file (@family's): its length in @out, or -errno. */
static int find_listener(pid_t pid, pid_t tid, const char *file, int family,
			 unsigned long long ino, struct sockaddr_storage *out)
{
	struct sockaddr_storage a;
	unsigned long long i;
	unsigned int st;
	char path[96], *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/net/%s", (int)pid, (int)tid, file);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ? -ENOENT : -errno;
	/* listeners come first (the listening hash, then the established) */
	while (getline(&line, &cap, f) > 0) {
		if (sockport_parse_line(line, family, &a, &st, &i) == 0 && i == ino &&
		    st == SOCKPORT_LISTEN) {
			*out = a;
			ret = family == AF_INET ? (int)sizeof(struct sockaddr_in) :
						  (int)sizeof(struct sockaddr_in6);
			break;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

int sockport_lookup(pid_t pid, pid_t tid, int fd, int family, struct sockaddr_storage *out)
{
	char path[96], link[64];
	unsigned long long ino;
	ssize_t n;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%d", (int)pid, (int)tid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? -ENOENT : -errno;
	link[n] = '\0';
	if (sockport_socket_ino(link, &ino))
		return -ENOENT;
	if (family == AF_INET || family == AF_UNSPEC)
		ret = find_listener(pid, tid, "tcp", AF_INET, ino, out);
	/* a kernel without IPv6 has no tcp6: -ENOENT */
	if (ret == -ENOENT && (family == AF_INET6 || family == AF_UNSPEC))
		ret = find_listener(pid, tid, "tcp6", AF_INET6, ino, out);
	return ret;
}

size_t sockport_listen_addr(pid_t pid, pid_t tid, int fd, const void *bound, size_t len,
			    struct sockaddr_storage *out)
{
	struct sockaddr_storage found;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	sa_family_t family = AF_UNSPEC;

	if (len) {
		if (len < sizeof(family))
			return 0;
		memcpy(&family, bound, sizeof(family));
		if (family == AF_INET && len >= sizeof(in)) {
			memcpy(&in, bound, sizeof(in));
			if (in.sin_port)
				return 0;
		} else if (family == AF_INET6 && len >= sizeof(in6)) {
			memcpy(&in6, bound, sizeof(in6));
			if (in6.sin6_port)
				return 0;
		} else {
			return 0;
		}
	}
	if (sockport_lookup(pid, tid, fd, family, &found) <= 0)
		return 0;
	if (!len) {
		memcpy(out, &found, sizeof(found));
		return found.ss_family == AF_INET ? sizeof(in) : sizeof(in6);
	}
	/* the address bind() was given (its scope id too), with the port found */
	memset(out, 0, sizeof(*out));
	if (family == AF_INET) {
		const struct sockaddr_in *f = (const struct sockaddr_in *)&found;

		if (f->sin_addr.s_addr != in.sin_addr.s_addr)
			return 0;
		in.sin_port = f->sin_port;
		memcpy(out, &in, sizeof(in));
		return sizeof(in);
	} else {
		const struct sockaddr_in6 *f = (const struct sockaddr_in6 *)&found;

		if (memcmp(&f->sin6_addr, &in6.sin6_addr, sizeof(in6.sin6_addr)))
			return 0;
		in6.sin6_port = f->sin6_port;
		memcpy(out, &in6, sizeof(in6));
		return sizeof(in6);
	}
}
