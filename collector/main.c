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
#include "boottrace.skel.h"
#include "collector/cgroup.h"
#include "collector/names.h"
#include "collector/output.h"
#include "common/tsv.h"

#define NAME_MAX_LEN 256
#define GRACE_NS (2ULL * 1000000000ULL)

enum until_kind { UNTIL_EXIT, UNTIL_EXEC, UNTIL_LISTEN };

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
	int verbose;
	char **command;
};

/* A container, or a cgroup nested in one (then top points at it). */
struct container {
	unsigned long long cgid;
	struct container *top;
	char name[NAME_MAX_LEN];
};

/* How often a container name was used in this run. */
struct name_use {
	char *name;
	unsigned int uses;
};

struct collector {
	struct options opt;
	struct boottrace_bpf *skel;
	struct ring_buffer *rb;
	struct output *out;
	char cg2[PATH_MAX];
	struct container **containers;
	size_t ncontainers, capcontainers;
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
	unsigned long long until_at;	/* when to stop it, 0: not yet */
};

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
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
"    -o, --output <file>        write the TSV to <file> (a FIFO works); default stdout\n"
"    -m, --mode <mode>          auto, cgroup or pidtree (default auto)\n"
"    -s, --syscalls <list>      all, none, or a comma list of names (default all)\n"
"    -d, --duration <sec>       stop after <sec> seconds\n"
"    -c, --cgroup <glob>        watch: only cgroups whose path (relative to the\n"
"                               cgroup2 mount) matches <glob>\n"
"    -u, --until <when>         spawn: stop the container at exec, listen or exit,\n"
"                               optionally +<duration> later (e.g. listen+500ms)\n"
"    -n, --runs <n>             spawn: boot <n> times, one container each\n"
"        --name <name>          spawn: container name (default: the command's\n"
"                               basename); runs are named <name>-1..<name>-<n>\n"
"        --unshare <ns,...>     spawn: new namespaces: pid,mount,net,uts,ipc\n"
"        --ringbuf-mb <mb>      ring buffer size in MiB (default 8)\n"
"    -v, --verbose              libbpf's messages\n"
"    -h, --help                 this text\n"
"    -V, --version              the version\n"
"\n"
"EXAMPLES\n"
"    sudo collector > boot.tsv                     # every container that starts\n"
"    sudo collector -c '/system.slice/docker-*' -d 60 -o boot.tsv\n"
"    sudo collector --runs 5 --until listen -o boot.tsv -- ./server\n"
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
	while ((c = getopt_long(argc, argv, "+o:m:s:d:c:u:n:vhV", longopts, NULL)) != -1) {
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
				usage_error("--until takes exec, listen or exit[+DURATION], not '%s'", optarg);
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
			if (*end || o->ringbuf_mb < 1 || o->ringbuf_mb > 4096 ||
			    (o->ringbuf_mb & (o->ringbuf_mb - 1)))
				usage_error("--ringbuf-mb takes a power of two from 1 to 4096");
			break;
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
}

/* --- containers ------------------------------------------------------------ */

static struct container *container_find(struct collector *c, unsigned long long cgid)
{
	size_t i;

	if (c->last && c->last->cgid == cgid)
		return c->last;
	/* Most events come from the newest containers: search from the end. */
	for (i = c->ncontainers; i-- > 0;)
		if (c->containers[i]->cgid == cgid)
			return c->last = c->containers[i];
	return NULL;
}

static struct container *container_add(struct collector *c, unsigned long long cgid,
				       struct container *top, const char *name)
{
	struct container *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
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
	return k;
}

static void container_remove(struct collector *c, struct container *k)
{
	size_t i;

	for (i = 0; i < c->ncontainers; i++) {
		if (c->containers[i] == k) {
			if (c->last == k)
				c->last = NULL;
			memmove(c->containers + i, c->containers + i + 1,
				(c->ncontainers - i - 1) * sizeof(*c->containers));
			c->ncontainers--;
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

static void filter_add(struct collector *c, unsigned long long id)
{
	__u64 *slot = &c->skel->bss->filter[id & (BT_FILTER_SLOTS - 1)];

	if (__sync_val_compare_and_swap(slot, 0, id) != 0 && *slot != id)
		*slot = BT_FILTER_SHARED;
}

static void filter_del(struct collector *c, unsigned long long id)
{
	__u64 *slot = &c->skel->bss->filter[id & (BT_FILTER_SLOTS - 1)];

	__sync_val_compare_and_swap(slot, id, 0);
}

static int track(struct collector *c, unsigned long long id)
{
	__u8 one = 1;

	if (bpf_map__update_elem(c->skel->maps.tracked, &id, sizeof(id), &one,
				 sizeof(one), BPF_ANY) < 0)
		return -errno;
	filter_add(c, id);
	return 0;
}

static void untrack(struct collector *c, unsigned long long id)
{
	bpf_map__delete_elem(c->skel->maps.tracked, &id, sizeof(id), 0);
	filter_del(c, id);
}

/* --- rows ------------------------------------------------------------------ */

static void row_from_hdr(struct row *r, const struct bt_event_hdr *h,
			 const struct container *k, const char *event)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = h->ts_ns;
	r->container = field_str(k->top->name);
	r->cgroup_id = h->cgroup_id;
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
	r.cgroup_id = k->cgid;
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
	r.cgroup_id = k->cgid;
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
		filter_del(c, k->cgid);
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

static void until_reached(struct collector *c, struct container *k, enum until_kind what)
{
	if (c->spawned && c->spawned == k->top && c->opt.until == what && !c->until_at)
		c->until_at = now_ns() + c->opt.until_delay_ns;
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

		row_from_hdr(&r, h, k, "syscall");
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

		row_from_hdr(&r, h, k, "fork");
		r.name = field_str(e->is_thread ? "thread" : "process");
		output_row(c->out, &r);
		break;
	}
	case BT_EV_EXEC: {
		const struct bt_exec_event *e = data;

		row_from_hdr(&r, h, k, "exec");
		r.detail = field_strn(e->filename, sizeof(e->filename));
		output_row(c->out, &r);
		until_reached(c, k, UNTIL_EXEC);
		break;
	}
	case BT_EV_EXIT: {
		const struct bt_exit_event *e = data;

		row_from_hdr(&r, h, k, "exit");
		r.has_ret = true;
		/* as a shell reports it: the exit status, or 128 + signal */
		r.ret = WIFSIGNALED(e->exit_code) ? 128 + WTERMSIG(e->exit_code) :
						     WEXITSTATUS(e->exit_code);
		output_row(c->out, &r);
		break;
	}
	}
	return 0;
}

/* --- set-up ------------------------------------------------------------------ */

static int configure_syscalls(struct boottrace_bpf *skel, const char *list)
{
	char buf[4096], *tok, *save = NULL;

	if (strcmp(list, "all") == 0)
		return 0;
	skel->rodata->trace_all_syscalls = false;
	if (strcmp(list, "none") == 0) {
		skel->rodata->trace_no_syscalls = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int nr = syscall_nr(tok);

		if (nr < 0 || nr >= BT_MAX_SYSCALLS) {
			fprintf(stderr, "collector: unknown syscall '%s'\n", tok);
			return -1;
		}
		skel->rodata->syscall_mask[nr / 64] |= 1ULL << (nr % 64);
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
	output_meta(c->out, "mode", "cgroup");
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
	int ncpu = libbpf_num_possible_cpus();
	unsigned long long total = 0;
	__u64 *v;
	__u32 zero = 0;
	int i;

	if (ncpu <= 0)
		return 0;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return 0;
	if (bpf_map__lookup_elem(c->skel->maps.lost, &zero, sizeof(zero), v,
				 sizeof(*v) * (size_t)ncpu, 0) == 0)
		for (i = 0; i < ncpu; i++)
			total += v[i];
	free(v);
	return total;
}

static unsigned long long lost_events(struct collector *c);

/* One line on stderr, rewritten each second, like perf top's or dd's. */
static void show_status(struct collector *c, int final)
{
	unsigned long long now = now_ns(), rows = c->out->rows;
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
	int err = ring_buffer__poll(c->rb, timeout_ms);

	/*
	 * Wake-ups are batched (the BPF side only wakes us when wakeup_bytes
	 * wait), so the poll may time out with data there: consume it.
	 */
	if (err >= 0 || err == -EINTR)
		err = ring_buffer__consume(c->rb);
	if (err < 0 && err != -EINTR) {
		fprintf(stderr, "collector: ring buffer poll failed: %s\n", strerror(-err));
		return err;
	}
	if (output_flush(c->out) < 0)
		return -c->out->err;
	show_status(c, 0);
	return 0;
}

/* --- spawn mode ---------------------------------------------------------- */

static void child_fail(int fd, const char *what)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));

	if (write(fd, msg, (size_t)n) < 0) { /* nothing left to do */ }
	_exit(127);
}

/*
 * The container's first process: joins the cgroup, takes its namespaces,
 * execs. Errors go back through @errfd (close-on-exec: EOF means exec'd).
 */
static void child_main(struct collector *c, const char *cgdir, int errfd)
{
	char self[32];

	snprintf(self, sizeof(self), "%d", getpid());
	errno = -cgroup_write(cgdir, "cgroup.procs", self);
	if (errno)
		child_fail(errfd, "cannot join the container's cgroup");
	if (c->stdout_is_tsv && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		child_fail(errfd, "dup2");
	if (c->opt.unshare_flags && unshare(c->opt.unshare_flags) < 0)
		child_fail(errfd, "unshare");
	if ((c->opt.unshare_flags & CLONE_NEWNS) &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(errfd, "cannot make / private in the new mount namespace");
	if (c->opt.unshare_flags & CLONE_NEWPID) {
		/* The new pid namespace takes our next child as its pid 1. */
		pid_t pid = fork();
		int st;

		if (pid < 0)
			child_fail(errfd, "fork");
		if (pid > 0) {
			close(errfd);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	execvp(c->opt.command[0], c->opt.command);
	child_fail(errfd, c->opt.command[0]);
}

static int spawn_one(struct collector *c, const char *parent, const char *name, int *status)
{
	char cgdir[PATH_MAX + NAME_MAX_LEN], errmsg[512];
	unsigned long long id, deadline_kill = 0;
	struct container *k;
	int pipefd[2], err, st = 0, reaped = 0, termed = 0;
	ssize_t n;
	pid_t pid;

	snprintf(cgdir, sizeof(cgdir), "%s/%s", parent, name);
	if (mkdir(cgdir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "collector: cannot create cgroup %s: %s\n", cgdir, strerror(errno));
		return -1;
	}
	if (cgroup_id_of(cgdir, &id) < 0 || track(c, id) < 0) {
		fprintf(stderr, "collector: cannot register cgroup %s: %s\n", cgdir, strerror(errno));
		rmdir(cgdir);
		return -1;
	}
	k = container_add(c, id, NULL, name);
	if (!k)
		return -1;
	c->spawned = k;
	c->until_at = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;

	/* The start row comes first: before the container runs at all. */
	write_start(c, k, now_ns(), "spawn", getpid(), "collector", c->opt.command[0]);
	output_flush(c->out);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "collector: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child_main(c, cgdir, pipefd[1]);
	}
	close(pipefd[1]);
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

			if (w == pid) {
				reaped = 1;
				if (c->opt.until == UNTIL_EXIT && !c->until_at)
					c->until_at = now_ns() + c->opt.until_delay_ns;
			}
		}
		now = now_ns();
		if (exiting && !c->until_at)
			c->until_at = now;
		if (c->until_at && now >= c->until_at && !termed) {
			cgroup_signal(cgdir, SIGTERM);
			termed = 1;
			deadline_kill = now + GRACE_NS;
		}
		if (termed && now >= deadline_kill) {
			if (cgroup_write(cgdir, "cgroup.kill", "1") < 0)
				cgroup_signal(cgdir, SIGKILL);
		}
		if (reaped && cgroup_populated(cgdir) == 0)
			break;
		if (reaped && !termed) {
			/* init is gone: the container ends with it */
			cgroup_signal(cgdir, SIGKILL);
		}
	}
	/* Everything the kernel produced for this boot, then the end row. */
	ring_buffer__consume(c->rb);
	if (c->spawned == k) {
		write_end(c, k, now_ns());
		untrack(c, id);
		container_remove(c, k);
		c->spawned = NULL;
	}
	output_flush(c->out);
	if (!reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	while (rmdir(cgdir) < 0 && errno == EBUSY)
		usleep(1000);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (n > 0)
		return -1;
	return 0;
}

/*
 * A collector killed by SIGKILL leaves its boottrace.<pid> parent (and the
 * container directories in it) behind. Remove those whose collector is
 * gone; a directory that still has tasks stays (rmdir refuses it).
 */
static void remove_stale_cgroups(const char *cg2)
{
	char path[PATH_MAX + 600];
	struct dirent *d, *e;
	DIR *dir = opendir(cg2), *sub;
	long pid;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "boottrace.", 10) != 0)
			continue;
		pid = strtol(d->d_name + 10, NULL, 10);
		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", cg2, d->d_name);
		sub = opendir(path);
		while (sub && (e = readdir(sub))) {
			char child[sizeof(path) + 300];

			if (e->d_type != DT_DIR || e->d_name[0] == '.')
				continue;
			snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
			rmdir(child);
		}
		if (sub)
			closedir(sub);
		if (rmdir(path) == 0)
			fprintf(stderr, "collector: removed %s, left by a collector that was killed\n", path);
	}
	closedir(dir);
}

static int run_spawn(struct collector *c)
{
	char parent[PATH_MAX + 64], name[NAME_MAX_LEN], base[NAME_MAX_LEN];
	const char *slash;
	int i, status = 0, err = 0;

	remove_stale_cgroups(c->cg2);
	snprintf(parent, sizeof(parent), "%s/boottrace.%d", c->cg2, getpid());
	if (mkdir(parent, 0755) < 0) {
		fprintf(stderr, "collector: cannot create cgroup %s: %s\n", parent, strerror(errno));
		return 1;
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
		if (spawn_one(c, parent, name, &status) < 0) {
			err = 1;
			break;
		}
		if (c->opt.runs > 1 || status)
			fprintf(stderr, "collector: %s exited with status %d\n", name, status);
		if (c->out->err)
			break;
	}
	rmdir(parent);
	if (err)
		return 1;
	/* Stopped by --until: that is the plan, not a failure. */
	return c->opt.until == UNTIL_EXIT ? status : 0;
}

static int run_watch(struct collector *c)
{
	unsigned long long end = c->opt.duration > 0 ?
		now_ns() + (unsigned long long)(c->opt.duration * 1e9) : 0;
	int err;

	while (!exiting) {
		if ((err = poll_once(c, 50)) < 0)
			return 1;
		if (end && now_ns() >= end)
			break;
	}
	ring_buffer__consume(c->rb);
	return 0;
}

int main(int argc, char **argv)
{
	struct collector c = { 0 };
	struct sigaction sa = { 0 };
	unsigned long long lost;
	int fd = STDOUT_FILENO, err, ret = 1;
	size_t i;

	/* 1. options and the host */
	c.started_ns = now_ns();
	parse_args(argc, argv, &c.opt);
	libbpf_set_print(c.opt.verbose ? libbpf_print : libbpf_quiet);
	if (strcmp(c.opt.mode, "pidtree") == 0) {
		fprintf(stderr, "collector: --mode pidtree is not implemented in this version\n");
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "collector: need root (CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN) to load BPF programs\n");
		return 1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		fprintf(stderr, "collector: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"cgroup mode needs it; --mode pidtree is for such kernels\n");
		return 1;
	}
	if (cgroup2_mount(c.cg2, sizeof(c.cg2)) < 0) {
		fprintf(stderr, "collector: no cgroup2 mount in /proc/self/mounts: "
			"mount one (mount -t cgroup2 none /sys/fs/cgroup/unified) or use --mode pidtree\n");
		return 1;
	}

	/* 2. open and configure the BPF object */
	c.skel = boottrace_bpf__open();
	if (!c.skel) {
		fprintf(stderr, "collector: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	c.skel->rodata->watch_mkdir = c.opt.command == NULL;
	c.skel->rodata->wakeup_bytes = (c.opt.ringbuf_mb << 20) / 16;
	if (configure_syscalls(c.skel, c.opt.syscalls) < 0) {
		ret = 2;
		goto cleanup;
	}
	err = bpf_map__set_max_entries(c.skel->maps.events, (__u32)(c.opt.ringbuf_mb << 20));
	if (err)
		goto cleanup;

	/* 3. load and attach */
	if (c.opt.verbose)
		fprintf(stderr, "collector: opened in %.1f ms\n", (now_ns() - c.started_ns) / 1e6);
	err = boottrace_bpf__load(c.skel);
	if (c.opt.verbose)
		fprintf(stderr, "collector: loaded in %.1f ms\n", (now_ns() - c.started_ns) / 1e6);
	if (err) {
		fprintf(stderr, "collector: cannot load the BPF programs: %s (run with -v for libbpf's log)\n",
			strerror(-err));
		goto cleanup;
	}
	err = boottrace_bpf__attach(c.skel);
	if (err) {
		fprintf(stderr, "collector: cannot attach the BPF programs: %s\n", strerror(-err));
		goto cleanup;
	}

	if (c.opt.verbose)
		fprintf(stderr, "collector: attached in %.1f ms\n", (now_ns() - c.started_ns) / 1e6);
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
	c.rb = ring_buffer__new(bpf_map__fd(c.skel->maps.events), on_event, &c, NULL);
	if (!c.out || !c.rb) {
		fprintf(stderr, "collector: cannot set up the output: %s\n", strerror(errno));
		goto cleanup;
	}
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	write_header(&c);

	/* 5. trace */
	ret = c.opt.command ? run_spawn(&c) : run_watch(&c);

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

cleanup:
	ring_buffer__free(c.rb);
	output__free(c.out);
	boottrace_bpf__destroy(c.skel);
	for (i = 0; i < c.ncontainers; i++)
		free(c.containers[i]);
	free(c.containers);
	for (i = 0; i < c.nnames; i++)
		free(c.names[i].name);
	free(c.names);
	if (fd != STDOUT_FILENO)
		close(fd);
	return ret;
}
