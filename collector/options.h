/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The collector's command line: argv → struct options. Parsing is pure: it
 * looks nothing up on the host (users, binaries and their symbols are
 * resolved by main, step 1) and never exits; a mistake is one message on
 * stderr and a return of -1, which main turns into exit status 2.
 */
#ifndef COLLECTOR_OPTIONS_H
#define COLLECTOR_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>

/*
 * --until: the container's end (its last process's exit, as analyze's
 * phase `end`; `exit` is the same word), its entrypoint's exec, its first
 * successful listen, a --mark label.
 */
enum until_kind { UNTIL_END, UNTIL_EXEC, UNTIL_LISTEN, UNTIL_MARK };

/*
 * --sched: no scheduler rows; those of the traced tasks (and in client
 * mode, during each boot, the host rows of every other task); the host
 * rows for the whole trace besides (docs/tsv-format.md, Host rows).
 */
enum sched_rows { SCHED_OFF, SCHED_ON, SCHED_HOST };

/*
 * --profile-unwind: how user stacks are walked (collector/profile/unwind.h).
 * PROFILE_UNWIND_AUTO (the default) is DWARF for all but Go programs,
 * which keep frame pointers.
 */
enum profile_unwind { PROFILE_UNWIND_AUTO, PROFILE_UNWIND_FP, PROFILE_UNWIND_DWARF };

/* --profile-stack: perf record --call-graph dwarf's default is 8 KiB; libc's frames fit in 16 */
#define PROFILE_STACK_DEFAULT 16384
#define PROFILE_STACK_MIN 1024
#define PROFILE_STACK_MAX 65536	/* BT_USTACK_COPY_MAX */

struct marks;

struct options {
	const char *output;
	const char *mode;
	const char *syscalls;
	const char *cgroup_glob;
	const char *name;
	unsigned long long duration_ns;	/* --duration, 0: none */
	unsigned long long timeout_ns;	/* --timeout: a boot's, from its start; 0: none */
	enum until_kind until;
	unsigned long long until_delay_ns;
	int runs;
	int unshare_flags;
	unsigned long ringbuf_mb;
	const char *object;	/* auto, modern, compat, legacy */
	enum sched_rows sched;	/* --sched: on (default), off or host */
	int offcpu_stacks;	/* --offcpu-stacks: on (1) or off (0), -1: by the mode; with --sched on or host */
	pid_t pid;		/* --pid: trace this existing process tree */
	const char *root_exec;	/* pidtree watch: roots made by this runtime */
	struct marks *marks;	/* --mark and --start probes */
	char until_mark[128];	/* --until mark:LABEL */
	const char *user;	/* spawn: run the command as this user */
	uid_t uid;		/* --user's, filled in by main (getpwnam) */
	gid_t gid;
	gid_t *groups;		/* --user's groups (getgrouplist), by main; main frees */
	int ngroups;
	char *exec_path;	/* command[0] as execvp(3) would find it, by main; NULL: none */
	int verbose;
	const char *metrics;	/* --metrics [ADDR:]PORT */
	unsigned metrics_labels;	/* --metrics-label: 1 << BL_ENTRYPOINT, BL_NAMESPACE, BL_IMAGE */
	unsigned long long rotate_bytes;	/* --rotate SIZE, 0: none */
	unsigned profile_hz;	/* --profile[=HZ]: samples per second of CPU, 0: off */
	int spans;		/* --spans: on (1 by default, 2 when asked for), host (3), off (0) */
	enum profile_unwind profile_unwind;	/* --profile-unwind */
	unsigned profile_stack;	/* --profile-stack BYTES: user stack copied per sample */
	char **command;
};

/* How options_parse() ended. */
enum options_result {
	OPTIONS_OK,		/* go on */
	OPTIONS_DONE,		/* --help or --version printed: exit 0 */
	OPTIONS_USAGE = -1,	/* a mistake, said on stderr: exit 2 */
};

/*
 * options_parse - fill @o from @argv. --mark and --start probes are parsed
 * into o->marks (not resolved in binaries: marks_resolve() does that).
 * o->marks may be set even on OPTIONS_USAGE: free it with marks__free().
 */
enum options_result options_parse(int argc, char **argv, struct options *o);

/*
 * options_until_name - --until's phase as analyze names it: exec, listen,
 * end, or the mark's label.
 */
const char *options_until_name(const struct options *o);

/* options_usage - the --help text on @f. */
void options_usage(FILE *f);

/*
 * options_long_names - the long options the parser takes, NULL-terminated
 * (for the test that checks --help and the man page against them).
 */
const char *const *options_long_names(void);

/*
 * parse_duration_ns - "1.5", "500ms", "2s", "100us", "10ns" → ns in *@ns;
 * a bare number is in seconds. 0, or -1 when @s is not a duration.
 */
int parse_duration_ns(const char *s, unsigned long long *ns);

#endif /* COLLECTOR_OPTIONS_H */
