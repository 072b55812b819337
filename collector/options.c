// SPDX-License-Identifier: BSD-2-Clause
/* The collector's command line: see options.h. */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/serve/http.h"
#include "collector/kernel/marks.h"
#include "collector/options.h"

void options_usage(FILE *f)
{
	fprintf(f,
"usage: collector [<options>] [-- <command> [<arg>...]]\n"
"   or: collector -c <glob> [<options>] -- <client> [<arg>...]\n"
"\n"
"Trace every syscall of every process of a container, from its first\n"
"instruction, and write one TSV row per event (see docs/tsv-format.md).\n"
"Without <command>: watch every container that starts while the collector\n"
"runs (a new cgroup v2 directory, once a task enters it; a runtime's parent\n"
"cgroups never are). With <command>: run it as a container (a fresh cgroup\n"
"v2 directory, optional namespaces) and trace it. With -c and a command:\n"
"the command is a runtime's client (docker run ...), run untraced; each\n"
"run's container is the new cgroup matching <glob>, timed from the client's\n"
"spawn.\n"
"\n"
"Modes: cgroup attributes by cgroup v2 id (kernel >= 4.18);\n"
"pidtree follows the process tree from the container's first process\n"
"(kernel 4.15, cgroup-v1 hosts); in watch mode a container is then a\n"
"process that makes a new pid or mount namespace. auto picks cgroup when\n"
"it can.\n"
"\n"
"    -o, --output <file>        write the TSV to <file> (a FIFO works); default stdout\n"
"    -m, --mode <mode>          auto, cgroup or pidtree (default auto)\n"
"    -s, --syscalls <list>      all, none, or a comma list of names (default all)\n"
"    -d, --duration <time>      stop after <time> (seconds, or 500ms, 2s, 100us), in\n"
"                               every mode: the whole run's limit; spawn, client: the\n"
"                               boot in progress is stopped (it never reached its\n"
"                               phase: exit 124) and no more runs start\n"
"    -c, --cgroup <glob>        only containers whose cgroup path (relative to the\n"
"                               cgroup2 mount) matches <glob>: '/docker/*';\n"
"                               with a command, client mode\n"
"    -u, --until <when>         spawn, client: stop the container at exec, listen,\n"
"                               end (default: its last process's exit, as analyze's\n"
"                               phase end; exit is the same) or mark:<label> (the\n"
"                               first --mark with that label), optionally +<duration>\n"
"                               later (e.g. listen+500ms)\n"
"        --timeout <time>       spawn, client: a boot that has not reached --until's\n"
"                               phase <time> after its start is stopped, named on\n"
"                               stderr and counted (exit 124); the next run goes on\n"
"        --mark <probe>[=<label>]\n"
"                               a milestone: a `mark` row named <label> each time\n"
"                               <probe> fires in a traced container; <probe> is\n"
"                               uprobe:<binary>:<symbol>, uretprobe:<binary>:<symbol>\n"
"                               or usdt:<binary>:<provider>:<name>; <binary> a path,\n"
"                               a program on PATH or a library (libc); repeatable;\n"
"                               <label> defaults to <symbol> or <name>; the legacy\n"
"                               and compat objects take 8 at most, USDT without\n"
"                               semaphores\n"
"        --start <probe>        the container starts when <probe> (as for --mark)\n"
"                               fired in the runtime thread it descends from (the\n"
"                               time is inherited across fork); spawn: the start\n"
"                               row, the spawn time if it never fires; watch,\n"
"                               --pid: a second start row\n"
"    -n, --runs <n>             spawn, client: boot <n> times, one container each\n"
"        --name <name>          spawn: container name (default: the command's\n"
"                               basename); runs are named <name>-1..<name>-<n>\n"
"        --unshare <ns,...>     spawn: new namespaces: pid,mount,net,uts,ipc\n"
"        --user <user>          spawn: run the command as <user>, without root\n"
"    -p, --pid <pid>            trace the existing process <pid> and its\n"
"                               descendants until they end (like strace -p)\n"
"        --root-exec <glob>     pidtree watch: only containers whose runtime's\n"
"                               comm or command line matches <glob>\n"
"        --ringbuf-mb <mb>      ring buffer size in MiB (default 8, 32 when user\n"
"                               stacks are copied: --profile, off-CPU stacks);\n"
"                               with the legacy or compat object, the perf\n"
"                               buffer per CPU (default 8)\n"
"        --object <obj>         auto, modern, compat or legacy BPF object (default\n"
"                               auto: modern if it loads, else compat in cgroup\n"
"                               mode (kernel >= 4.18), else legacy in pidtree mode)\n"
"        --sched <on|off|host>  scheduler rows (default on): one `sched` row per\n"
"                               off-CPU interval of a traced task, with its state,\n"
"                               the wait for a CPU, the waker and the CPU's holder;\n"
"                               client mode: and host rows (fork, exec, exit, sched\n"
"                               of every task outside the containers) during each\n"
"                               boot; host: host rows for the whole trace (a busy\n"
"                               host pays for every task switch)\n"
"        --offcpu-stacks <on|off>\n"
"                               with --sched on (modern object; default on with a\n"
"                               command, off in watch mode, whose memory stays flat): a\n"
"                               traced task's stacks each time it blocks (S, D),\n"
"                               as --profile-unwind walks a sample's; its sched\n"
"                               row names them (stack=ID): analyze's critical path\n"
"                               and --profile=offcpu name the code that waited\n"
"        --profile[=<hz>]       sample the traced tasks' stacks <hz> times a second\n"
"                               of CPU (default 99): `stack` and `sample` rows for\n"
"                               analyze --profile (modern and compat objects; at\n"
"                               999 Hz about 3.5%% of a busy task's CPU, as perf's)\n"
"        --spans <on|off|host>  interpreter spans (default on, modern object): one\n"
"                               `span` row per Ruby require and load, Python\n"
"                               import and JVM class load and static initializer,\n"
"                               from their USDT probes (analyze --by span), in the\n"
"                               interpreters the containers exec; host: and the\n"
"                               host's, attached at start (their first requires\n"
"                               never missed; detaching them at exit takes ~2 s)\n"
"        --profile-unwind <fp|dwarf|auto>\n"
"                               how user stacks are walked: fp, frame pointers\n"
"                               (bpf_get_stack); dwarf, the top of the stack copied\n"
"                               and unwound by the files' CFI (.eh_frame,\n"
"                               .debug_frame) as perf record --call-graph dwarf;\n"
"                               auto (default): dwarf, but fp for Go programs\n"
"                               (modern object; the compat object walks fp)\n"
"        --profile-stack <bytes>\n"
"                               user stack copied per sample for dwarf (default\n"
"                               16384; 1024 to 65536; K suffix: KiB)\n"
"        --rotate <size>        a new file each <size> bytes (K, M, G: KiB, MiB, GiB;\n"
"                               64K at least): -o <file> is renamed <file>.<n>;\n"
"                               SIGHUP begins a new <file> too (logrotate)\n"
"        --metrics [<addr>:]<port>\n"
"                               serve Prometheus metrics at /metrics: boot phase\n"
"                               histograms per runtime, containers, events; a bare\n"
"                               <port> is 127.0.0.1 only, 0.0.0.0:<port> or\n"
"                               [::]:<port> every address (docs/metrics.md)\n"
"        --metrics-label <label>[,<label>...]\n"
"                               label the phase histograms with entrypoint (the\n"
"                               entrypoint's basename), namespace (the pod's) or\n"
"                               image (from the meta rows): 50 values each at\n"
"                               most, then \"other\" (docs/metrics.md: series cost)\n"
"    -v, --verbose              libbpf's messages; at the end, its own CPU time and\n"
"                               its BPF programs' run times (BOOTTRACE_BPF_STATS=1\n"
"                               turns the kernel's statistics on)\n"
"    -h, --help                 this text\n"
"    -V, --version              the version\n"
"\n"
"Exit status: 0 ok (spawn, client: with --until end, the last command's own);\n"
"1 runtime failure; 2 usage error; 124 a boot never reached its --until phase\n"
"(--timeout or -d ran out, or its command exited before it: timeout(1)'s 124);\n"
"126, 127 the command cannot run; 130 spawn, client: interrupted by SIGINT (143:\n"
"SIGTERM), the runs left not started (watch mode ends there with 0).\n"
"\n"
"EXAMPLES\n"
"    sudo collector > boot.tsv                     # every container that starts\n"
"    sudo collector -c '/system.slice/docker-*' -d 60 -o boot.tsv\n"
"    sudo collector --metrics 9432 -o /var/lib/boottrace/boot.tsv   # a scrape target\n"
"    sudo collector --runs 5 --until listen --timeout 30 -o boot.tsv -- ./server\n"
"    sudo collector -c '/docker/*' --runs 10 --until listen -o boot.tsv \\\n"
"        -- docker run --rm --network host IMAGE httpd -f -p 8080\n"
"    sudo collector --mark usdt:./bootsvc:bootsvc:config_loaded=config \\\n"
"        --mark uprobe:./bootsvc:bootsvc_ready=ready --until mark:ready -- ./bootsvc\n"
"    mkfifo p; sudo collector -o p -- ./server & analyze p\n");
}

int parse_duration_ns(const char *s, unsigned long long *ns)
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
	if (v >= 18446744073709551615.0)
		return -1;
	*ns = (unsigned long long)v;
	return 0;
}

/* "65536", "512K", "100M", "1G" (powers of 1024) → bytes in *@v; 0, or -1. */
static int parse_size(const char *s, unsigned long long *v)
{
	unsigned long long n, mult = 1;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end == 'K' || *end == 'k')
		mult = 1ULL << 10;
	else if (*end == 'M')
		mult = 1ULL << 20;
	else if (*end == 'G')
		mult = 1ULL << 30;
	else if (*end)
		return -1;
	if (*end && end[1])
		return -1;
	if (n > (1ULL << 50) / mult)
		return -1;
	*v = n * mult;
	return 0;
}

static int parse_until(const char *s, struct options *o)
{
	char kind[16];
	const char *plus = strchr(s, '+');
	size_t n = plus ? (size_t)(plus - s) : strlen(s);

	if (strncmp(s, "mark:", 5) == 0) {
		/* mark:LABEL: labels have no '+' (collector/kernel/marks.c) */
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
	if (strcmp(kind, "end") == 0 || strcmp(kind, "exit") == 0)
		o->until = UNTIL_END;
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

const char *options_until_name(const struct options *o)
{
	switch (o->until) {
	case UNTIL_EXEC: return "exec";
	case UNTIL_LISTEN: return "listen";
	case UNTIL_MARK: return o->until_mark;
	default: return "end";
	}
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

/*
 * Whether -s @list (all, none, or a comma list of names) traces syscall
 * @name: --until listen waits for a listen row, which none of the others
 * would ever bring (exec, end and marks are other records).
 */
static bool syscalls_traced(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (strcmp(list, "all") == 0)
		return true;
	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* One message on stderr, git style, and OPTIONS_USAGE for the caller to return. */
__attribute__((format(printf, 1, 2)))
static enum options_result usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "collector: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'collector --help'.\n");
	return OPTIONS_USAGE;
}

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "mode", required_argument, NULL, 'm' },
	{ "syscalls", required_argument, NULL, 's' },
	{ "duration", required_argument, NULL, 'd' },
	{ "cgroup", required_argument, NULL, 'c' },
	{ "until", required_argument, NULL, 'u' },
	{ "timeout", required_argument, NULL, 't' },
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
	{ "sched", required_argument, NULL, 'C' },
	{ "offcpu-stacks", required_argument, NULL, 'Q' },
	{ "spans", required_argument, NULL, 'Y' },
	{ "rotate", required_argument, NULL, 'T' },
	{ "metrics", required_argument, NULL, 'M' },
	{ "metrics-label", required_argument, NULL, 'L' },
	{ "profile", optional_argument, NULL, 'P' },
	{ "profile-unwind", required_argument, NULL, 'F' },
	{ "profile-stack", required_argument, NULL, 'Z' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

const char *const *options_long_names(void)
{
	static const char *names[sizeof(longopts) / sizeof(longopts[0])];
	size_t i;

	for (i = 0; longopts[i].name; i++)
		names[i] = longopts[i].name;
	names[i] = NULL;
	return names;
}

/* One option; OPTIONS_OK or what options_parse() returns. */
static enum options_result parse_one(int c, const char *arg, struct options *o)
{
	char *end;

	switch (c) {
	case 'o': o->output = arg; break;
	case 'm':
		if (strcmp(arg, "auto") && strcmp(arg, "cgroup") && strcmp(arg, "pidtree"))
			return usage_error("--mode takes auto, cgroup or pidtree, not '%s'", arg);
		o->mode = arg;
		break;
	case 's': o->syscalls = arg; break;
	case 'd':
		if (parse_duration_ns(arg, &o->duration_ns) < 0 || o->duration_ns == 0)
			return usage_error("--duration takes a duration (60, 1.5s, 500ms), not '%s'", arg);
		break;
	case 't':
		if (parse_duration_ns(arg, &o->timeout_ns) < 0 || o->timeout_ns == 0)
			return usage_error("--timeout takes a duration (30, 1.5s, 500ms), not '%s'", arg);
		break;
	case 'c': o->cgroup_glob = arg; break;
	case 'u':
		if (parse_until(arg, o) < 0)
			return usage_error("--until takes exec, listen, end (or exit) or mark:LABEL[+DURATION], not '%s'",
					   arg);
		break;
	case 'n':
		errno = 0;
		o->runs = (int)strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->runs < 1 || o->runs > 100000)
			return usage_error("--runs takes a number from 1 to 100000, not '%s'", arg);
		break;
	case 'N': o->name = arg; break;
	case 'U':
		if (parse_unshare(arg, &o->unshare_flags) < 0)
			return usage_error("--unshare takes pid,mount,net,uts,ipc, not '%s'", arg);
		break;
	case 'R':
		o->ringbuf_mb = strtoul(arg, &end, 10);
		if (end == arg || *end || o->ringbuf_mb < 1 || o->ringbuf_mb > 2048 ||
		    (o->ringbuf_mb & (o->ringbuf_mb - 1)))
			return usage_error("--ringbuf-mb takes a power of two from 1 to 2048 (the ring buffer's size is 32-bit)");
		break;
	case 'O':
		if (strcmp(arg, "auto") && strcmp(arg, "modern") && strcmp(arg, "compat") &&
		    strcmp(arg, "legacy"))
			return usage_error("--object takes auto, modern, compat or legacy, not '%s'", arg);
		o->object = arg;
		break;
	case 'p':
		errno = 0;
		o->pid = (pid_t)strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->pid <= 0)
			return usage_error("--pid takes a process id, not '%s'", arg);
		break;
	case 'X': o->root_exec = arg; break;
	case 'C':
		if (!strcmp(arg, "off"))
			o->sched = SCHED_OFF;
		else if (!strcmp(arg, "on"))
			o->sched = SCHED_ON;
		else if (!strcmp(arg, "host"))
			o->sched = SCHED_HOST;
		else
			return usage_error("--sched takes on, off or host, not '%s'", arg);
		break;
	case 'Q':
		if (!strcmp(arg, "on"))
			o->offcpu_stacks = 1;
		else if (!strcmp(arg, "off"))
			o->offcpu_stacks = 0;
		else
			return usage_error("--offcpu-stacks takes on or off, not '%s'", arg);
		break;
	case 'Y':
		if (strcmp(arg, "on") && strcmp(arg, "off") && strcmp(arg, "host"))
			return usage_error("--spans takes on, off or host, not '%s'", arg);
		/* 2: asked for; 3: and the host's interpreters at start */
		o->spans = !strcmp(arg, "on") ? 2 : !strcmp(arg, "host") ? 3 : 0;
		break;
	case 'W': o->user = arg; break;
	case 'K':
	case 'S': {
		char err[512];

		if (!o->marks && !(o->marks = marks__new()))
			return usage_error("out of memory");
		if (c == 'S' && marks_have_start(o->marks))
			return usage_error("--start may be given once");
		if (marks_add(o->marks, arg, c == 'S', err, sizeof(err)) < 0)
			return usage_error("%s", err);
		break;
	}
	case 'T':
		if (parse_size(arg, &o->rotate_bytes) < 0 || o->rotate_bytes < 65536)
			return usage_error("--rotate takes a size of 64K or more (100M, 1G), not '%s'", arg);
		break;
	case 'M': {
		struct sockaddr_storage ss;
		socklen_t len;

		if (http_parse_addr(arg, &ss, &len) < 0)
			return usage_error("--metrics takes [ADDR:]PORT (9432, 0.0.0.0:9432, [::1]:9432), not '%s'",
					   arg);
		o->metrics = arg;
		break;
	}
	case 'L': {
		/* a list: entrypoint,namespace,image (serve/boots.h's order), or the option again */
		static const char *const names[] = { "entrypoint", "namespace", "image" };
		const char *p = arg, *e;
		size_t i, n;

		do {
			e = strchr(p, ',');
			n = e ? (size_t)(e - p) : strlen(p);
			for (i = 0; i < 3; i++)
				if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
					break;
			if (i == 3)
				return usage_error("--metrics-label takes entrypoint, namespace, image or a list of them, not '%s'",
						   arg);
			o->metrics_labels |= 1u << i;
			p = e ? e + 1 : NULL;
		} while (p);
		break;
	}
	case 'P':
		if (!arg) {
			o->profile_hz = 99;
			break;
		}
		errno = 0;
		o->profile_hz = (unsigned)strtoul(arg, &end, 10);
		if (errno || end == arg || *end || o->profile_hz < 1 || o->profile_hz > 10000)
			return usage_error("--profile takes a rate from 1 to 10000 Hz (--profile=99), not '%s'",
					   arg);
		break;
	case 'F':
		if (!strcmp(arg, "fp"))
			o->profile_unwind = PROFILE_UNWIND_FP;
		else if (!strcmp(arg, "dwarf"))
			o->profile_unwind = PROFILE_UNWIND_DWARF;
		else if (!strcmp(arg, "auto"))
			o->profile_unwind = PROFILE_UNWIND_AUTO;
		else
			return usage_error("--profile-unwind takes fp, dwarf or auto, not '%s'", arg);
		break;
	case 'Z': {
		unsigned long v;

		errno = 0;
		v = strtoul(arg, &end, 10);
		if (!errno && end != arg && (*end == 'K' || *end == 'k') && !end[1] && v <= 64) {
			v <<= 10;
			end++;
		}
		if (errno || end == arg || *end || v < PROFILE_STACK_MIN || v > PROFILE_STACK_MAX)
			return usage_error("--profile-stack takes 1024 to 65536 bytes (16384, 16K), not '%s'",
					   arg);
		o->profile_stack = (unsigned)v;
		break;
	}
	case 'v': o->verbose = 1; break;
	case 'h': options_usage(stdout); return OPTIONS_DONE;
	case 'V': printf("collector (boottrace) %s\n", BOOTTRACE_VERSION); return OPTIONS_DONE;
	default:
		fprintf(stderr, "Try 'collector --help'.\n");
		return OPTIONS_USAGE;
	}
	return OPTIONS_OK;
}

enum options_result options_parse(int argc, char **argv, struct options *o)
{
	enum options_result r;
	char *argv0;
	int c;

	o->mode = "auto";
	o->syscalls = "all";
	o->runs = 1;
	o->ringbuf_mb = 0;	/* the backend's default (collector/kernel/backend.h) */
	o->object = "auto";
	o->sched = SCHED_ON;
	o->offcpu_stacks = -1;	/* by the mode: collector/main.c */
	o->spans = 1;
	o->profile_stack = PROFILE_STACK_DEFAULT;
	optind = 0;	/* GNU getopt: start over (tests parse many times) */
	/*
	 * getopt's own messages (an unknown option, a missing argument) begin
	 * with argv[0], the path it was run by: the program's name instead,
	 * as every other message has it.
	 */
	argv0 = argv[0];
	argv[0] = (char *)"collector";
	r = OPTIONS_OK;
	while (r == OPTIONS_OK &&
	       (c = getopt_long(argc, argv, "+o:m:s:d:c:u:n:p:vhV", longopts, NULL)) != -1)
		r = parse_one(c, optarg, o);
	argv[0] = argv0;
	if (r != OPTIONS_OK)
		return r;
	if (optind < argc)
		o->command = argv + optind;
	if (!o->command && (o->runs != 1 || o->name || o->unshare_flags))
		return usage_error("--runs, --name and --unshare need a command (after --)");
	if (o->command && o->cgroup_glob && (o->name || o->unshare_flags))
		return usage_error("--name and --unshare are for spawn mode: with --cgroup the command is a "
				   "runtime's client, its containers are named after their cgroups");
	if (o->user && !o->command)
		return usage_error("--user is for spawn mode (a command after --)");
	if (o->command && o->pid > 0)
		return usage_error("--pid and a command exclude each other");
	if (o->root_exec && (o->command || o->pid > 0 || strcmp(o->mode, "pidtree")))
		return usage_error("--root-exec is for watch mode with --mode pidtree");
	if (o->metrics_labels && !o->metrics)
		return usage_error("--metrics-label needs --metrics");
	if (o->rotate_bytes && (!o->output || strcmp(o->output, "-") == 0))
		return usage_error("--rotate needs -o <file>");
	if (o->timeout_ns && !o->command)
		return usage_error("--timeout is for spawn and client mode (a command after --); "
				   "-d limits a watch");
	if (o->until == UNTIL_LISTEN && !syscalls_traced(o->syscalls, "listen"))
		return usage_error("--until listen waits for a listen row, and -s %s traces no "
				   "listen: -s all, or a list with listen", o->syscalls);
	if (o->until == UNTIL_MARK && !marks_find_label(o->marks, o->until_mark))
		return usage_error("--until mark:%s: no --mark has the label '%s'",
				   o->until_mark, o->until_mark);
	return OPTIONS_OK;
}
