// SPDX-License-Identifier: BSD-2-Clause
/*
 * bootsvc: a sample service with milestones to trace, for --mark and
 * --start (built with symbols, like every sample).
 *
 *   bootsvc [--config FILE]... [--ticks K] [--ticks-only] [--port N] [--warmup-ms N]
 *   bootsvc --launch [--cgroup DIR] -- COMMAND [ARG...]
 *
 * As a service: reads its config files, then fires the USDT probe
 * bootsvc:config_loaded (argument: how many files it read); calls
 * bootsvc_tick() exactly K times (--ticks K); forks a worker that listens
 * on 127.0.0.1 (port 0: any free one) and reports back through a pipe;
 * then calls bootsvc_ready() and serves "ok\n" until SIGTERM. With
 * --ticks-only it exits after the ticks.
 *
 * As a launcher (a tiny container runtime, for --start): calls
 * bootsvc_launch() and fires bootsvc:launch, makes the cgroup v2 directory
 * DIR if it is not there, then forks; the child joins DIR (writes itself to
 * DIR/cgroup.procs) and execs
 * COMMAND; the launcher waits and exits with its status.
 *
 *   collector --mark usdt:bootsvc:bootsvc:config_loaded=config \
 *             --mark uprobe:bootsvc:bootsvc_ready=ready --until mark:ready -- bootsvc
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
/* Written by the milestone functions: their calls have an effect to keep. */
volatile unsigned long bootsvc_ticks;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The uprobe targets: global, never inlined, and with a side effect the
 * compiler must keep (the empty asm), so each call in the source is one
 * call in the binary.
 */
__attribute__((noinline)) void bootsvc_tick(unsigned long i)
{
	bootsvc_ticks = i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void bootsvc_ready(int port)
{
	bootsvc_ticks += (unsigned long)port & 0;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void bootsvc_launch(const char *command)
{
	(void)command;
	__asm__ volatile("" ::: "memory");
}

static int read_config(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
		;
}

/* The worker: listen, tell the parent the port, serve. */
static int worker(int port, long warmup_ms, int report)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	socklen_t len = sizeof(a);
	int s, one = 1;

	sleep_ms(warmup_ms);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0) {
		fprintf(stderr, "bootsvc: cannot listen: %s\n", strerror(errno));
		return 1;
	}
	port = ntohs(a.sin_port);
	if (write(report, &port, sizeof(port)) != (ssize_t)sizeof(port))
		return 1;
	close(report);
	while (!stop) {
		int c = accept(s, NULL, NULL);

		if (c < 0)
			continue;
		if (write(c, "ok\n", 3) < 0) { /* the client left */ }
		close(c);
	}
	return 0;
}

static int launch(const char *cgdir, char **command)
{
	char path[4096], self[32];
	pid_t pid;
	int st, fd;

	bootsvc_launch(command[0]);
	DTRACE_PROBE1(bootsvc, launch, command[0]);
	/* as a runtime does: the container's cgroup is made after its first probe */
	if (cgdir && mkdir(cgdir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "bootsvc: cannot create %s: %s\n", cgdir, strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("bootsvc: fork");
		return 1;
	}
	if (pid == 0) {
		if (cgdir) {
			snprintf(path, sizeof(path), "%s/cgroup.procs", cgdir);
			snprintf(self, sizeof(self), "%d", getpid());
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, self, strlen(self)) < 0) {
				fprintf(stderr, "bootsvc: cannot join %s: %s\n", cgdir, strerror(errno));
				_exit(127);
			}
			close(fd);
		}
		execvp(command[0], command);
		fprintf(stderr, "bootsvc: %s: %s\n", command[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void usage(void)
{
	fprintf(stderr, "usage: bootsvc [--config <file>]... [--ticks <k>] [--ticks-only] "
		"[--port <n>] [--warmup-ms <n>]\n"
		"       bootsvc --launch [--cgroup <dir>] -- <command> [<arg>...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *configs[16] = { "/etc/hostname", "/etc/hosts" }, *cgdir = NULL;
	int nconfigs = 2, defaults = 1, port = 0, loaded = 0, ticks_only = 0, i, p[2], st;
	unsigned long ticks = 0, t;
	long warmup_ms = 0;
	struct sigaction sa = { 0 };
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "--launch") == 0) {
		for (i = 2; i < argc; i++) {
			if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc)
				cgdir = argv[++i];
			else if (strcmp(argv[i], "--") == 0 && i + 1 < argc)
				return launch(cgdir, argv + i + 1);
			else
				usage();
		}
		usage();
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			if (defaults)
				nconfigs = defaults = 0;
			if (nconfigs < 16)
				configs[nconfigs++] = argv[++i];
		} else if (strcmp(argv[i], "--ticks") == 0 && i + 1 < argc) {
			ticks = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--ticks-only") == 0) {
			ticks_only = 1;
		} else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
			port = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--warmup-ms") == 0 && i + 1 < argc) {
			warmup_ms = atol(argv[++i]);
		} else {
			usage();
		}
	}
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	for (i = 0; i < nconfigs; i++)
		loaded += read_config(configs[i]);
	DTRACE_PROBE1(bootsvc, config_loaded, loaded);
	for (t = 1; t <= ticks; t++)
		bootsvc_tick(t);
	if (ticks_only)
		return 0;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(p[0]);
		_exit(worker(port, warmup_ms, p[1]));
	}
	close(p[1]);
	if (read(p[0], &port, sizeof(port)) != (ssize_t)sizeof(port)) {
		fprintf(stderr, "bootsvc: the worker did not listen\n");
		kill(pid, SIGTERM);
		waitpid(pid, &st, 0);
		return 1;
	}
	close(p[0]);
	bootsvc_ready(port);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return 1;
		if (stop)
			kill(pid, SIGTERM);
	}
	return stop ? 0 : WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
