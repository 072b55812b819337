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
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collector/kernel/cgroup.h"
#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/serve/exporter.h"
#include "collector/kernel/marks.h"
#include "collector/kernel/progcost.h"
#include "collector/kernel/spans.h"
#include "collector/rows/spanrows.h"
#include "collector/run/progress.h"
#include "collector/run/rotate.h"
#include "collector/profile/offstacks.h"
#include "collector/profile/samples.h"

static void on_signal(int sig)
{
	collector_exiting = sig;
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

static void on_sigpipe(int sig)
{
	(void)sig;	/* the write that raised it returns EPIPE, which is dealt with */
}

/*
 * --user's groups, as initgroups(3) would set them (getgrouplist: its
 * primary group and every group that lists it), into o->groups. Looked up
 * here, once: initgroups() in the container's first process read
 * /etc/group, asked nscd and loaded libnss_systemd there, about 340 rows
 * and 2 ms of the container's that no runtime makes. 0, or -1 after a
 * message.
 */
static int user_groups(struct options *o)
{
	int n = 32;
	gid_t *g = NULL, *more;

	for (;;) {
		more = realloc(g, (size_t)n * sizeof(*g));
		if (!more) {
			free(g);
			fprintf(stderr, "collector: out of memory\n");
			return -1;
		}
		g = more;
		if (getgrouplist(o->user, o->gid, g, &n) >= 0)
			break;
		n *= 2;	/* glibc said how many in n; other libcs may not */
	}
	o->groups = g;
	o->ngroups = n;
	return 0;
}

/*
 * The file execvp(3) would run for @cmd, found once here: a search of
 * PATH in the container's first process would be rows of the container
 * (an execve failing with ENOENT per directory before the right one). A
 * name with a '/' as it is, else the first regular file with an x bit in
 * PATH (unset: glibc's /bin:/usr/bin; an empty entry is the working
 * directory, as for execvp). NULL when there is none (or no memory): the
 * child then calls execvp itself, which fails as it always did; it also
 * does when the exec of this path fails (a file --user may not run, a
 * script without #!), so what runs is always what execvp would run.
 */
static char *command_path(const char *cmd)
{
	const char *path = getenv("PATH"), *p;
	char cand[PATH_MAX];
	struct stat st;
	size_t len;
	int n;

	if (!*cmd)
		return NULL;
	if (strchr(cmd, '/'))
		return strdup(cmd);
	for (p = path ? path : "/bin:/usr/bin";; p += len + 1) {
		len = strcspn(p, ":");
		n = snprintf(cand, sizeof(cand), "%.*s%s%s", (int)len, p, len ? "/" : "", cmd);
		if (n < (int)sizeof(cand) && stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return strdup(cand);
		if (!p[len])
			return NULL;
	}
}

/*
 * What the options name on the host: --user's ids and groups, the
 * command's file, the binaries and symbols of --mark and --start. All
 * before any fork: the container's first process only sets what was
 * found. 0, or -1 after a message (exit 2: the user's to fix).
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
		if (user_groups(o) < 0)
			return -1;
	}
	if (o->command)
		o->exec_path = command_path(o->command[0]);
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
	if (c->stdout_is_tsv && c->opt.command) {
		/*
		 * The TSV on stdout and a command to run: the TSV goes on from
		 * a copy, and fd 1 becomes stderr here, so that the command
		 * (and everything the collector forks) writes its stdout there
		 * with no dup2 of its own before its exec.
		 */
		*fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (*fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			fprintf(stderr, "collector: cannot move the command's stdout to stderr: %s\n",
				strerror(errno));
			return -1;
		}
	}
	c->out = output__new(*fd, 1 << 20);
	if (!c->out) {
		fprintf(stderr, "collector: cannot set up the output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The kernel's count of runs of our programs it skipped (progmiss.h): each
 * may be a row, or a wake-up's waker, missing from the file; and the
 * off-CPU intervals it gave no end to (backend.h, unended).
 */
static void report_missed(struct collector *c)
{
	unsigned long long unended = c->be->ops->unended ? c->be->ops->unended(c->be) : 0;
	struct progmiss m;

	c->be->ops->missed(c->be, &m);
	if (m.total)
		fprintf(stderr, "collector: the kernel skipped %llu run%s of the BPF programs "
			"(%s: %llu), as another BPF program ran on that CPU: what %s would "
			"have written is not in the output\n", m.total, m.total == 1 ? "" : "s",
			m.worst, m.worst_n, m.total == 1 ? "it" : "they");
	if (unended)
		fprintf(stderr, "collector: the kernel traced no switch-in for %llu off-CPU "
			"interval%s of traced tasks, whose end%s unknown: %s not in the "
			"output\n", unended, unended == 1 ? "" : "s", unended == 1 ? " is" : "s are",
			unended == 1 ? "its sched row is" : "their sched rows are");
}

/* The trailer, what was lost (counted, never hidden) and the last flush; exit status. */
static int finish_output(struct collector *c, int ret)
{
	unsigned long long lost = c->be->ops->lost(c->be), inames, part;

	loop_show_status(c, 1);
	jitrows_finish(c);	/* the perf maps of the processes still running */
	output_trailer(c->out, lost - c->lost_base);	/* this file's */
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
	report_missed(c);
	if (c->opt.verbose)
		fprintf(stderr, "collector: %llu events of no container followed (stray)\n", c->stray);
	samples_iname_counts(c->samples, &inames, &part);
	if (part || (c->opt.verbose && inames))
		fprintf(stderr, "collector: --profile: %llu interpreter code objects named by the "
			"sampling program, %llu of them in part (read again from the process)\n",
			inames, part);
	if (c->opt.verbose && unwind_count(samples_unwind(c->samples)))
		fprintf(stderr, "collector: --profile: %llu samples unwound by CFI, %llu ns of CPU each\n",
			unwind_count(samples_unwind(c->samples)),
			unwind_ns(samples_unwind(c->samples)) / unwind_count(samples_unwind(c->samples)));
	return ret;
}

/*
 * How --profile's user stacks are walked with the object loaded: the
 * option's way, but frame pointers where the object copies no user stack
 * (the compat object; the modern one off x86-64), said when dwarf was
 * asked for. c->opt.profile_unwind becomes what is done (the header's
 * profile_unwind).
 */
static enum unwind_mode profile_unwind_mode(struct collector *c)
{
	if (c->opt.profile_unwind != PROFILE_UNWIND_FP && !c->be->ops->ustack_copy) {
		if (c->opt.profile_unwind == PROFILE_UNWIND_DWARF)
			fprintf(stderr, "collector: --profile-unwind=dwarf: the %s BPF object copies no "
				"user stack; frame pointers (# profile_unwind=fp)\n", c->be->ops->name);
		c->opt.profile_unwind = PROFILE_UNWIND_FP;
	}
	switch (c->opt.profile_unwind) {
	case PROFILE_UNWIND_FP: return UNWIND_FP;
	case PROFILE_UNWIND_DWARF: return UNWIND_DWARF;
	default: return UNWIND_AUTO;
	}
}

int main(int argc, char **argv)
{
	struct collector c = { 0 };
	struct backend_config cfg = { 0 };
	struct sigaction sa = { 0 };
	struct progcost pc = { .stats_fd = -1 };
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
	if (setup_check_capabilities(&c.opt) < 0)
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

	/* 2. configure, load and attach the BPF programs (their run times counted from here: -v) */
	progcost_start(&pc, c.opt.verbose);
	if (setup_config(&c, &cfg) < 0) {
		ret = 2;
		goto cleanup;
	}
	if (setup_open_backend(&c, &cfg, have_btf) < 0) {
		if (c.usage_error)
			ret = 2;
		goto cleanup;
	}
	/* --profile: the modern and compat objects'; the legacy one has no sampling program */
	if (c.opt.profile_hz && !c.be->ops->samples)
		fprintf(stderr, "collector: --profile: the %s BPF object cannot sample stacks "
			"(# profile=off)\n", c.be->ops->name);
	/*
	 * --offcpu-stacks: the modern object's, with scheduler rows; by
	 * default on for a boot the collector runs (a command, a client),
	 * off in watch mode: a service left running keeps each process's
	 * maps and unwinding state for its stacks, and its memory must stay
	 * flat over thousands of containers (test_soak_containers: +304 KiB
	 * over 2,500 with them on, against 128 allowed)
	 */
	if (c.opt.offcpu_stacks < 0)
		c.opt.offcpu_stacks = c.opt.command != NULL;
	if (c.opt.sched == SCHED_OFF || !c.be->ops->offcpu_stacks)
		c.opt.offcpu_stacks = 0;
	if (c.opt.offcpu_stacks && !(c.offstacks = calloc(1, sizeof(*c.offstacks)))) {
		fprintf(stderr, "collector: out of memory\n");
		goto cleanup;
	}
	if (((c.opt.profile_hz && c.be->ops->samples) || c.offstacks) &&
	    !(c.samples = samples__new(c.be, profile_unwind_mode(&c)))) {
		fprintf(stderr, "collector: out of memory\n");
		goto cleanup;
	}
	/* 3. the marks: uprobes and USDT probes in the binaries they name */
	if (marks_attach(c.be, c.opt.marks) < 0)
		goto cleanup;
	/* --spans: the host's interpreters now, an image's at its exec (run/records.c) */
	if (setup_spans(&c) < 0)
		goto cleanup;
	loop_status_setup(&c);

	/* 4. output */
	if (open_output(&c, &fd) < 0 || rotate_init(&c, fd) < 0 || exporter_open(&c) < 0)
		goto cleanup;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = rotate_on_hup;	/* a new file (logrotate), not the end */
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * SIGPIPE caught, not ignored, for the same EPIPE: an exec resets a
	 * caught signal to its default, so the command gets SIGPIPE's
	 * default without a call of its own (an ignored one would stay
	 * ignored in it).
	 */
	sa.sa_handler = on_sigpipe;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPIPE, &sa, NULL);
	records_write_header(&c);
	/* --sched host: every task outside the containers, from now on */
	if (c.opt.sched == SCHED_HOST && c.be->ops->host_rows)
		c.be->ops->host_rows(c.be, true);
	else if (c.opt.sched == SCHED_HOST)
		fprintf(stderr, "collector: --sched host: the %s BPF object writes no host rows "
			"(# host_rows=off); scheduler rows as --sched on\n", c.be->ops->name);

	/* 5. trace */
	progcost_tracing(&pc);
	if (c.opt.command)
		ret = c.opt.cgroup_glob ? client_run(&c) : spawn_run(&c);
	else
		ret = c.opt.pid > 0 ? watch_attach(&c) : watch_run(&c);

	/* 6. the trailer: what was lost is counted, never hidden */
	ret = finish_output(&c, ret);
	progcost_finish(&pc, c.be->ops->object(c.be));	/* its own CPU, its programs' */

cleanup:
	progcost_finish(&pc, NULL);	/* the statistics' fd, when set-up failed */
	exporter_free(c.exporter);
	output__free(c.out);
	progress__free(c.progress);
	marks__free(c.opt.marks);	/* before the backend: USDT links use its object */
	spans__free(c.spans);
	spanrows__free(c.spanrows);
	if (c.be)
		c.be->ops->destroy(c.be);
	containers_free(&c.containers);
	samples__free(c.samples);
	free(c.offstacks);
	free(c.opt.groups);
	free(c.opt.exec_path);
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	if (collector_exiting && ret == 128 + collector_exiting) {
		/*
		 * Runs interrupted (spawn, client): die of the signal, as
		 * the shell's convention asks of a program that caught it to
		 * clean up (its status 130 or 143 either way), so that a
		 * script's loop that runs the collector stops too.
		 */
		signal(collector_exiting, SIG_DFL);
		raise(collector_exiting);
	}
	return ret;
}
