// SPDX-License-Identifier: BSD-2-Clause
/*
 * listen_once [inet|inet6|inet-auto|inet6-auto|unix] [TAG] [PORT-FILE [hold]]:
 * a tiny container init for load tests: a few syscalls (getppid x3, an
 * openat of /etc/hostname), then a socket that listens — TCP bound to
 * 127.0.0.1:0 (default) or [::1]:0, TCP not bound at all (inet-auto,
 * inet6-auto: listen() binds the wildcard address and a port, autobind),
 * or an abstract unix socket "@boottrace-TAG-PID" — closed at once, and
 * exit 0. With PORT-FILE, the port the kernel chose is written there;
 * with "hold" too, the socket stays open until SIGTERM or SIGINT, then
 * exit 0 (either waits until the file is written: a collector's --until
 * listen may stop it as soon as it listens). Exit 1 with a message when a
 * call fails.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "inet";
	const char *tag = argc > 2 ? argv[2] : "x";
	int hold = argc > 4 && strcmp(argv[4], "hold") == 0;
	sigset_t stop;
	int fd, i;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	if (hold && sigprocmask(SIG_BLOCK, &stop, NULL) < 0) {
		perror("listen_once: sigprocmask");
		return 1;
	}

	for (i = 0; i < 3; i++)
		syscall(SYS_getppid);
	fd = open("/etc/hostname", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	if (strcmp(kind, "unix") == 0) {
		struct sockaddr_un un = { .sun_family = AF_UNIX };
		int n = snprintf(un.sun_path + 1, sizeof(un.sun_path) - 1, "boottrace-%s-%d",
				 tag, (int)getpid());

		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&un,
				   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0) {
			perror("listen_once: unix socket");
			return 1;
		}
	} else if (strcmp(kind, "inet-auto") == 0 || strcmp(kind, "inet6-auto") == 0) {
		fd = socket(kind[4] == '6' ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			perror("listen_once: tcp socket");
			return 1;
		}
	} else if (strcmp(kind, "inet6") == 0) {
		struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };

		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&in6, sizeof(in6)) < 0) {
			perror("listen_once: tcp6 socket");
			return 1;
		}
	} else {
		struct sockaddr_in in = { .sin_family = AF_INET };

		in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&in, sizeof(in)) < 0) {
			perror("listen_once: tcp socket");
			return 1;
		}
	}
	if (listen(fd, 1) < 0) {
		perror("listen_once: listen");
		return 1;
	}
	if (argc > 3 && strcmp(kind, "unix") != 0) {
		struct sockaddr_in6 a;	/* large enough for both */
		socklen_t n = sizeof(a);
		FILE *f = fopen(argv[3], "w");

		/* sin6_port and sin_port are at the same offset */
		if (!f || getsockname(fd, (struct sockaddr *)&a, &n) < 0 ||
		    fprintf(f, "%u\n", ntohs(a.sin6_port)) < 0 || fclose(f) != 0) {
			perror("listen_once: port file");
			return 1;
		}
	}
	if (hold && (errno = sigwait(&stop, &i)) != 0) {
		perror("listen_once: sigwait");
		return 1;
	}
	close(fd);
	return 0;
}
