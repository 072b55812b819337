// SPDX-License-Identifier: BSD-2-Clause
/*
 * webapp: a small "container" that boots like a real service. The parent
 * reads its configuration, forks a worker, and the worker (a child: what
 * the original bpftrace script missed) warms up, then listens on loopback.
 *
 *   webapp [--port N] [--warmup-ms N] [--config FILE]...
 *
 * It serves "ok\n" to every connection until SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void read_config(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void warm_up(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int worker(int port, long warmup_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s, one = 1;

	warm_up(warmup_ms);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 16) < 0) {
		fprintf(stderr, "webapp: cannot listen: %s\n", strerror(errno));
		return 1;
	}
	while (!stop) {
		int c = accept(s, NULL, NULL);

		if (c < 0)
			continue;
		if (write(c, "ok\n", 3) < 0) { /* the client left */ }
		close(c);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *configs[16] = { "/etc/hostname", "/etc/hosts", "/etc/passwd" };
	int nconfigs = 3, port = 0, i, st;
	long warmup_ms = 20;
	struct sigaction sa = { .sa_handler = on_term };
	pid_t pid;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			port = atoi(argv[++i]);
		else if (strcmp(argv[i], "--warmup-ms") == 0 && i + 1 < argc)
			warmup_ms = atol(argv[++i]);
		else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc && nconfigs < 16)
			configs[nconfigs++] = argv[++i];
		else {
			fprintf(stderr, "usage: webapp [--port N] [--warmup-ms N] [--config FILE]...\n");
			return 2;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < nconfigs; i++)
		read_config(configs[i]);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		return worker(port, warmup_ms);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		if (stop)
			kill(pid, SIGTERM);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
