// SPDX-License-Identifier: BSD-2-Clause
/*
 * slowrunc [RUNC-ARG...]: an OCI runtime that is runc, made slow where the
 * tests can see it (dockerd --add-runtime slowrunc=PATH, podman --runtime
 * PATH). Called for `create` (an argument "create": runc's subcommand; an
 * id or a path is never that word), it first sleeps SLEEP_MS in
 * nanosleep(2) (off the CPU, woken by a timer), then burns BURN_MS of its
 * own CPU time (on the CPU: a preemption adds runnable time, not running),
 * then execs runc with its arguments. Every other call execs runc at once.
 * So the critical path of a boot through it holds SLEEP_MS blocked and
 * BURN_MS running in its process. The times are the defaults below, or
 * SLOWRUNC_SLEEP_MS and SLOWRUNC_BURN_MS (a daemon passes its environment
 * to the shims, which pass theirs to the runtime). runc is looked up in
 * SLOWRUNC_RUNC, then PATH, then /usr/sbin and /usr/bin.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_MS 150
#define BURN_MS 100

static long env_ms(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : def;
}

static long long ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Spin until this thread has had @ms of CPU time. */
static void burn_ms(long ms)
{
	long long end = ns_of(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000LL;
	volatile unsigned long x = 0;

	while (ns_of(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

int main(int argc, char **argv)
{
	static const char *const paths[] = { "/usr/sbin/runc", "/usr/bin/runc" };
	const char *runc = getenv("SLOWRUNC_RUNC");
	int i;

	(void)argc;
	for (i = 1; argv[i]; i++)
		if (strcmp(argv[i], "create") == 0) {
			sleep_ms(env_ms("SLOWRUNC_SLEEP_MS", SLEEP_MS));
			burn_ms(env_ms("SLOWRUNC_BURN_MS", BURN_MS));
			break;
		}
	argv[0] = (char *)"runc";
	if (runc && *runc)
		execv(runc, argv);
	else
		execvp("runc", argv);
	for (i = 0; i < 2; i++)
		execv(paths[i], argv);
	fprintf(stderr, "slowrunc: cannot exec runc: %s\n", strerror(errno));
	return 127;
}
