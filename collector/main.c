// SPDX-License-Identifier: BSD-2-Clause
/*
 * collector: trace every syscall of every process of a container, from its
 * first instruction, and write one TSV row per event (docs/tsv-format.md).
 *
 *   collector [options]                 watch: every container that starts
 *   collector [options] -- COMMAND...   spawn: run COMMAND as a container
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/backend.h"
#include "collector/clock.h"
#include "collector/cgroup.h"
#include "collector/marks.h"
#include "collector/names.h"
#include "collector/output.h"
#include "common/tsv.h"

#define NAME_MAX_LEN 256
#define GRACE_NS (2ULL * 1000000000ULL)

enum until_kind { UNTIL_EXIT, UNTIL_EXEC, UNTIL_LISTEN, UNTIL_MARK };

struct options {
	const char *output;
	const char *mode;
	const char *syscalls;
	const char *cgroup_glob;
	const char *name;
	double duration;
	enum until_kind until;
	unsigned long long until_delay_ns;
	int runs;
	int unshare_flags;
	unsigned long ringbuf_mb;
	const char *object;	/* auto, modern, legacy */
	pid_t pid;		/* --pid: trace this existing process tree */
	const char *root_exec;	/* pidtree watch: roots made by this runtime */
	struct marks *marks;	/* --mark and --start probes */
	char until_mark[128];	/* --until mark:LABEL */
	const char *user;	/* spawn: run the command as this user */
	uid_t uid;
	gid_t gid;
	int verbose;
	char **command;
};

/*
 * A container, or a cgroup nested in one (then top points at it). cgid is
 * the cgroup id in cgroup mode, the container key in pidtree mode: what the
 * kernel puts in bt_event_hdr.cgroup_id.
 */
struct container {
	unsigned long long cgid;
	struct container *top;
	int start_marked;	/* watch, --pid: the --start probe's start row is out */
	char name[NAME_MAX_LEN];
};

/* How often a container name was used in this run. */
struct name_use {
	char *name;
	unsigned int uses;
};

struct collector {
	struct options opt;
	enum bt_mode mode;
	struct backend *be;
	int usage_error;		/* set-up failed on what the command line asks: exit 2 */
	unsigned long long next_key;	/* pidtree: the next user-space key */
	struct output *out;
	char cg2[PATH_MAX];
	struct container **containers;
	size_t ncontainers, capcontainers;
	/*
	 * An index on cgid: open addressing, linear probing, tombstones
	 * (TOMB); every event looks its container up, and a host may boot
	 * thousands at once.
	 */
	struct container **index;
	size_t nindex, index_used;	/* slots (power of two), live + tombstones */
	struct container *last;	/* the last one found: most events repeat it */
	struct name_use *names;
	size_t nnames;
	unsigned long long stray;	/* events of cgroups user space dropped */
	int stdout_is_tsv;
	/* the live status line (stderr is a terminal) */
	int status_line;
	unsigned long long status_at, status_rows, started_ns;
	/* spawn mode, the boot in progress */
	struct container *spawned;
	int spawned_gone;		/* pidtree: its last task exited */
	unsigned long long until_at;	/* when to stop it, 0: not yet */
	/* --start: the spawn time, kept until the probe's start row replaces it */
	unsigned long long spawn_ts;
	int start_written;		/* this boot's start row is out */
};

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
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

static void usage(FILE *f)
{
	fprintf(f,
"usage: collector [<options>] [-- <command> [<arg>...]]\n"
"\n"
"Trace every syscall of every process of a container, from its first\n"
"instruction, and write one TSV row per event (see docs/tsv-format.md).\n"
"Without <command>: watch every container (new cgroup v2 directory) that\n"
"starts while the collector runs. With <command>: run it as a container\n"
"(a fresh cgroup v2 directory, optional namespaces) and trace it.\n"
"\n"
"Modes: cgroup attributes by cgroup v2 id (kernel >= 4.18 with BTF);\n"
"pidtree follows the process tree from the container's first process\n"
"(kernel 4.15, cgroup-v1 hosts); in watch mode a container is then a\n"
"process that makes a new pid or mount namespace. auto picks cgroup when\n"
"it can.\n"
"\n"
"    -o, --output <file>        write the TSV to <file> (a FIFO works); default stdout\n"
"    -m, --mode <mode>          auto, cgroup or pidtree (default auto)\n"
"    -s, --syscalls <list>      all, none, or a comma list of names (default all)\n"
"    -d, --duration <sec>       stop after <sec> seconds\n"
"    -c, --cgroup <glob>        watch: only cgroups whose path (relative to the\n"
"                               cgroup2 mount) matches <glob>\n"
"    -u, --until <when>         spawn: stop the container at exec, listen, exit or\n"
"                               mark:<label> (the first --mark with that label),\n"
"                               optionally +<duration> later (e.g. listen+500ms)\n"
"        --mark <probe>[=<label>]\n"
"                               a milestone: a `mark` row named <label> each time\n"
"                               <probe> fires in a traced container; <probe> is\n"
"                               uprobe:<binary>:<symbol>, uretprobe:<binary>:<symbol>\n"
"                               or usdt:<binary>:<provider>:<name>; <binary> a path,\n"
"                               a program on PATH or a library (libc); repeatable;\n"
"                               <label> defaults to <symbol> or <name>; the legacy\n"
"                               object takes 8 at most, USDT without semaphores\n"
"        --start <probe>        the container starts when <probe> (as for --mark)\n"
"                               fired in the runtime thread it descends from (the\n"
"                               time is inherited across fork); spawn: the start\n"
"                               row, the spawn time if it never fires; watch,\n"
"                               --pid: a second start row\n"
"    -n, --runs <n>             spawn: boot <n> times, one container each\n"
"        --name <name>          spawn: container name (default: the command's\n"
"                               basename); runs are named <name>-1..<name>-<n>\n"
"        --unshare <ns,...>     spawn: new namespaces: pid,mount,net,uts,ipc\n"
"        --user <user>          spawn: run the command as <user>, without root\n"
"    -p, --pid <pid>            trace the existing process <pid> and its\n"
"                               descendants until they end (like strace -p)\n"
"        --root-exec <glob>     pidtree watch: only containers whose runtime's\n"
"                               comm or command line matches <glob>\n"
"        --ringbuf-mb <mb>      ring buffer size in MiB (default 8); with the\n"
"                               legacy object, the perf buffer per CPU\n"
"        --object <obj>         auto, modern or legacy BPF object (default auto:\n"
"                               modern where the kernel has BTF)\n"
"    -v, --verbose              libbpf's messages\n"
"    -h, --help                 this text\n"
"    -V, --version              the version\n"
"\n"
"EXAMPLES\n"
"    sudo collector > boot.tsv                     # every container that starts\n"
"    sudo collector -c '/system.slice/docker-*' -d 60 -o boot.tsv\n"
"    sudo collector --runs 5 --until listen -o boot.tsv -- ./server\n"
"    sudo collector --mark usdt:./bootsvc:bootsvc:config_loaded=config \\\n"
"        --mark uprobe:./bootsvc:bootsvc_ready=ready --until mark:ready -- ./bootsvc\n"
"    mkfifo p; sudo collector -o p -- ./server & analyze p\n");
}

static int parse_duration_ns(const char *s, unsigned long long *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		v *= 1e9;
	else if (strcmp(end, "ms") == 0)
		v *= 1e6;
	else if (strcmp(end, "us") == 0)
		v *= 1e3;
	else if (strcmp(end, "ns") != 0)
		return -1;
	*ns = (unsigned long long)v;
	return 0;
}

static int parse_until(const char *s, struct options *o)
{
	char kind[16];
	const char *plus = strchr(s, '+');
	size_t n = plus ? (size_t)(plus - s) : strlen(s);

	if (strncmp(s, "mark:", 5) == 0) {
		/* mark:LABEL: labels have no '+' (collector/marks.c) */
		if (n <= 5 || n - 5 >= sizeof(o->until_mark))
			return -1;
		memcpy(o->until_mark, s + 5, n - 5);
		o->until_mark[n - 5] = '\0';
		o->until = UNTIL_MARK;
		o->until_delay_ns = 0;
		return plus && parse_duration_ns(plus + 1, &o->until_delay_ns) < 0 ? -1 : 0;
	}
	if (n >= sizeof(kind))
		return -1;
	memcpy(kind, s, n);
	kind[n] = '\0';
	if (strcmp(kind, "exit") == 0)
		o->until = UNTIL_EXIT;
	else if (strcmp(kind, "exec") == 0)
		o->until = UNTIL_EXEC;
	else if (strcmp(kind, "listen") == 0)
		o->until = UNTIL_LISTEN;
	else
		return -1;
	o->until_delay_ns = 0;
	if (plus && parse_duration_ns(plus + 1, &o->until_delay_ns) < 0)
		return -1;
	return 0;
}

static int parse_unshare(const char *s, int *flags)
{
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	*flags = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "pid") == 0)
			*flags |= CLONE_NEWPID;
		else if (strcmp(tok, "mount") == 0)
			*flags |= CLONE_NEWNS;
		else if (strcmp(tok, "net") == 0)
			*flags |= CLONE_NEWNET;
		else if (strcmp(tok, "uts") == 0)
			*flags |= CLONE_NEWUTS;
		else if (strcmp(tok, "ipc") == 0)
			*flags |= CLONE_NEWIPC;
		else
			return -1;
	}
	return 0;
}

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "collector: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'collector --help'.\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "mode", required_argument, NULL, 'm' },
		{ "syscalls", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "until", required_argument, NULL, 'u' },
		{ "runs", required_argument, NULL, 'n' },
		{ "name", required_argument, NULL, 'N' },
		{ "unshare", required_argument, NULL, 'U' },
		{ "ringbuf-mb", required_argument, NULL, 'R' },
		{ "object", required_argument, NULL, 'O' },
		{ "pid", required_argument, NULL, 'p' },
		{ "root-exec", required_argument, NULL, 'X' },
		{ "user", required_argument, NULL, 'W' },
		{ "mark", required_argument, NULL, 'K' },
		{ "start", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	char *end;
	int c;

	o->mode = "auto";
	o->syscalls = "all";
	o->runs = 1;
	o->ringbuf_mb = 8;
	o->object = "auto";
	while ((c = getopt_long(argc, argv, "+o:m:s:d:c:u:n:p:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'm':
			if (strcmp(optarg, "auto") && strcmp(optarg, "cgroup") &&
			    strcmp(optarg, "pidtree"))
				usage_error("--mode takes auto, cgroup or pidtree, not '%s'", optarg);
			o->mode = optarg;
			break;
		case 's': o->syscalls = optarg; break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0)
				usage_error("--duration takes seconds, not '%s'", optarg);
			break;
		case 'c': o->cgroup_glob = optarg; break;
		case 'u':
			if (parse_until(optarg, o) < 0)
				usage_error("--until takes exec, listen, exit or mark:LABEL[+DURATION], not '%s'",
					    optarg);
			break;
		case 'n':
			o->runs = (int)strtol(optarg, &end, 10);
			if (*end || o->runs < 1 || o->runs > 100000)
				usage_error("--runs takes a number from 1 to 100000, not '%s'", optarg);
			break;
		case 'N': o->name = optarg; break;
		case 'U':
			if (parse_unshare(optarg, &o->unshare_flags) < 0)
				usage_error("--unshare takes pid,mount,net,uts,ipc, not '%s'", optarg);
			break;
		case 'R':
			o->ringbuf_mb = strtoul(optarg, &end, 10);
			if (*end || o->ringbuf_mb < 1 || o->ringbuf_mb > 2048 ||
			    (o->ringbuf_mb & (o->ringbuf_mb - 1)))
				usage_error("--ringbuf-mb takes a power of two from 1 to 2048 (the ring buffer's size is 32-bit)");
			break;
		case 'O':
			if (strcmp(optarg, "auto") && strcmp(optarg, "modern") &&
			    strcmp(optarg, "legacy"))
				usage_error("--object takes auto, modern or legacy, not '%s'", optarg);
			o->object = optarg;
			break;
		case 'p':
			o->pid = (pid_t)strtol(optarg, &end, 10);
			if (*end || o->pid <= 0)
				usage_error("--pid takes a process id, not '%s'", optarg);
			break;
		case 'X': o->root_exec = optarg; break;
		case 'W': o->user = optarg; break;
		case 'K':
		case 'S': {
			char err[512];

			if (!o->marks && !(o->marks = marks__new()))
				usage_error("out of memory");
			if (c == 'S' && marks_have_start(o->marks))
				usage_error("--start may be given once");
			if (marks_add(o->marks, optarg, c == 'S', err, sizeof(err)) < 0)
				usage_error("%s", err);
			break;
		}
		case 'v': o->verbose = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("collector (boottrace) %s\n", BOOTTRACE_VERSION); exit(0);
		default:
			fprintf(stderr, "Try 'collector --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		o->command = argv + optind;
	if (!o->command && (o->runs != 1 || o->name || o->unshare_flags))
		usage_error("--runs, --name and --unshare need a command (after --)");
	if (o->command && o->cgroup_glob)
		usage_error("--cgroup is for watch mode (no command)");
	if (o->user) {
		struct passwd *pw = getpwnam(o->user);

		if (!o->command)
			usage_error("--user is for spawn mode (a command after --)");
		if (!pw)
			usage_error("--user: no user '%s'", o->user);
		o->uid = pw->pw_uid;
		o->gid = pw->pw_gid;
	}
	if (o->command && o->pid > 0)
		usage_error("--pid and a command exclude each other");
	if (o->root_exec && (o->command || o->pid > 0 || strcmp(o->mode, "pidtree")))
		usage_error("--root-exec is for watch mode with --mode pidtree");
	if (o->until == UNTIL_MARK && !marks_find_label(o->marks, o->until_mark))
		usage_error("--until mark:%s: no --mark has the label '%s'", o->until_mark, o->until_mark);
	if (marks_count(o->marks)) {
		char err[4096];

		/* a missing binary, symbol or probe is the user's to fix: exit 2 */
		if (marks_resolve(o->marks, err, sizeof(err)) < 0) {
			fprintf(stderr, "collector: %s\n", err);
			exit(2);
		}
	}
}

/* --- containers ------------------------------------------------------------ */

static struct container tomb_slot;
#define TOMB (&tomb_slot)

static size_t index_slot(const struct collector *c, unsigned long long cgid)
{
	return (size_t)((cgid * 0x9E3779B97F4A7C15ULL) >> 32) & (c->nindex - 1);
}

static struct container *container_find(struct collector *c, unsigned long long cgid)
{
	size_t i;

	if (c->last && c->last->cgid == cgid)
		return c->last;
	if (!c->nindex)
		return NULL;
	for (i = index_slot(c, cgid); c->index[i]; i = (i + 1) & (c->nindex - 1))
		if (c->index[i] != TOMB && c->index[i]->cgid == cgid)
			return c->last = c->index[i];
	return NULL;
}

static void index_put(struct collector *c, struct container *k)
{
	size_t i = index_slot(c, k->cgid);

	while (c->index[i] && c->index[i] != TOMB)
		i = (i + 1) & (c->nindex - 1);
	if (!c->index[i])
		c->index_used++;
	c->index[i] = k;
}

/* Keep the index at most half full (tombstones count): rebuild it. */
static int index_grow(struct collector *c)
{
	struct container **old = c->index;
	size_t n = c->nindex, i;

	if ((c->index_used + 1) * 2 <= c->nindex)
		return 0;
	c->nindex = n ? n : 64;
	while ((c->ncontainers + 1) * 2 > c->nindex / 2)
		c->nindex *= 2;
	c->index = calloc(c->nindex, sizeof(*c->index));
	if (!c->index) {
		c->index = old;
		c->nindex = n;
		return -1;
	}
	c->index_used = 0;
	for (i = 0; i < c->ncontainers; i++)
		index_put(c, c->containers[i]);
	free(old);
	return 0;
}

static struct container *container_add(struct collector *c, unsigned long long cgid,
				       struct container *top, const char *name)
{
	struct container *k = calloc(1, sizeof(*k));

	if (!k || index_grow(c) < 0) {
		free(k);
		return NULL;
	}
	if (c->ncontainers == c->capcontainers) {
		size_t cap = c->capcontainers ? c->capcontainers * 2 : 64;
		struct container **v = realloc(c->containers, cap * sizeof(*v));

		if (!v) {
			free(k);
			return NULL;
		}
		c->containers = v;
		c->capcontainers = cap;
	}
	k->cgid = cgid;
	k->top = top ? top : k;
	snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
	c->containers[c->ncontainers++] = k;
	index_put(c, k);
	return k;
}

static void container_remove(struct collector *c, struct container *k)
{
	size_t i;

	for (i = index_slot(c, k->cgid); c->index[i]; i = (i + 1) & (c->nindex - 1)) {
		if (c->index[i] == k) {
			c->index[i] = TOMB;
			break;
		}
	}
	for (i = 0; i < c->ncontainers; i++) {
		if (c->containers[i] == k) {
			if (c->last == k)
				c->last = NULL;
			/* order does not matter: the last one fills the hole */
			c->containers[i] = c->containers[--c->ncontainers];
			free(k);
			return;
		}
	}
}

/*
 * A name not used before in this run: "name", then "name#2", "name#3"...
 * Counted over the whole run, not only live containers: a container that
 * restarts in a cgroup of the same name is another boot, another name.
 */
static void unique_name(struct collector *c, const char *base, char *out, size_t n)
{
	struct name_use *u;
	size_t i;

	for (i = 0; i < c->nnames; i++) {
		if (strcmp(c->names[i].name, base) == 0) {
			snprintf(out, n, "%s#%u", base, ++c->names[i].uses);
			return;
		}
	}
	snprintf(out, n, "%s", base);
	u = realloc(c->names, (c->nnames + 1) * sizeof(*u));
	if (!u)
		return; /* the name stays unique now; a later repeat may not be */
	c->names = u;
	c->names[c->nnames].name = strdup(base);
	if (c->names[c->nnames].name)
		c->names[c->nnames++].uses = 1;
}

static int track(struct collector *c, unsigned long long id)
{
	return c->be->ops->track_cgroup(c->be, id);
}

static void untrack(struct collector *c, unsigned long long id)
{
	if (c->mode == BT_MODE_CGROUP)
		c->be->ops->untrack_cgroup(c->be, id);
}

/* --- rows ------------------------------------------------------------------ */

static void row_from_hdr(const struct collector *c, struct row *r, const struct bt_event_hdr *h,
			 const struct container *k, const char *event)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = h->ts_ns;
	r->container = field_str(k->top->name);
	r->cgroup_id = c->mode == BT_MODE_CGROUP ? h->cgroup_id : 0;
	r->pid = h->pid;
	r->tid = h->tid;
	r->ppid = h->ppid;
	r->comm = field_strn(h->comm, sizeof(h->comm));
	r->event = event;
}

static void write_start(struct collector *c, struct container *k, unsigned long long ts,
			const char *how, long pid, const char *comm, const char *detail)
{
	struct row r = { 0 };

	r.ts_ns = ts;
	r.container = field_str(k->name);
	r.cgroup_id = c->mode == BT_MODE_CGROUP ? k->cgid : 0;
	r.pid = r.tid = pid;
	r.ppid = -1;
	r.comm = field_str(comm);
	r.event = "start";
	r.name = field_str(how);
	r.detail = field_str(detail);
	output_row(c->out, &r);
}

static void write_end(struct collector *c, struct container *k, unsigned long long ts)
{
	struct row r = { 0 };

	r.ts_ns = ts;
	r.container = field_str(k->name);
	r.cgroup_id = c->mode == BT_MODE_CGROUP ? k->cgid : 0;
	r.pid = r.tid = r.ppid = -1;
	r.event = "end";
	output_row(c->out, &r);
}

static void on_cgroup(struct collector *c, const struct bt_cgroup_event *e)
{
	struct container *k = container_find(c, e->hdr.cgroup_id), *parent;
	char base[NAME_MAX_LEN], name[NAME_MAX_LEN];

	if (e->hdr.type == BT_EV_CGROUP_RMDIR) {
		if (!k)
			return;
		if (k->top == k)
			write_end(c, k, e->hdr.ts_ns);
		untrack(c, k->cgid);
		if (c->spawned == k)
			c->spawned = NULL;
		container_remove(c, k);
		return;
	}
	if (k)
		return; /* registered by spawn mode already */
	parent = e->parent_tracked ? container_find(c, e->parent_id) : NULL;
	if (parent) {
		container_add(c, e->hdr.cgroup_id, parent->top, NULL);
		return;
	}
	if (c->opt.command || (c->opt.cgroup_glob &&
			       fnmatch(c->opt.cgroup_glob, e->path, FNM_PATHNAME) != 0)) {
		/* Not ours: the kernel tracked it in case; drop it. */
		untrack(c, e->hdr.cgroup_id);
		return;
	}
	container_name_from_path(e->path, base, sizeof(base));
	unique_name(c, base, name, sizeof(name));
	k = container_add(c, e->hdr.cgroup_id, NULL, name);
	if (!k)
		return;
	write_start(c, k, e->hdr.ts_ns, "mkdir", e->hdr.pid,
		    field_strn(e->hdr.comm, sizeof(e->hdr.comm)).s, e->path);
}

/* Whether a root the kernel found was made by the runtime --root-exec names. */
static int root_wanted(const struct collector *c, const struct bt_root_event *e)
{
	char path[64], cmd[4096], comm[BT_COMM_LEN + 1];
	ssize_t n = 0, i;
	int fd;

	if (!c->opt.root_exec)
		return 1;
	snprintf(comm, sizeof(comm), "%.*s", BT_COMM_LEN, e->parent_comm);
	if (fnmatch(c->opt.root_exec, comm, 0) == 0)
		return 1;
	/* the runtime's command line, arguments joined by spaces: "runc init" */
	snprintf(path, sizeof(path), "/proc/%u/cmdline", e->hdr.ppid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
	}
	if (n <= 0)
		return 0;
	while (n > 0 && cmd[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	cmd[n] = '\0';
	return fnmatch(c->opt.root_exec, cmd, 0) == 0;
}

/* pidtree watch mode: the kernel found a task that starts a container. */
static void on_root(struct collector *c, const struct bt_root_event *e)
{
	char base[NAME_MAX_LEN], name[NAME_MAX_LEN], how[64];
	struct field comm = field_strn(e->hdr.comm, sizeof(e->hdr.comm));
	struct container *k;

	if (container_find(c, e->hdr.cgroup_id))
		return;
	if (!root_wanted(c, e)) {
		/* its events, if any got out, count as stray */
		c->be->ops->untrack_task(c->be, (pid_t)e->hdr.tid);
		return;
	}
	snprintf(base, sizeof(base), "%.*s-%u", (int)comm.n, comm.s, e->hdr.pid);
	unique_name(c, base, name, sizeof(name));
	k = container_add(c, e->hdr.cgroup_id, NULL, name);
	if (!k)
		return;
	snprintf(how, sizeof(how), "%s%s%s",
		 e->ns_flags & CLONE_NEWPID ? "pid" : "",
		 (e->ns_flags & CLONE_NEWPID) && (e->ns_flags & CLONE_NEWNS) ? "," : "",
		 e->ns_flags & CLONE_NEWNS ? "mount" : "");
	write_start(c, k, e->hdr.ts_ns, "namespace", e->hdr.pid,
		    field_strn(e->parent_comm, sizeof(e->parent_comm)).s, how);
}

/* pidtree mode: the last task of a container exited. */
static void on_gone(struct collector *c, const struct bt_event_hdr *h)
{
	struct container *k = container_find(c, h->cgroup_id);

	if (!k)
		return;
	if (k == c->spawned) {
		c->spawned_gone = 1;	/* spawn mode writes the end row itself */
		return;
	}
	write_end(c, k, h->ts_ns);
	container_remove(c, k);
}

static void until_reached(struct collector *c, struct container *k, enum until_kind what)
{
	if (c->spawned && c->spawned == k->top && c->opt.until == what && !c->until_at)
		c->until_at = mono_ns() + c->opt.until_delay_ns;
}

/*
 * A --mark fired in container @k: a mark row. A --start probe's time met
 * the spawned container: its start row, once per boot (bpf/marks.bpf.h).
 */
static void on_mark(struct collector *c, struct container *k, const struct bt_mark_event *e)
{
	const struct mark *m = marks_get(c->opt.marks, e->mark_id);
	struct row r;

	if (!m || !m->spec)
		return;
	if (e->flags & BT_MARK_START) {
		/*
		 * Spawn mode: the start row, instead of the spawn time. Watch and
		 * --pid: the container's start row (mkdir, namespace, attach) is
		 * out already; a second one, name=mark, gives the earlier time the
		 * analyzer takes (the runtime fires the probe before it mkdirs).
		 */
		if (c->spawned && c->spawned == k->top) {
			if (!c->start_written)
				write_start(c, k->top, e->hdr.ts_ns, "mark", e->hdr.pid,
					    field_strn(e->hdr.comm, sizeof(e->hdr.comm)).s, m->spec);
			c->start_written = 1;
		} else if (!c->opt.command && !k->top->start_marked) {
			write_start(c, k->top, e->hdr.ts_ns, "mark", e->hdr.pid,
				    field_strn(e->hdr.comm, sizeof(e->hdr.comm)).s, m->spec);
			k->top->start_marked = 1;
		}
		return;
	}
	row_from_hdr(c, &r, &e->hdr, k, "mark");
	r.name = field_str(m->label);
	r.detail = field_str(m->spec);
	output_row(c->out, &r);
	if (c->opt.until == UNTIL_MARK && strcmp(m->label, c->opt.until_mark) == 0)
		until_reached(c, k, UNTIL_MARK);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	const struct bt_event_hdr *h = data;
	struct container *k;
	struct row r;
	char num[32], addr[BT_DETAIL_MAX * 2];

	if (size < sizeof(*h))
		return 0;
	if (h->type == BT_EV_CGROUP_MKDIR || h->type == BT_EV_CGROUP_RMDIR) {
		if (size >= sizeof(struct bt_cgroup_event))
			on_cgroup(c, data);
		return 0;
	}
	if (h->type == BT_EV_ROOT) {
		if (size >= sizeof(struct bt_root_event))
			on_root(c, data);
		return 0;
	}
	if (h->type == BT_EV_GONE) {
		on_gone(c, h);
		return 0;
	}
	k = container_find(c, h->cgroup_id);
	if (!k) {
		c->stray++;
		return 0;
	}
	switch (h->type) {
	case BT_EV_SYSCALL:
	case BT_EV_SYSCALL_DETAIL: {
		const struct bt_syscall_event *e = data;
		const char *sname = syscall_name(e->nr);

		row_from_hdr(c, &r, h, k, "syscall");
		if (!sname) {
			snprintf(num, sizeof(num), "syscall_%u", e->nr);
			sname = num;
		}
		r.name = field_str(sname);
		if (!(e->flags & BT_SC_NORETURN)) {
			r.has_ret = r.has_dur = true;
			r.ret = e->ret;
			r.dur_ns = e->dur_ns;
		}
		if (h->type == BT_EV_SYSCALL_DETAIL && size >= sizeof(struct bt_syscall_detail_event)) {
			const struct bt_syscall_detail_event *d = data;
			size_t len = e->detail_len < BT_DETAIL_MAX ? e->detail_len : BT_DETAIL_MAX;

			if (e->detail_kind == BT_DETAIL_PATH) {
				r.detail = field_strn(d->detail, len);
			} else if (e->detail_kind == BT_DETAIL_SOCKADDR) {
				r.detail.s = addr;
				r.detail.n = sockaddr_format(d->detail, len, addr, sizeof(addr));
			}
		}
		output_row(c->out, &r);
		if (e->nr == __NR_listen && e->ret == 0 && !(e->flags & BT_SC_NORETURN))
			until_reached(c, k, UNTIL_LISTEN);
		break;
	}
	case BT_EV_FORK: {
		const struct bt_fork_event *e = data;

		row_from_hdr(c, &r, h, k, "fork");
		r.name = field_str(e->is_thread ? "thread" : "process");
		output_row(c->out, &r);
		break;
	}
	case BT_EV_EXEC: {
		const struct bt_exec_event *e = data;

		row_from_hdr(c, &r, h, k, "exec");
		r.detail = field_strn(e->filename, sizeof(e->filename));
		output_row(c->out, &r);
		until_reached(c, k, UNTIL_EXEC);
		break;
	}
	case BT_EV_EXIT: {
		const struct bt_exit_event *e = data;

		row_from_hdr(c, &r, h, k, "exit");
		r.has_ret = true;
		/* as a shell reports it: the exit status, or 128 + signal */
		r.ret = WIFSIGNALED(e->exit_code) ? 128 + WTERMSIG(e->exit_code) :
						     WEXITSTATUS(e->exit_code);
		output_row(c->out, &r);
		break;
	}
	case BT_EV_MARK:
		if (size >= sizeof(struct bt_mark_event))
			on_mark(c, k, data);
		break;
	}
	return 0;
}

/* --- set-up ------------------------------------------------------------------ */

static int configure_syscalls(struct backend_config *cfg, const char *list)
{
	char buf[4096], *tok, *save = NULL;

	cfg->trace_all_syscalls = strcmp(list, "all") == 0;
	if (cfg->trace_all_syscalls)
		return 0;
	if (strcmp(list, "none") == 0) {
		cfg->trace_no_syscalls = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int nr = syscall_nr(tok);

		if (nr < 0 || nr >= BT_MAX_SYSCALLS) {
			fprintf(stderr, "collector: unknown syscall '%s'\n", tok);
			return -1;
		}
		cfg->syscall_mask[nr / 64] |= 1ULL << (nr % 64);
	}
	return 0;
}

static void write_header(struct collector *c)
{
	struct utsname u;
	struct timespec rt, mono;
	char buf[128];
	time_t t = time(NULL);
	long long off;

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	off = ((long long)rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
	output_raw(c->out, TSV_VERSION_LINE "\n", strlen(TSV_VERSION_LINE) + 1);
	output_meta(c->out, "host", u.nodename);
	output_meta(c->out, "kernel", u.release);
	output_meta(c->out, "mode", c->mode == BT_MODE_CGROUP ? "cgroup" : "pidtree");
	output_meta(c->out, "bpf_object", c->be->ops->name);
	output_meta(c->out, "clock", "CLOCK_MONOTONIC");
	snprintf(buf, sizeof(buf), "%lld", off);
	output_meta(c->out, "realtime_offset_ns", buf);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	output_meta(c->out, "started", buf);
	output_meta(c->out, "collector", BOOTTRACE_VERSION);
	output_meta(c->out, "cgroup2", c->cg2);
	output_meta(c->out, "cgroup_layout", cgroup_host_layout(c->cg2));
	output_meta(c->out, "command_line", c->opt.command ? "spawn" : "watch");
	output_raw(c->out, TSV_HEADER "\n", strlen(TSV_HEADER) + 1);
	output_flush(c->out);
}

static unsigned long long lost_events(struct collector *c)
{
	return c->be->ops->lost(c->be);
}


/* One line on stderr, rewritten each second, like perf top's or dd's. */
static void show_status(struct collector *c, int final)
{
	unsigned long long now = mono_ns(), rows = c->out->rows;
	size_t i, n = 0;

	if (!c->status_line || (!final && now < c->status_at + 1000000000ULL))
		return;
	for (i = 0; i < c->ncontainers; i++)
		n += c->containers[i]->top == c->containers[i];
	fprintf(stderr, "\rcollector: %zu containers, %llu events, %.0f events/s, lost %llu\033[K%s",
		n, rows, c->status_at ? (rows - c->status_rows) * 1e9 / (double)(now - c->status_at) : 0.0,
		lost_events(c), final ? "\n" : "");
	c->status_at = now;
	c->status_rows = rows;
}

static int poll_once(struct collector *c, int timeout_ms)
{
	int err = c->be->ops->poll(c->be, timeout_ms);

	if (err < 0) {
		fprintf(stderr, "collector: polling the BPF buffer failed: %s\n", strerror(-err));
		return err;
	}
	if (output_flush(c->out) < 0)
		return -c->out->err;
	show_status(c, 0);
	return 0;
}

/* --- spawn mode ---------------------------------------------------------- */

/*
 * In the child, before the command runs: send "<what>: <strerror(errno)>"
 * back through @fd (the collector prints it) and _exit(@code).
 */
static void child_fail(int fd, int code, const char *what)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));

	if (n > (int)sizeof(msg) - 1)
		n = (int)sizeof(msg) - 1;
	if (write(fd, msg, (size_t)n) < 0) { /* nothing left to do */ }
	_exit(code);
}

/*
 * The exit status when the command cannot run, as env(1), timeout(1) and
 * the shells (POSIX, "Command Search and Execution") give it: 127 when it
 * is not there, 126 when it is there but cannot be executed (EACCES for a
 * file without x or a directory, ENOEXEC, ETXTBSY, ...). A failure to set
 * up the container before that is the collector's own: exit 1.
 */
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/*
 * The container's first process: joins the cgroup, takes its namespaces,
 * execs. Errors go back through @errfd (close-on-exec: EOF means exec'd).
 */
static void child_main(struct collector *c, const char *cgdir, int errfd, int gofd)
{
	char self[32], what[256], go;
	int err;

	/* pidtree: wait until the collector has registered us in the kernel */
	if (gofd >= 0 && read(gofd, &go, 1) != 1)
		_exit(1);
	snprintf(self, sizeof(self), "%d", getpid());
	if (cgdir) {
		errno = -cgroup_write(cgdir, "cgroup.procs", self);
		if (errno)
			child_fail(errfd, 1, "cannot join the container's cgroup");
	} else if (setpgid(0, 0) < 0) {
		/* no cgroup to signal: the process group stands in for it */
		child_fail(errfd, 1, "setpgid");
	}
	if (c->stdout_is_tsv && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		child_fail(errfd, 1, "dup2");
	if (c->opt.unshare_flags && unshare(c->opt.unshare_flags) < 0)
		child_fail(errfd, 1, "unshare");
	if ((c->opt.unshare_flags & CLONE_NEWNS) &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(errfd, 1, "cannot make / private in the new mount namespace");
	if (c->opt.unshare_flags & CLONE_NEWPID) {
		/* The new pid namespace takes our next child as its pid 1. */
		pid_t pid = fork();
		int st;

		if (pid < 0)
			child_fail(errfd, 1, "fork");
		if (pid > 0) {
			close(errfd);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
	}
	/* --user: the container does not get the collector's privileges */
	if (c->opt.user && (initgroups(c->opt.user, c->opt.gid) < 0 ||
			    setgid(c->opt.gid) < 0 || setuid(c->opt.uid) < 0))
		child_fail(errfd, 1, "cannot switch to --user");
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(c->opt.command[0], c->opt.command);
	err = errno;
	snprintf(what, sizeof(what), "cannot run '%s'", c->opt.command[0]);
	errno = err;
	child_fail(errfd, err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, what);
}

/*
 * Remove the cgroup @path and every cgroup under it, depth first. Tasks
 * still in them (a container that outlived its collector) are killed
 * first: nobody traces them any more, and a boottrace cgroup is ours.
 */
static int remove_cgroup_tree(const char *path, int depth)
{
	char child[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int i;

	if (depth > 32)
		return -1;
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
		remove_cgroup_tree(child, depth + 1);
	}
	if (dir)
		closedir(dir);
	if (cgroup_populated(path) > 0 && cgroup_write(path, "cgroup.kill", "1") < 0)
		cgroup_signal(path, SIGKILL);
	/* a killed task leaves its cgroup soon, not at once */
	for (i = 0; i < 200 && rmdir(path) < 0 && errno == EBUSY; i++)
		usleep(5000);
	return access(path, F_OK) == 0 ? -1 : 0;
}

/* Signal the spawned container: its cgroup, or its process group without one. */
static void signal_spawned(const char *cgdir, pid_t pid, int sig)
{
	if (!cgdir)
		kill(-pid, sig);
	else if (sig != SIGKILL || cgroup_write(cgdir, "cgroup.kill", "1") < 0)
		cgroup_signal(cgdir, sig);
}

static int spawned_empty(struct collector *c, const char *cgdir, pid_t pid)
{
	if (cgdir)
		return cgroup_populated(cgdir) == 0;
	return c->spawned_gone || (kill(-pid, 0) < 0 && errno == ESRCH);
}

/*
 * One boot. The container is registered in the kernel before its first
 * instruction: cgroup mode tracks the fresh cgroup before the fork;
 * pidtree mode makes the child wait on a pipe until its pid is tracked.
 * The container's cgroup, when there is a cgroup2 mount, is also what
 * stops it (cgroup.kill) and tells when it is empty. Returns 0 when the
 * command ran (*@status: its exit status, or 128 + signal), 1 when it
 * could not run (*@status: 126 or 127, the message printed), -1 on a
 * failure of the collector or of the container's set-up (printed).
 */
static int spawn_one(struct collector *c, const char *parent, const char *name, int *status)
{
	char cgbuf[PATH_MAX + NAME_MAX_LEN], errmsg[512], *cgdir = NULL;
	unsigned long long id, deadline_kill = 0;
	struct container *k;
	sigset_t stop, mask;
	int pipefd[2], gofd[2] = { -1, -1 }, err, st = 0, reaped = 0, termed = 0, regfail = 0;
	ssize_t n;
	pid_t pid;

	if (parent[0]) {
		cgdir = cgbuf;
		snprintf(cgbuf, sizeof(cgbuf), "%s/%s", parent, name);
		if (mkdir(cgdir, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "collector: cannot create cgroup %s: %s\n", cgdir, strerror(errno));
			return -1;
		}
	}
	if (c->mode == BT_MODE_PIDTREE) {
		id = ++c->next_key;
	} else if (cgroup_id_of(cgdir, &id) < 0 || track(c, id) < 0) {
		fprintf(stderr, "collector: cannot register cgroup %s: %s\n", cgdir, strerror(errno));
		rmdir(cgdir);
		return -1;
	}
	k = container_add(c, id, NULL, name);
	if (!k)
		return -1;
	c->spawned = k;
	c->spawned_gone = 0;
	c->until_at = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0 ||
	    (c->mode == BT_MODE_PIDTREE && pipe2(gofd, O_CLOEXEC) < 0))
		return -1;

	/*
	 * The start row comes first: before the container runs at all. With
	 * --start it waits for the probe (on_mark), or the end of the boot.
	 */
	c->spawn_ts = mono_ns();
	c->start_written = !marks_have_start(c->opt.marks);
	if (c->start_written)
		write_start(c, k, c->spawn_ts, "spawn", getpid(), "collector", c->opt.command[0]);
	output_flush(c->out);
	fflush(NULL);
	/*
	 * SIGINT/SIGTERM stay blocked across the fork until the child has
	 * dropped our handler: one that reached it in between would only set
	 * the child's copy of `exiting`, and the container would not stop.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &mask);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (pid < 0) {
		fprintf(stderr, "collector: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		if (gofd[1] >= 0)
			close(gofd[1]);
		child_main(c, cgdir, pipefd[1], gofd[0]);
	}
	close(pipefd[1]);
	if (gofd[0] >= 0) {
		close(gofd[0]);
		err = c->be->ops->track_task(c->be, pid, id);
		if (err < 0)
			fprintf(stderr, "collector: cannot register pid %d: %s\n", pid, strerror(-err));
		else if (write(gofd[1], "g", 1) != 1)
			err = -errno;
		regfail = err < 0;
		close(gofd[1]);	/* on error the child sees EOF and exits */
	}
	n = read(pipefd[0], errmsg, sizeof(errmsg) - 1);
	close(pipefd[0]);
	if (n > 0) {
		errmsg[n] = '\0';
		fprintf(stderr, "collector: %s\n", errmsg);
	}

	for (;;) {
		unsigned long long now;

		if ((err = poll_once(c, 10)) < 0)
			break;
		if (!reaped) {
			pid_t w = waitpid(pid, &st, WNOHANG);

			/*
			 * init is gone: the container ends with it, at once or,
			 * with --until exit+DURATION, that much later (orphans
			 * may finish their work meanwhile).
			 */
			if (w == pid) {
				reaped = 1;
				if (!c->until_at)
					c->until_at = mono_ns() + (c->opt.until == UNTIL_EXIT ?
								  c->opt.until_delay_ns : 0);
			}
		}
		now = mono_ns();
		if (exiting && !c->until_at)
			c->until_at = now;
		if (c->until_at && now >= c->until_at && !termed) {
			/* the child itself too: it may not have joined its cgroup yet */
			if (!reaped)
				kill(pid, SIGTERM);
			signal_spawned(cgdir, pid, SIGTERM);
			termed = 1;
			deadline_kill = now + GRACE_NS;
		}
		if (termed && now >= deadline_kill)
			signal_spawned(cgdir, pid, SIGKILL);
		if (reaped && spawned_empty(c, cgdir, pid))
			break;
	}
	/* Everything the kernel produced for this boot, then the end row. */
	c->be->ops->drain(c->be);
	if (c->spawned == k && !c->start_written) {
		fprintf(stderr, "collector: %s: the --start probe %s never fired in it; "
			"its start row is the spawn time\n", name,
			marks_start_spec(c->opt.marks));
		write_start(c, k, c->spawn_ts, "spawn", getpid(), "collector", c->opt.command[0]);
		c->start_written = 1;
	}
	if (c->spawned == k) {
		write_end(c, k, mono_ns());
		untrack(c, id);
		container_remove(c, k);
		c->spawned = NULL;
	}
	output_flush(c->out);
	if (!reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	/* with the cgroups the container made in it (nested containers) */
	if (cgdir && remove_cgroup_tree(cgdir, 0) < 0)
		fprintf(stderr, "collector: cannot remove cgroup %s: %s\n", cgdir, strerror(errno));
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (regfail)
		return -1;
	if (n > 0) /* child_fail(): the exec failed (126, 127) or the set-up (1) */
		return *status == EXIT_CANNOT_EXEC || *status == EXIT_NOT_FOUND ? 1 : -1;
	return 0;
}

/*
 * A collector killed by SIGKILL leaves its boottrace.<pid> parent (and the
 * container directories in it, perhaps still running) behind. Remove those
 * whose collector is gone.
 */
static void remove_stale_cgroups(const char *cg2)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(cg2);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (!name_of_dead_collector(d->d_name, "boottrace."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", cg2, d->d_name);
		if (remove_cgroup_tree(path, 0) == 0)
			fprintf(stderr, "collector: removed %s, left by a collector that was killed\n", path);
		else
			fprintf(stderr, "collector: cannot remove %s, left by a collector that was killed: %s\n",
				path, strerror(errno));
	}
	closedir(dir);
}

static int run_spawn(struct collector *c)
{
	char parent[PATH_MAX + 64], name[NAME_MAX_LEN], base[NAME_MAX_LEN];
	const char *slash;
	int i, r = 0, status = 0, err = 0;

	parent[0] = '\0';
	if (c->cg2[0]) {
		remove_stale_cgroups(c->cg2);
		snprintf(parent, sizeof(parent), "%s/boottrace.%d", c->cg2, getpid());
		if (mkdir(parent, 0755) < 0) {
			fprintf(stderr, "collector: cannot create cgroup %s: %s\n", parent, strerror(errno));
			return 1;
		}
	}
	if (c->opt.name) {
		snprintf(base, sizeof(base), "%s", c->opt.name);
	} else {
		slash = strrchr(c->opt.command[0], '/');
		snprintf(base, sizeof(base), "%s", slash ? slash + 1 : c->opt.command[0]);
	}
	for (i = 1; i <= c->opt.runs && !exiting; i++) {
		if (c->opt.runs > 1)
			snprintf(name, sizeof(name), "%s-%d", base, i);
		else
			snprintf(name, sizeof(name), "%s", base);
		r = spawn_one(c, parent, name, &status);
		if (r < 0) {
			err = 1;
			break;
		}
		if (r > 0) /* the command cannot run: 126 or 127, whatever --until says */
			break;
		if (c->opt.runs > 1 || status)
			fprintf(stderr, "collector: %s exited with status %d\n", name, status);
		if (c->out->err)
			break;
	}
	if (parent[0])
		rmdir(parent);
	if (err)
		return 1;
	if (r > 0)
		return status;
	/* Stopped by --until: that is the plan, not a failure. */
	return c->opt.until == UNTIL_EXIT ? status : 0;
}

static unsigned long long deadline(const struct collector *c)
{
	return c->opt.duration > 0 ? mono_ns() + (unsigned long long)(c->opt.duration * 1e9) : 0;
}

static int run_watch(struct collector *c)
{
	unsigned long long end = deadline(c);

	while (!exiting) {
		if (poll_once(c, 50) < 0)
			return 1;
		if (end && mono_ns() >= end)
			break;
	}
	c->be->ops->drain(c->be);
	return 0;
}

/* The parent pid of @pid from /proc/PID/stat, or -1. */
static pid_t ppid_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm is in parentheses and may hold anything: skip to the last ')' */
	p = strrchr(buf, ')');
	if (!p || strlen(p) < 5)
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10);
}

/*
 * pidtree --pid: register every thread of @root and of its descendants.
 * Twice over, so that a task forked by a not-yet-registered parent while
 * we walked is caught the second time (afterwards the kernel follows).
 */
static int track_tree(struct collector *c, pid_t root, unsigned long long key)
{
	pid_t *pids = NULL, *ppids = NULL, *in = NULL;
	size_t n = 0, cap = 0, nin, i, j;
	int pass, changed, tracked = 0;
	struct dirent *d;
	DIR *proc;

	for (pass = 0; pass < 2; pass++) {
		n = 0;
		proc = opendir("/proc");
		if (!proc)
			return -errno;
		while ((d = readdir(proc))) {
			pid_t pid = (pid_t)strtol(d->d_name, NULL, 10);

			if (pid <= 0)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				pids = realloc(pids, cap * sizeof(*pids));
				ppids = realloc(ppids, cap * sizeof(*ppids));
				if (!pids || !ppids)
					break;
			}
			pids[n] = pid;
			ppids[n++] = ppid_of(pid);
		}
		closedir(proc);
		if (!pids || !ppids)
			break;
		/* the descendants of root: a fixpoint over the parent links */
		free(in);
		in = calloc(n + 1, sizeof(*in));
		if (!in)
			break;
		in[0] = root;
		nin = 1;
		do {
			changed = 0;
			for (i = 0; i < n; i++) {
				int is_in = 0, parent_in = 0;

				for (j = 0; j < nin; j++) {
					is_in |= in[j] == pids[i];
					parent_in |= in[j] == ppids[i];
				}
				if (!is_in && parent_in) {
					in[nin++] = pids[i];
					changed = 1;
				}
			}
		} while (changed);
		for (i = 0; i < nin; i++) {
			char path[64];
			DIR *tasks;

			snprintf(path, sizeof(path), "/proc/%d/task", in[i]);
			tasks = opendir(path);
			while (tasks && (d = readdir(tasks))) {
				pid_t tid = (pid_t)strtol(d->d_name, NULL, 10);

				if (tid > 0 && c->be->ops->track_task(c->be, tid, key) == 0)
					tracked++;
			}
			if (tasks)
				closedir(tasks);
		}
	}
	free(pids);
	free(ppids);
	free(in);
	return tracked ? 0 : -ESRCH;
}

/* The cgroup v2 path of @pid ("/" for the root), from /proc/PID/cgroup. */
static int cgroup_path_of(pid_t pid, char *out, size_t n)
{
	char path[64], line[PATH_MAX + 16];
	FILE *f;
	int found = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, n, "%s", line + 3);
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

/* --pid PID: trace an existing process tree until it ends. */
static int run_attach(struct collector *c)
{
	char rel[PATH_MAX], cgdir[2 * PATH_MAX], base[NAME_MAX_LEN], name[NAME_MAX_LEN];
	unsigned long long id, end = deadline(c);
	struct container *k;
	int err;

	snprintf(cgdir, sizeof(cgdir), "/proc/%d", c->opt.pid);
	if (access(cgdir, F_OK) < 0) {
		fprintf(stderr, "collector: no process %d\n", c->opt.pid);
		return 1;
	}
	if (c->mode == BT_MODE_CGROUP) {
		if (cgroup_path_of(c->opt.pid, rel, sizeof(rel)) < 0)
			return 1;
		snprintf(cgdir, sizeof(cgdir), "%s%s", c->cg2, rel);
		if (cgroup_id_of(cgdir, &id) < 0 || track(c, id) < 0) {
			fprintf(stderr, "collector: cannot track cgroup %s: %s\n", cgdir, strerror(errno));
			return 1;
		}
		container_name_from_path(rel, base, sizeof(base));
	} else {
		id = ++c->next_key;
		snprintf(base, sizeof(base), "pid-%d", c->opt.pid);
	}
	unique_name(c, base, name, sizeof(name));
	k = container_add(c, id, NULL, name);
	if (!k)
		return 1;
	write_start(c, k, mono_ns(), "attach", c->opt.pid, "collector",
		    c->mode == BT_MODE_CGROUP ? rel : NULL);
	if (c->mode == BT_MODE_PIDTREE && (err = track_tree(c, c->opt.pid, id)) < 0) {
		fprintf(stderr, "collector: cannot register process %d: %s\n", c->opt.pid, strerror(-err));
		return 1;
	}
	/* pidtree: on_gone() removes the container with its last task */
	while (!exiting && c->ncontainers) {
		if (poll_once(c, 50) < 0)
			return 1;
		if (end && mono_ns() >= end)
			break;
		if (c->mode == BT_MODE_CGROUP && cgroup_populated(cgdir) == 0)
			break;
	}
	c->be->ops->drain(c->be);
	if (c->ncontainers) {
		write_end(c, k, mono_ns());
		untrack(c, id);
		container_remove(c, k);
	}
	return 0;
}

/*
 * Loading tracing programs needs CAP_BPF and CAP_PERFMON (5.8; before,
 * CAP_SYS_ADMIN); making cgroups and task storage for other users' tasks
 * need CAP_SYS_ADMIN. Name what is missing rather than fail at load.
 */
static int check_capabilities(void)
{
	static const struct { int cap; const char *name; } need[] = {
		{ 39 /* CAP_BPF */, "CAP_BPF" },
		{ 38 /* CAP_PERFMON */, "CAP_PERFMON" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	};
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	char missing[128] = "";
	size_t i;

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;	/* cannot tell: let the load say */
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int cap = need[i].cap;

		if (!(d[cap / 32].effective & (1U << (cap % 32))))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? ", " : "", need[i].name);
	}
	if (!missing[0])
		return 0;
	fprintf(stderr, "collector: missing capabilities: %s; run it as root (sudo collector ...)\n",
		missing);
	return -1;
}

/*
 * Which attribution: --mode, or (auto) cgroup mode when the kernel has BTF
 * (the modern object; bpf_get_current_cgroup_id is 4.18) and the container
 * has a cgroup v2 node of its own: spawn and watch make or see one when
 * cgroup2 is mounted; --pid checks /proc/PID/cgroup. Otherwise pidtree.
 */
static int select_mode(struct collector *c, int have_btf)
{
	char rel[PATH_MAX] = "";
	int in_root = 0;

	if (c->opt.pid > 0)
		in_root = c->cg2[0] && cgroup_path_of(c->opt.pid, rel, sizeof(rel)) == 0 &&
			  strcmp(rel, "/") == 0;
	if (strcmp(c->opt.mode, "auto") == 0) {
		c->mode = have_btf && c->cg2[0] && !in_root && strcmp(c->opt.object, "legacy") ?
			  BT_MODE_CGROUP : BT_MODE_PIDTREE;
		return 0;
	}
	if (strcmp(c->opt.mode, "pidtree") == 0) {
		c->mode = BT_MODE_PIDTREE;
		return 0;
	}
	c->mode = BT_MODE_CGROUP;
	if (!have_btf) {
		fprintf(stderr, "collector: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"cgroup mode needs it; --mode pidtree is for such kernels\n");
		return -1;
	}
	if (!c->cg2[0]) {
		fprintf(stderr, "collector: no cgroup2 mount in /proc/self/mounts: cgroup mode needs one "
			"(mount -t cgroup2 none /sys/fs/cgroup/unified); --mode pidtree works without\n");
		return -1;
	}
	if (strcmp(c->opt.object, "legacy") == 0) {
		fprintf(stderr, "collector: the legacy BPF object has no cgroup mode; use --mode pidtree\n");
		return -1;
	}
	if (in_root) {
		fprintf(stderr, "collector: process %d is in the cgroup v2 root, shared with the whole host: "
			"cgroup mode cannot tell it apart; use --mode pidtree\n", c->opt.pid);
		return -1;
	}
	return 0;
}

/*
 * The modern object where the kernel has BTF, else the legacy one. In auto
 * mode a modern object that does not load falls back to the legacy one in
 * pidtree mode, with one line saying why.
 */
static int open_backend(struct collector *c, struct backend_config *cfg, int have_btf)
{
	int err;

	if (strcmp(c->opt.object, "legacy") != 0 && have_btf) {
		err = backend_modern_open(cfg, &c->be);
		if (err == 0 || strcmp(c->opt.object, "modern") == 0 ||
		    strcmp(c->opt.mode, "cgroup") == 0)
			return err;
		fprintf(stderr, "collector: the modern BPF object did not load (%s); "
			"using the legacy object in pidtree mode\n", strerror(-err));
		c->mode = cfg->mode = BT_MODE_PIDTREE;
	} else if (strcmp(c->opt.object, "modern") == 0) {
		fprintf(stderr, "collector: the modern BPF object needs kernel BTF "
			"(/sys/kernel/btf/vmlinux), which this kernel lacks\n");
		return -ENOTSUP;
	}
	/* before loading anything: what the legacy object cannot attach */
	if (marks_count(c->opt.marks)) {
		char err[4096];

		if (marks_legacy_check(c->opt.marks, err, sizeof(err)) < 0) {
			fprintf(stderr, "collector: %s\n", err);
			c->usage_error = 1;
			return -EINVAL;
		}
	}
	return backend_legacy_open(cfg, &c->be);
}

int main(int argc, char **argv)
{
	struct collector c = { 0 };
	struct backend_config cfg = { 0 };
	struct sigaction sa = { 0 };
	unsigned long long lost;
	int fd = STDOUT_FILENO, ret = 1, have_btf;
	size_t i;

	/* 1. options and the host */
	c.started_ns = mono_ns();
	parse_args(argc, argv, &c.opt);
	libbpf_set_print(c.opt.verbose ? libbpf_print : libbpf_quiet);
	if (check_capabilities() < 0)
		return 1;
	have_btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	/*
	 * The modern object attaches uprobes through the uprobe PMU (4.17+);
	 * the legacy one through tracefs uprobe_events, which it checks itself
	 * (4.15 has no PMU).
	 */
	if (marks_count(c.opt.marks) && have_btf && strcmp(c.opt.object, "legacy") &&
	    !marks_uprobes_supported(NULL)) {
		fprintf(stderr, "collector: this kernel has no uprobes (/sys/bus/event_source/devices/uprobe "
			"is missing: CONFIG_UPROBE_EVENTS): --mark and --start need them\n");
		goto cleanup;
	}
	if (cgroup2_mount(c.cg2, sizeof(c.cg2)) < 0)
		c.cg2[0] = '\0';
	if (select_mode(&c, have_btf) < 0)
		return 1;

	/* 2. configure, load and attach the BPF programs */
	cfg.mode = c.mode;
	cfg.watch = !c.opt.command && c.opt.pid <= 0;
	cfg.buffer_mb = c.opt.ringbuf_mb;
	cfg.marks = marks_count(c.opt.marks) > 0;
	cfg.start_mark = marks_have_start(c.opt.marks);
	cfg.nmarks = (unsigned int)marks_count(c.opt.marks);
	for (i = 0; i < marks_count(c.opt.marks) && i < 32; i++)
		if (marks_get(c.opt.marks, i)->start)
			cfg.mark_start_mask |= 1U << i;
	cfg.verbose = c.opt.verbose;
	cfg.started_ns = c.started_ns;
	cfg.on_event = on_event;
	cfg.ctx = &c;
	if (configure_syscalls(&cfg, c.opt.syscalls) < 0)
		return 2;
	if (open_backend(&c, &cfg, have_btf) < 0) {
		if (c.usage_error)
			ret = 2;
		goto cleanup;
	}
	/* 3. the marks: uprobes and USDT probes in the binaries they name */
	if (marks_attach(c.be, c.opt.marks) < 0)
		goto cleanup;
	c.status_line = isatty(STDERR_FILENO) && !c.opt.verbose;

	/* 4. output */
	if (c.opt.output && strcmp(c.opt.output, "-") != 0) {
		fd = open(c.opt.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0) {
			fprintf(stderr, "collector: cannot open %s: %s\n", c.opt.output, strerror(errno));
			goto cleanup;
		}
	} else {
		c.stdout_is_tsv = 1;
	}
	c.out = output__new(fd, 1 << 20);
	if (!c.out) {
		fprintf(stderr, "collector: cannot set up the output: %s\n", strerror(errno));
		goto cleanup;
	}
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	write_header(&c);

	/* 5. trace */
	ret = c.opt.command ? run_spawn(&c) : c.opt.pid > 0 ? run_attach(&c) : run_watch(&c);

	/* 6. the trailer: what was lost is counted, never hidden */
	show_status(&c, 1);
	lost = lost_events(&c);
	{
		char t[96];
		int n = snprintf(t, sizeof(t), "# lost=%llu events=%llu\n", lost,
				 (unsigned long long)c.out->rows);

		output_raw(c.out, t, (size_t)n);
	}
	if (output_flush(c.out) < 0) {
		if (c.out->err == EPIPE) {
			fprintf(stderr, "collector: the reader closed the output; stopped\n");
			ret = 0;
		} else {
			fprintf(stderr, "collector: cannot write %s: %s\n",
				c.opt.output ? c.opt.output : "stdout", strerror(c.out->err));
			ret = 1;
		}
	}
	if (lost)
		fprintf(stderr, "collector: lost %llu events (ring buffer full); try --ringbuf-mb\n", lost);
	if (c.opt.verbose)
		fprintf(stderr, "collector: %llu events of no container followed (stray)\n", c.stray);

cleanup:
	output__free(c.out);
	marks__free(c.opt.marks);	/* before the backend: USDT links use its object */
	if (c.be)
		c.be->ops->destroy(c.be);
	for (i = 0; i < c.ncontainers; i++)
		free(c.containers[i]);
	free(c.containers);
	free(c.index);
	for (i = 0; i < c.nnames; i++)
		free(c.names[i].name);
	free(c.names);
	if (fd != STDOUT_FILENO)
		close(fd);
	return ret;
}
