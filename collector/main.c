// SPDX-License-Identifier: BSD-2-Clause
/*
 * collector: trace every syscall of every process of a container, from its
 * first instruction, and write one TSV row per event (docs/tsv-format.md).
 *
 *   collector [options]                 watch: every container that starts
 *   collector [options] -- COMMAND...   spawn: run COMMAND as a container
 *
 * The rooms behind these steps are listed in collector.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collector/cgroup.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/marks.h"
#include "collector/progress.h"

static void on_signal(int sig)
{
	(void)sig;
	collector_exiting = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/*
 * What the options name on the host: --user's ids, the binaries and
 * symbols of --mark and --start. 0, or -1 after a message (exit 2: the
 * user's to fix).
 */
static int resolve_options(struct options *o)
{
	char err[4096];

	if (o->user) {
		struct passwd *pw = getpwnam(o->user);

		if (!pw) {
			fprintf(stderr, "collector: --user: no user '%s'\nTry 'collector --help'.\n",
				o->user);
			return -1;
		}
		o->uid = pw->pw_uid;
		o->gid = pw->pw_gid;
	}
	if (marks_count(o->marks) && marks_resolve(o->marks, err, sizeof(err)) < 0) {
		fprintf(stderr, "collector: %s\n", err);
		return -1;
	}
	return 0;
}

/* The output file, or stdout; 0, or -1 after a message. */
static int open_output(struct collector *c, int *fd)
{
	*fd = STDOUT_FILENO;
	if (c->opt.output && strcmp(c->opt.output, "-") != 0) {
		*fd = open(c->opt.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (*fd < 0) {
			fprintf(stderr, "collector: cannot open %s: %s\n", c->opt.output, strerror(errno));
			return -1;
		}
	} else {
		c->stdout_is_tsv = 1;
	}
	c->out = output__new(*fd, 1 << 20);
	if (!c->out) {
		fprintf(stderr, "collector: cannot set up the output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The trailer, what was lost (counted, never hidden) and the last flush; exit status. */
static int finish_output(struct collector *c, int ret)
{
	unsigned long long lost = c->be->ops->lost(c->be);

	loop_show_status(c, 1);
	output_trailer(c->out, lost);
	if (output_flush(c->out) < 0) {
		if (c->out->err == EPIPE) {
			fprintf(stderr, "collector: the reader closed the output; stopped\n");
			ret = 0;
		} else {
			fprintf(stderr, "collector: cannot write %s: %s\n",
				c->opt.output ? c->opt.output : "stdout", strerror(c->out->err));
			ret = 1;
		}
	}
	if (lost)
		fprintf(stderr, "collector: lost %llu events (ring buffer full); try --ringbuf-mb\n", lost);
	if (c->opt.verbose)
		fprintf(stderr, "collector: %llu events of no container followed (stray)\n", c->stray);
	return ret;
}

int main(int argc, char **argv)
{
	struct collector c = { 0 };
	struct backend_config cfg = { 0 };
	struct sigaction sa = { 0 };
	int fd = -1, ret = 1, have_btf;

	/* 1. options and the host */
	c.started_ns = mono_ns();
	switch (options_parse(argc, argv, &c.opt)) {
	case OPTIONS_OK:
		break;
	case OPTIONS_DONE:
		ret = 0;
		goto cleanup;
	case OPTIONS_USAGE:
		ret = 2;
		goto cleanup;
	}
	if (resolve_options(&c.opt) < 0) {
		ret = 2;
		goto cleanup;
	}
	libbpf_set_print(c.opt.verbose ? libbpf_print : libbpf_quiet);
	if (setup_check_capabilities() < 0)
		goto cleanup;
	have_btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	/*
	 * The modern object attaches uprobes through the uprobe PMU (4.17+);
	 * the legacy and compat ones through tracefs uprobe_events, which they
	 * check themselves (4.15 has no PMU).
	 */
	if (marks_count(c.opt.marks) && have_btf && strcmp(c.opt.object, "legacy") &&
	    strcmp(c.opt.object, "compat") &&
	    !marks_uprobes_supported(NULL)) {
		fprintf(stderr, "collector: this kernel has no uprobes (/sys/bus/event_source/devices/uprobe "
			"is missing: CONFIG_UPROBE_EVENTS): --mark and --start need them\n");
		goto cleanup;
	}
	if (cgroup2_mount(c.cg2, sizeof(c.cg2)) < 0)
		c.cg2[0] = '\0';
	if (setup_mode(&c) < 0)
		goto cleanup;

	/* 2. configure, load and attach the BPF programs */
	if (setup_config(&c, &cfg) < 0) {
		ret = 2;
		goto cleanup;
	}
	if (setup_open_backend(&c, &cfg, have_btf) < 0) {
		if (c.usage_error)
			ret = 2;
		goto cleanup;
	}
	/* 3. the marks: uprobes and USDT probes in the binaries they name */
	if (marks_attach(c.be, c.opt.marks) < 0)
		goto cleanup;
	loop_status_setup(&c);

	/* 4. output */
	if (open_output(&c, &fd) < 0)
		goto cleanup;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rows_write_header(&c);
	/* --sched host: every task outside the containers, from now on */
	if (c.opt.sched == SCHED_HOST && c.be->ops->host_rows)
		c.be->ops->host_rows(c.be, true);
	else if (c.opt.sched == SCHED_HOST)
		fprintf(stderr, "collector: --sched host: the %s BPF object writes no host rows "
			"(# host_rows=off); scheduler rows as --sched on\n", c.be->ops->name);

	/* 5. trace */
	if (c.opt.command)
		ret = c.opt.cgroup_glob ? client_run(&c) : spawn_run(&c);
	else
		ret = c.opt.pid > 0 ? watch_attach(&c) : watch_run(&c);

	/* 6. the trailer: what was lost is counted, never hidden */
	ret = finish_output(&c, ret);

cleanup:
	output__free(c.out);
	progress__free(c.progress);
	marks__free(c.opt.marks);	/* before the backend: USDT links use its object */
	if (c.be)
		c.be->ops->destroy(c.be);
	containers_free(&c.containers);
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	return ret;
}
