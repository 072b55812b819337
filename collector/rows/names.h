/* SPDX-License-Identifier: BSD-2-Clause */
/* Names users know: syscalls from numbers, addresses and pipes as text. */
#ifndef COLLECTOR_NAMES_H
#define COLLECTOR_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/*
 * syscall_name - the name of x86-64 syscall @nr from the build machine's
 * kernel headers, or NULL for a number the table does not know.
 */
const char *syscall_name(unsigned int nr);
/* syscall_nr - the number of syscall @name, or -1. */
int syscall_nr(const char *name);

/*
 * sockaddr_format - @len bytes of a struct sockaddr as text in @out (@n
 * bytes): "127.0.0.1:80", "[::1]:80", a unix path ("./" in front of a
 * relative one that does not start with '.'), "@name" for an abstract unix
 * socket (its len - 3 bytes as they are, NULs included: escape before
 * writing), "unix:unnamed", "family=N" otherwise. The first byte tells
 * which.
 * Returns the length written (not NUL-terminated beyond it is not
 * guaranteed: it is NUL-terminated when room allows).
 */
size_t sockaddr_format(const void *addr, size_t len, char *out, size_t n);

/*
 * pipe_format - the name of a pipe (@fifo false) or a named FIFO (@fifo
 * true) by its inode number @ino, in @out (@n bytes, NUL-terminated,
 * truncated if needed): "pipe:[INO]" as readlink(2) of /proc/PID/fd/N
 * shows a pipe, "fifo:[INO]" for a FIFO (its number is its own file
 * system's, which a pipe's could equal). Returns the length written.
 */
size_t pipe_format(bool fifo, unsigned long long ino, char *out, size_t n);

#endif /* COLLECTOR_NAMES_H */
