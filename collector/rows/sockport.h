/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The port the kernel chose for a listening TCP socket, found from user
 * space: for the legacy and compat objects, which remember the address
 * bind() was given (port 0 when the kernel was to choose) and cannot read
 * the socket (docs/legacy-object.md). Through /proc: the fd's link names
 * the socket's inode, and /proc/PID/net/tcp and tcp6 (the process's own
 * network namespace) give that inode's local address.
 */
#ifndef COLLECTOR_SOCKPORT_H
#define COLLECTOR_SOCKPORT_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The state of a listening socket in /proc/net/tcp (TCP_LISTEN). */
#define SOCKPORT_LISTEN 10

/*
 * sockport_parse_line - one line of /proc/net/tcp (@family AF_INET) or
 * /proc/net/tcp6 (AF_INET6): the socket's local address and port into
 * @out (a struct sockaddr_in or sockaddr_in6), its state (SOCKPORT_LISTEN
 * for a listener) into *@state, its inode into *@ino. The addresses are
 * in the host's byte order, as the kernel prints them (x86-64 only, as
 * the project). 0, or -EINVAL: the header line, another family's line, or
 * anything malformed.
 */
int sockport_parse_line(const char *line, int family, struct sockaddr_storage *out,
			unsigned int *state, unsigned long long *ino);

/*
 * sockport_socket_ino - the inode number in the text of a socket fd's
 * link, "socket:[INO]": 0 and *@ino, or -ENOTSOCK.
 */
int sockport_socket_ino(const char *link, unsigned long long *ino);

/*
 * sockport_lookup - the local address of the listening TCP socket open
 * as @fd in thread @tid of process @pid (pids as the collector's /proc
 * sees them): @fd's link in /proc/@pid/task/@tid/fd names its inode,
 * which is a listener in that thread's net/tcp (@family AF_INET), net/tcp6
 * (AF_INET6) or either (AF_UNSPEC). Into @out: its length, or -ENOENT
 * (the process, the fd or a listener with that inode is gone, or @fd is
 * another kind of file or socket), or -errno.
 */
int sockport_lookup(pid_t pid, pid_t tid, int fd, int family, struct sockaddr_storage *out);

/*
 * sockport_listen_addr - the address to show for a successful listen() on
 * @fd of @pid/@tid, which bind() gave as @bound (@len bytes, 0: none
 * known). Nothing to find (0): a bound address with a port, or not IPv4
 * or IPv6. Else the listener's address from sockport_lookup() into @out,
 * and its length; with a bound address known, @bound with the port found,
 * provided the listener has its family and address (else @fd holds
 * another socket now, and 0). 0 too when the lookup fails: the caller
 * keeps port 0, or no address.
 */
size_t sockport_listen_addr(pid_t pid, pid_t tid, int fd, const void *bound, size_t len,
			    struct sockaddr_storage *out);

#endif /* COLLECTOR_SOCKPORT_H */
