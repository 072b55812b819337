// SPDX-License-Identifier: BSD-2-Clause
/*
 * analyze: the collector's TSV → per-phase boot statistics, histograms,
 * per-syscall tables, comparisons and gnuplot reports. See analyze(1).
 * Its files, wing by wing (read/, stats/, boot/, out/): analyze/README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/boot/analysis.h"
#include "analyze/boot/failures.h"
#include "analyze/boot/pods.h"
#include "analyze/boot/profile.h"
#include "analyze/boot/window.h"
#include "analyze/out/bootchart.h"
#include "analyze/out/compare.h"
#include "analyze/out/failures_report.h"
#include "analyze/out/otlp.h"
#include "analyze/out/plot.h"
#include "analyze/out/pprof.h"
#include "analyze/out/profile_report.h"
#include "analyze/out/report.h"
#include "analyze/out/wrap.h"
#include "analyze/read/runs.h"
#include "analyze/units.h"

static const char usage_text[] =
"usage: analyze [<options>] [<file>...]\n"
"   or: analyze --compare [<options>] <a.tsv> <b.tsv>\n"
"\n"
"Read boottrace TSV files (a <file> may be -, a pipe or a FIFO; no <file>\n"
"reads standard input) and print per-phase boot times across containers:\n"
"start -> exec -> first successful listen() -> each mark label.\n"
"\n"
"    --format <fmt>        output: text (default), tsv (integers in ns), json, or\n"
"                          trace-event: every row as Chrome/Perfetto Trace Event\n"
"                          JSON (ui.perfetto.dev, chrome://tracing), a process per\n"
"                          container, a thread per task, syscalls as slices, phases\n"
"                          and the critical path as slices of their own; folded:\n"
"                          --profile's collapsed stacks (flamegraph.pl, speedscope;\n"
"                          implies --profile); pprof: --profile's CPU samples and\n"
"                          off-CPU time as one gzipped pprof file, two sample types,\n"
"                          the spans as labels (go tool pprof, Pyroscope, Parca;\n"
"                          implies --profile);\n"
"                          otlp: each boot as an OpenTelemetry trace, OTLP/JSON lines\n"
"                          (a root span, a span per phase, one per segment of the\n"
"                          critical path to listen or --critical-path's phase)\n"
"    --otlp-endpoint <url> POST each boot's trace (OTLP/JSON) to an OTLP/HTTP\n"
"                          receiver: http://host:4318 sends to /v1/traces; http only\n"
"                          (for https, an OpenTelemetry collector in between);\n"
"                          prints nothing unless --format otlp is given too\n"
"    --hist[=<kind>]       histogram per phase: log2 (default, like bpftrace\n"
"                          hist()) or linear:<step> (<step>: 1ms, 500us, 2s, ns)\n"
"    --by <key>            syscall time per syscall, container or comm (like\n"
"                          strace -c), summed over all threads (not wall time);\n"
"                          p99 from a log-linear histogram (< 1% error);\n"
"                          state: per container, its tasks' time running,\n"
"                          runnable, blocked (S, D) or unknown (scheduler rows);\n"
"                          span: per container, the interpreters' requires, loads,\n"
"                          imports and class initializers by self and total time,\n"
"                          like python -X importtime (the collector's span rows)\n"
"                          image, namespace: the boot phases per value of the\n"
"                          containers' meta rows; pod: each pod's boot (its start\n"
"                          to every app's listen), its network and each\n"
"                          container's shim, create, runc start, exec, listen\n"
"    --until <phase>       limit --by and the plots to each container's boot\n"
"                          window [start, <phase>] (exec, listen, a mark label, or\n"
"                          end: its last process's exit, as collector --until end;\n"
"                          exit is the same), clipping syscalls that\n"
"                          straddle it; prints its wall time (default: the files'\n"
"                          # until=, collector --until's phase; none: the whole\n"
"                          trace)\n"
"    --failures[=<dur>]    why each boot ended: its init's exit status or signal,\n"
"                          its failed syscalls in the last <dur> (default 10s)\n"
"                          grouped (connect ECONNREFUSED 127.0.0.1:5432 x 12), what\n"
"                          the rows say of a signal's sender, a restart's back-off\n"
"    --critical-path[=<phase>]\n"
"                          what gated each boot (default: listen; end, or exit:\n"
"                          its last process's exit): contiguous\n"
"                          segments start -> <phase> (syscall, cpu, runtime), walked\n"
"                          back through wait4, pipes and forks into the task that\n"
"                          held it up; then the top items across containers\n"
"    --profile[=cpu|offcpu]\n"
"                          what the CPU did in each boot window (start -> --until's\n"
"                          phase, default listen), from the collector's --profile\n"
"                          rows: functions by self and total samples, per container\n"
"                          and over all; with --critical-path, each cpu segment names\n"
"                          its top functions; with --plot, a flame graph per container;\n"
"                          offcpu: where the tasks waited instead, their stacks as\n"
"                          they blocked (collector --offcpu-stacks) by blocked time\n"
"    --top <n>             with --profile: the functions a table lists (default 20);\n"
"                          with --by span: the spans per container (default 20)\n"
"    --sort <key>          with --by span: self (default: the time in the span less\n"
"                          its children's) or total (its whole length: a file whose\n"
"                          many short requires add up comes first)\n"
"    --debug-dir <dir>     with --profile: look for debug files by build id under\n"
"                          <dir>/.build-id/ too (repeatable; before /usr/lib/debug,\n"
"                          then the debuginfod servers of $DEBUGINFOD_URLS if set)\n"
"    --container <glob>    only containers whose name matches <glob> (fnmatch)\n"
"    --exec <pattern>      the exec that counts: the first whose filename\n"
"                          matches <pattern> (fnmatch; a plain path matches itself)\n"
"    --plot <dir>          write gnuplot data files, scripts and PNGs into <dir>,\n"
"                          and index.html showing them (no script, opens as a file);\n"
"                          bootchart.png: the container of median time to listen\n"
"    --plot-container <glob>\n"
"                          with --plot, also a boot chart (bootchart-N.png) of each\n"
"                          container whose name matches <glob> (20 at most)\n"
"    --compare             B against A per phase: counts, medians, p90, difference\n"
"                          of medians, two-sided Mann-Whitney U test (normal\n"
"                          approximation with tie correction), significant if p < 0.05;\n"
"                          the shift B - A (Hodges-Lehmann, + is slower) with its\n"
"                          exact distribution-free 95% confidence interval\n"
"    --fail-if-slower <pct>\n"
"                          with --compare: exit 3 when a phase regressed: its 95%\n"
"                          interval lies above 0 and its shift is more than <pct> %\n"
"                          of A's median; phases without a 95% interval (fewer than\n"
"                          4 boots a side) are named inconclusive (exit 0)\n"
"    --lenient             skip and count malformed rows instead of failing\n"
"    --threads <n>         read a regular file with up to <n> threads (default:\n"
"                          the online CPUs, at most 4); the output is the same;\n"
"                          one with --until, --critical-path and --format\n"
"                          trace-event (they keep the rows in memory: 32 bytes\n"
"                          per syscall row); --plot reads a regular file a second\n"
"                          time, keeping the rows of the charted containers (and\n"
"                          of their pods) only (a pipe: all of them, once); both\n"
"                          times by one thread\n"
"    -h, --help            show this help and exit\n"
"    -V, --version         show the version and exit\n"
"\n"
"Exit status: 0 ok, 1 runtime failure, 2 usage error or malformed input,\n"
"3 a phase regressed (--fail-if-slower).\n"
"\n"
"EXAMPLES\n"
"    analyze boot.tsv                       per-phase table\n"
"    analyze boot.tsv --hist --by syscall   histograms and syscall time\n"
"    analyze --format tsv boot.tsv          the table as TSV, in ns\n"
"    analyze --exec '/usr/bin/ruby*' boot.tsv\n"
"    mkfifo f; collector -o f & analyze f   read while the collector writes\n"
"    analyze boot.tsv --plot report/        PNG plots for a report\n"
"    analyze boot.tsv --critical-path       where the time to listen went\n"
"    analyze boot.tsv --by syscall --until listen   syscall time of the boots only\n"
"    analyze boot.tsv --by state --until listen     running/runnable/blocked per boot\n"
"    analyze boot.tsv --by span --until listen      the slowest requires and imports\n"
"    analyze boot.tsv --by span --sort total        the files whose requires add up\n"
"    analyze boot.tsv --by pod                      each pod's boot and its parts\n"
"    analyze boot.tsv --format trace-event > boot.json   open in ui.perfetto.dev\n"
"    analyze --format otlp boot.tsv > boot.jsonl   OTLP file exporter lines\n"
"    analyze --otlp-endpoint http://127.0.0.1:4318 boot.tsv   to a collector\n"
"    analyze --profile boot.tsv                 where the boot's CPU time went\n"
"    analyze --failures boot.tsv                why did the boots die?\n"
"    analyze --profile --until end job.tsv      a job that never listens, to its end\n"
"    analyze --profile --format folded boot.tsv | flamegraph.pl > boot.svg\n"
"    analyze --compare before.tsv after.tsv is the change significant?\n"
"    analyze --compare --fail-if-slower 5 before.tsv after.tsv   a CI gate\n";

enum {
	OPT_FORMAT = 256, OPT_HIST, OPT_BY, OPT_CONTAINER, OPT_EXEC, OPT_PLOT,
	OPT_COMPARE, OPT_LENIENT, OPT_THREADS, OPT_CRITPATH, OPT_UNTIL, OPT_PLOT_CONTAINER,
	OPT_FAIL_IF_SLOWER, OPT_PROFILE, OPT_TOP, OPT_DEBUG_DIR, OPT_OTLP_ENDPOINT, OPT_FAILURES,
	OPT_SORT,
};

/* The default of --threads is capped: one analysis should not take a big machine. */
#define DEFAULT_MAX_THREADS 4
#define MAX_THREADS 64
#define STR_(x) #x
#define STR(x) STR_(x)

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "hist", optional_argument, NULL, OPT_HIST },
	{ "by", required_argument, NULL, OPT_BY },
	{ "container", required_argument, NULL, OPT_CONTAINER },
	{ "exec", required_argument, NULL, OPT_EXEC },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "compare", no_argument, NULL, OPT_COMPARE },
	{ "fail-if-slower", required_argument, NULL, OPT_FAIL_IF_SLOWER },
	{ "lenient", no_argument, NULL, OPT_LENIENT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "critical-path", optional_argument, NULL, OPT_CRITPATH },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "plot-container", required_argument, NULL, OPT_PLOT_CONTAINER },
	{ "profile", optional_argument, NULL, OPT_PROFILE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "otlp-endpoint", required_argument, NULL, OPT_OTLP_ENDPOINT },
	{ "failures", optional_argument, NULL, OPT_FAILURES },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "analyze: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: analyze [<options>] [<file>...]; try 'analyze --help'\n");
	return 2;
}

static int parse_hist(const char *arg, struct report_opts *ro)
{
	ro->hist = true;
	ro->hist_kind = HIST_LOG2;
	if (!arg || strcmp(arg, "log2") == 0)
		return 0;
	if (strncmp(arg, "linear:", 7) == 0 && units_parse(arg + 7, &ro->hist_step) == 0 &&
	    ro->hist_step > 0) {
		ro->hist_kind = HIST_LINEAR;
		return 0;
	}
	return -1;
}

/* Read @files into a new analysis; *@rc gets the exit code on failure. */
static struct analysis *read_all(const struct analyze_opts *ao, char **files,
				 int nfiles, int *rc)
{
	struct analysis *a = analysis__new(ao);
	int i;

	if (!a) {
		fprintf(stderr, "analyze: out of memory\n");
		*rc = 1;
		return NULL;
	}
	for (i = 0; i < nfiles; i++) {
		*rc = analysis_read(a, files[i], stderr);
		if (*rc) {
			analysis__free(a);
			return NULL;
		}
	}
	if (a->skipped)
		fprintf(stderr, "analyze: skipped %llu malformed rows\n",
			(unsigned long long)a->skipped);
	if (analysis_finish(a) < 0) {
		fprintf(stderr, "analyze: out of memory\n");
		analysis__free(a);
		*rc = 1;
		return NULL;
	}
	*rc = 0;
	return a;
}

/*
 * Whether @name is the phase end: a container's last process's exit. The
 * collector's --until takes the same word, and both take exit for it.
 */
static bool is_end(const char *name)
{
	return strcmp(name, "end") == 0 || strcmp(name, "exit") == 0;
}

/*
 * The id of phase @name (exec, listen or a mark label, as written in the
 * TSV; end, or exit) in *@id; -1 with a message naming @opt and the phases
 * there are.
 */
static int phase_id(const struct analysis *a, const char *name, const char *opt, uint32_t *id)
{
	long k = strtab_find(a->phase_names, name, strlen(name));
	size_t i;

	if (k >= 0) {
		*id = (uint32_t)k;
		return 0;
	}
	if (is_end(name)) {
		*id = PHASE_END;	/* every container that ended has it */
		return 0;
	}
	fprintf(stderr, "analyze: %s: no phase '%s' in the input (phases:", opt, name);
	for (i = 0; i < analysis_nphases(a); i++)
		fprintf(stderr, "%s %s", i ? "," : "", analysis_phase_name(a, i));
	fprintf(stderr, ", end)\n");
	return -1;
}

/* Can every one of @files be read twice (a regular file, not stdin)? */
static bool all_regular(char **files, int nfiles)
{
	struct stat st;
	int i;

	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0 || stat(files[i], &st) < 0 || !S_ISREG(st.st_mode))
			return false;
	return true;
}

/* The containers whose rows the second reading keeps: a->ctrs picked. */
struct charted {
	const struct analysis *a;
	size_t idx[BOOTCHART_MAX_CHOSEN + 1], n;
};

/* The pods' container @name (@n bytes) of file @file, or NULL (a linear search: once a container). */
static const struct pod_ctr *pod_ctr_of(const struct pods *p, uint32_t file, const char *name,
					size_t n)
{
	size_t i;

	for (i = 0; p && i < p->n; i++)
		if (p->c[i].file == file && p->c[i].name_n == n && memcmp(p->c[i].name, name, n) == 0)
			return &p->c[i];
	return NULL;
}

static bool same_uid(const struct pod_ctr *x, const struct pod_ctr *y)
{
	const struct sched_str *a = &x->m.v[META_POD_UID], *b = &y->m.v[META_POD_UID];

	return a->s && b->s && a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
}

/* A charted container, or one of its pod (analyze/boot/pod_boot.h: charted as one). */
static bool keep_charted(void *ctx, uint32_t file, const char *name, size_t n)
{
	const struct charted *ch = ctx;
	const struct pod_ctr *mine = NULL, *pc;
	size_t i, len;

	for (i = 0; i < ch->n; i++) {
		const struct ctr_result *c;
		const char *s;

		if (ch->idx[i] == SIZE_MAX)
			continue;
		c = &ch->a->ctrs[ch->idx[i]];
		s = strtab_str(ch->a->ctr_names, c->name, &len);
		if (c->file == file && len == n && memcmp(s, name, n) == 0)
			return true;
		if (!mine && !(mine = pod_ctr_of(ch->a->pods, file, name, n)))
			continue;
		if ((pc = pod_ctr_of(ch->a->pods, c->file, s, len)) && same_uid(mine, pc))
			return true;
	}
	return false;
}

/*
 * Read @files again into a new analysis whose timeline keeps only the
 * containers that get a boot chart (bootchart_pick() on @a, which read
 * them without one): --plot's memory is theirs, not the whole file's.
 * Messages were said by the first reading: this one's go to a buffer,
 * shown only if it fails (a file changed in between). NULL with *@rc set
 * on failure.
 */
static struct analysis *read_charted(const struct analyze_opts *ao, const struct analysis *a,
				     char **files, int nfiles, bool keep_all, int *rc)
{
	struct analyze_opts o = *ao;
	struct charted ch = { .a = a };
	struct analysis *b;
	char *msg = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&msg, &len);
	int i;

	ch.n = bootchart_pick(a, ch.idx);
	o.timeline = true;
	o.tl_keep = keep_all ? NULL : keep_charted;
	o.tl_keep_ctx = &ch;
	b = err ? analysis__new(&o) : NULL;
	*rc = b ? 0 : 1;
	for (i = 0; b && !*rc && i < nfiles; i++)
		*rc = analysis_read(b, files[i], err);
	if (!*rc && b && analysis_finish(b) < 0)
		*rc = 1;
	if (err)
		fclose(err);
	if (*rc || !b) {
		fprintf(stderr, "analyze: reading the input again for the boot charts failed%s%s",
			msg && *msg ? ":\n" : "\n", msg ? msg : "");
		analysis__free(b);
		b = NULL;
	}
	free(msg);
	return b;
}

/*
 * The columns --critical-path's text fits: 120, or a terminal's width when
 * stdout is one wider than that (its details then stay on their lines).
 * A narrower terminal still gets 120: a segment's columns take 113.
 */
static size_t text_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > WRAP_WIDTH)
		return ws.ws_col;
	return WRAP_WIDTH;
}

static int flush_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "analyze: write error: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > DEFAULT_MAX_THREADS ? DEFAULT_MAX_THREADS : (unsigned)n;
}

/* main()'s work: @debug_dirs holds room for every --debug-dir (argc + 1) */
static int analyze_main(int argc, char **argv, const char **debug_dirs)
{
	struct analyze_opts ao = { .by = BY_NONE };
	struct report_opts ro = { .format = FMT_TEXT, .by = BY_NONE };
	struct compare_opts co = { .format = FMT_TEXT };
	struct analysis *a = NULL, *b = NULL;
	const char *plot_dir = NULL, *critpath = NULL, *until = NULL;
	char *until_file = NULL;	/* the files' # until=, the default window */
	bool critpath_default = false, until_none = false;
	uint32_t until_ph = UINT32_MAX;	/* --until's phase id, once read */
	char *stdin_only[] = { "-" }, **files;
	int nfiles;
	bool twice;
	bool compare = false, profile = false, failures = false, sort = false, offcpu = false;
	uint64_t stretch = FAILURES_STRETCH_NS;
	struct failures *fl = NULL;
	size_t ndebug = 0, top = PROFILE_TOP;
	struct profile *prof = NULL, *prof2 = NULL, *proff = NULL;
	bool keep_all = false;
	struct otlp_url otlp_url;
	const struct otlp_url *otlp_to = NULL;
	char why[256];
	int c, rc = 0;
	char *end;
	long n;

	ao.threads = default_threads();

	/* 1. options; getopt's own messages name the program, not the path it was run by */
	argv[0] = (char *)"analyze";
	while ((c = getopt_long(argc, argv, "hV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return flush_stdout();
		case 'V':
			printf("analyze (boottrace) %s\n", BOOTTRACE_VERSION);
			return flush_stdout();
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				ro.format = FMT_TEXT;
			else if (strcmp(optarg, "tsv") == 0)
				ro.format = FMT_TSV;
			else if (strcmp(optarg, "json") == 0)
				ro.format = FMT_JSON;
			else if (strcmp(optarg, "trace-event") == 0)
				ro.format = FMT_TRACE_EVENT;
			else if (strcmp(optarg, "folded") == 0)
				ro.format = FMT_FOLDED;
			else if (strcmp(optarg, "otlp") == 0)
				ro.format = FMT_OTLP;
			else if (strcmp(optarg, "pprof") == 0)
				ro.format = FMT_PPROF;
			else
				return usage_error("unknown format '%s' (text, tsv, json, "
						   "trace-event, folded, otlp or pprof)", optarg);
			break;
		case OPT_HIST:
			if (parse_hist(optarg, &ro) < 0)
				return usage_error("bad histogram '%s' (log2 or linear:STEP, "
						   "e.g. linear:1ms)", optarg);
			break;
		case OPT_BY:
			if (strcmp(optarg, "syscall") == 0)
				ao.by = BY_SYSCALL;
			else if (strcmp(optarg, "container") == 0)
				ao.by = BY_CONTAINER;
			else if (strcmp(optarg, "comm") == 0)
				ao.by = BY_COMM;
			else if (strcmp(optarg, "state") == 0)
				ao.by = BY_STATE;
			else if (strcmp(optarg, "pod") == 0)
				ao.by = BY_POD;
			else if (strcmp(optarg, "image") == 0)
				ao.by = BY_IMAGE;
			else if (strcmp(optarg, "namespace") == 0)
				ao.by = BY_NAMESPACE;
			else if (strcmp(optarg, "span") == 0)
				ao.by = BY_SPAN;
			else
				return usage_error("unknown --by key '%s' (syscall, container, "
						   "comm, state, pod, image, namespace or span)", optarg);
			/* the tasks' off-CPU intervals; a pod's steps in the runtime's rows */
			if (ao.by == BY_STATE || ao.by == BY_SPAN || ao.by == BY_POD)
				ao.timeline = true;
			ro.by = ao.by;
			break;
		case OPT_CONTAINER:
			ao.container_glob = optarg;
			break;
		case OPT_EXEC:
			ao.exec_pattern = optarg;
			break;
		case OPT_PLOT:
			plot_dir = optarg;
			ao.syscalls = true;
			ao.timeline = true; /* the boot chart */
			break;
		case OPT_PLOT_CONTAINER:
			ao.plot_container = optarg;
			break;
		case OPT_COMPARE:
			compare = true;
			break;
		case OPT_FAIL_IF_SLOWER:
			if (compare_parse_pct(optarg, &co.pct_milli) < 0)
				return usage_error("bad --fail-if-slower '%s' (a percentage: 5, "
						   "2.5, 0.125; at most 3 decimals)", optarg);
			co.gate = true;
			break;
		case OPT_LENIENT:
			ao.reader_flags |= TSV_LENIENT;
			break;
		case OPT_CRITPATH:
			critpath = optarg ? optarg : "listen";
			critpath_default = !optarg;
			if (!*critpath)
				return usage_error("%s", "--critical-path= needs a phase (exec, listen, "
						   "end or a mark label)");
			ao.timeline = true;
			ro.critpath = true;
			break;
		case OPT_UNTIL:
			if (!*optarg)
				return usage_error("%s", "--until needs a phase (exec, listen or a "
						   "mark label)");
			if (strcmp(optarg, "none") == 0) {
				/* the whole trace, whatever the files' # until= says */
				until_none = true;
				until = NULL;
				ao.windowed = false;
				break;
			}
			until_none = false;
			until = optarg;
			ao.timeline = true;
			ao.windowed = true;
			break;
		case OPT_FAILURES:
			if (optarg && (units_parse(optarg, &stretch) < 0 || !stretch))
				return usage_error("bad --failures '%s' (a duration: 10s, 500ms)",
						   optarg);
			failures = true;
			ao.timeline = true;
			break;
		case OPT_PROFILE:
			if (optarg && !strcmp(optarg, "offcpu"))
				offcpu = true;
			else if (optarg && strcmp(optarg, "cpu"))
				return usage_error("--profile takes cpu or offcpu, not '%s'", optarg);
			profile = true;
			ao.timeline = true;
			break;
		case OPT_TOP:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 1000000)
				return usage_error("bad --top '%s' (1 to 1000000)", optarg);
			top = (size_t)n;
			ro.top = top;
			break;
		case OPT_SORT:
			if (strcmp(optarg, "total") == 0)
				ro.sort_total = true;
			else if (strcmp(optarg, "self") == 0)
				ro.sort_total = false;
			else
				return usage_error("unknown --sort key '%s' (self or total)", optarg);
			sort = true;
			break;
		case OPT_DEBUG_DIR:
			if (!debug_dirs)
				return usage_error("%s", "out of memory");
			debug_dirs[ndebug++] = optarg;
			break;
		case OPT_OTLP_ENDPOINT:
			if (otlp_url_parse(optarg, &otlp_url, why, sizeof(why)) < 0) {
				fprintf(stderr, "analyze: --otlp-endpoint %s: %s\n", optarg, why);
				return 2;
			}
			otlp_to = &otlp_url;
			break;
		case OPT_THREADS:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > MAX_THREADS)
				return usage_error("bad --threads '%s' (1 to " STR(MAX_THREADS) ")",
						   optarg);
			ao.threads = (unsigned)n;
			break;
		default:
			fprintf(stderr, "usage: analyze [<options>] [<file>...]; try 'analyze --help'\n");
			return 2;
		}
	}
	if (ro.format == FMT_TSV && (ro.hist + (ro.by != BY_NONE) + ro.critpath) > 1)
		return usage_error("%s", "--format tsv prints one table: use one of --hist, --by "
				   "and --critical-path");

	/* folded stacks and pprof files are a profile's output and nothing else's */
	if (ro.format == FMT_FOLDED || ro.format == FMT_PPROF) {
		profile = true;
		ao.timeline = true;
	}
	if (profile && (ro.hist || ro.by != BY_NONE || critpath || compare ||
			ro.format == FMT_TRACE_EVENT))
		return usage_error("%s", "--profile prints its own tables: no --hist, --by, "
				   "--critical-path, --compare or --format trace-event");
	if (failures && (ro.hist || ro.by != BY_NONE || critpath || compare || profile ||
			 until || plot_dir || ro.format == FMT_TRACE_EVENT || ro.format == FMT_FOLDED ||
			 ro.format == FMT_OTLP || otlp_to))
		return usage_error("%s", "--failures prints its own view: no --hist, --by, "
				   "--critical-path, --compare, --profile, --until, --plot, "
				   "--otlp-endpoint or --format trace-event|folded|otlp");
	if (ao.plot_container && !plot_dir)
		return usage_error("%s", "--plot-container needs --plot <dir>");
	if (sort && ro.by != BY_SPAN)
		return usage_error("%s", "--sort goes with --by span");
	if (ro.format == FMT_TRACE_EVENT) {
		if (ro.hist || ro.by != BY_NONE || compare || until)
			return usage_error("%s", "--format trace-event exports every row: no --hist, "
					   "--by, --until or --compare");
		ao.timeline = true;
	}
	if (ro.format == FMT_OTLP || otlp_to) {
		if ((ro.format != FMT_OTLP && ro.format != FMT_TEXT) || ro.hist ||
		    ro.by != BY_NONE || compare || until || profile || plot_dir)
			return usage_error("%s", "--format otlp and --otlp-endpoint export the boots "
					   "as traces: no other --format, --hist, --by, --until, "
					   "--compare, --profile or --plot");
		ao.timeline = true;
		ao.names = true;	/* the meta rows: k8s.pod.name ... (boot/resource.c) */
	}

	/* 2. compare mode: two files, one table */
	if (compare) {
		if (argc - optind != 2)
			return usage_error("%s", "--compare needs exactly two files, A and B");
		if (ro.format == FMT_JSON || ro.hist || ro.by != BY_NONE || plot_dir || critpath ||
		    until)
			return usage_error("%s", "--compare prints text or tsv only (no --hist, "
					   "--by, --critical-path, --until, --plot or json)");
		a = read_all(&ao, argv + optind, 1, &rc);
		if (a)
			b = read_all(&ao, argv + optind + 1, 1, &rc);
		if (a && b) {
			int regressed;

			co.format = ro.format;
			regressed = compare_print(stdout, stderr, a, b, argv[optind],
						  argv[optind + 1], &co);
			if (regressed < 0) {
				fprintf(stderr, "analyze: %s: %s\n", errno == ENOMEM ?
					"out of memory" : "write error", strerror(errno));
				rc = 1;
			} else {
				rc = flush_stdout();
				if (!rc && regressed)
					rc = 3;
			}
		}
		goto cleanup;
	}
	if (co.gate)
		return usage_error("%s", "--fail-if-slower goes with --compare A B");

	/* 3. read */
	if (optind == argc && isatty(0))
		return usage_error("%s", "no input: give a <file>, or - for standard input");
	if (optind == argc) {
		files = stdin_only;
		nfiles = 1;
	} else {
		files = argv + optind;
		nfiles = argc - optind;
		runs_order(files, nfiles);	/* the files of a run, by part */
	}
	/*
	 * The window the collector stopped each boot at (# until=, collector
	 * --until) is the analyses' default one: no boot went on past it.
	 */
	if (!until && !until_none && ro.format != FMT_TRACE_EVENT &&
	    (ao.by != BY_NONE || plot_dir || profile || critpath_default) &&
	    (until_file = runs_until(files, nfiles))) {
		if (critpath_default)
			critpath = until_file;
		if (ao.by != BY_NONE || plot_dir || profile) {
			until = until_file;
			ao.timeline = true;
			ao.windowed = true;
		}
	}
	/* --plot alone needs the rows of the charted containers only: files
	 * that can be read twice are, the second time keeping just those
	 * (--format trace-event wants every row at once; --profile, the
	 * timeline of every container's samples) */
	twice = plot_dir && !critpath && !until && !profile && ro.format != FMT_TRACE_EVENT &&
		all_regular(files, nfiles);
	if (twice) {
		ao.timeline = false;
		ao.names = true;	/* a charted pod's containers, for the second reading */
	}
	a = read_all(&ao, files, nfiles, &rc);
	if (!a)
		goto cleanup;
	/* flame graphs of every container: the second reading keeps them all */
	keep_all = twice && a->samples;
	if (critpath && phase_id(a, critpath, "--critical-path", &ro.critpath_phase) < 0) {
		rc = 2;
		goto cleanup;
	}
	if (until) {
		uint32_t ph = UINT32_MAX;

		if (until == until_file && !is_end(until) &&
		    strtab_find(a->phase_names, until, strlen(until)) < 0) {
			/* a mark that never fired: no boot reached the window's end */
			fprintf(stderr, "analyze: the input's # until=%s is no phase of it: "
				"no boot reached it\n", until);
			ph = UINT32_MAX;
		} else if (phase_id(a, until, "--until", &ph) < 0) {
			rc = 2;
			goto cleanup;
		}
		if (window_apply(a, ph) < 0) {
			fprintf(stderr, "analyze: out of memory\n");
			rc = 1;
			goto cleanup;
		}
		until_ph = ph;
	}

	/* 4. the profile: --profile, and the critical path's and plots' annotations */
	if (a->tl && (profile || ((critpath || plot_dir) &&
			      (a->tl->samples || a->tl->off_stacks)))) {
		struct profile_opts po = { .debug_dirs = debug_dirs, .ndebug_dirs = ndebug,
					   .offcpu = offcpu };
		uint32_t ph = UINT32_MAX;	/* a phase no container reached */
		long k;

		if (critpath)
			ph = ro.critpath_phase;
		else if (until)
			ph = until_ph;
		else if ((k = strtab_find(a->phase_names, "listen", 6)) >= 0)
			ph = (uint32_t)k;
		prof = profile__new(a->tl, ph, &po);
		if (!prof) {
			fprintf(stderr, "analyze: out of memory\n");
			rc = 1;
			goto cleanup;
		}
		ro.profile = prof;
	}
	/* pprof: the CPU profile and the off-CPU one in one file */
	if (profile && ro.format == FMT_PPROF) {
		struct profile_opts po = { .debug_dirs = debug_dirs, .ndebug_dirs = ndebug,
					   .offcpu = !offcpu };
		struct profile *other = profile__new(a->tl, prof->phase, &po);

		if (!other) {
			fprintf(stderr, "analyze: out of memory\n");
			rc = 1;
			goto cleanup;
		}
		rc = pprof_write(stdout, offcpu ? other : prof, offcpu ? prof : other);
		profile__free(other);
		if (rc < 0) {
			fprintf(stderr, "analyze: write error: %s\n", strerror(errno));
			rc = 1;
			goto cleanup;
		}
		rc = flush_stdout();
		goto plots;
	}
	if (profile) {
		const char *pname = until ? until : "listen";

		if (profile_print(stdout, prof, pname, (const char *const *)files, (size_t)nfiles,
				  ro.format, top) < 0) {
			fprintf(stderr, "analyze: write error: %s\n", strerror(errno));
			rc = 1;
			goto cleanup;
		}
		rc = flush_stdout();
		goto plots;
	}

	if (failures) {
		fl = failures__new(a->tl, stretch);
		if (!fl) {
			fprintf(stderr, "analyze: out of memory\n");
			rc = 1;
		} else if (failures_print(stdout, fl, ro.format) < 0) {
			fprintf(stderr, "analyze: write error: %s\n", strerror(errno));
			rc = 1;
		} else {
			rc = flush_stdout();
		}
		goto cleanup;
	}

	/* 5. report: OTLP traces, or the tables */
	if (ro.format == FMT_OTLP || otlp_to) {
		struct otlp_opts oo = { .out = ro.format == FMT_OTLP ? stdout : NULL,
					.url = otlp_to, .cp_phase = UINT32_MAX };
		size_t sent;
		long k;

		if (critpath)
			oo.cp_phase = ro.critpath_phase;
		else if ((k = strtab_find(a->phase_names, "listen", 6)) >= 0)
			oo.cp_phase = (uint32_t)k;
		rc = otlp_export(a, &oo, stderr, &sent);
		if (!rc)
			rc = flush_stdout();
		if (otlp_to)
			fprintf(stderr, "analyze: sent %zu traces to %s\n", sent, otlp_to->text);
		goto cleanup;
	}
	ro.width = text_width();
	if (report_print(stdout, a, &ro) < 0) {
		if (errno == E2BIG)
			fprintf(stderr, "analyze: histogram needs more than %d buckets; use a "
				"larger linear step\n", HIST_MAX_BUCKETS);
		else
			fprintf(stderr, "analyze: write error: %s\n", strerror(errno));
		rc = errno == E2BIG ? 2 : 1;
		goto cleanup;
	}
	rc = flush_stdout();

	/* 6. plots */
plots:
	if (!rc && twice) {
		b = read_charted(&ao, a, files, nfiles, keep_all, &rc);
		if (!b)
			goto cleanup;
	}
	if (!rc && plot_dir && b && b->tl && b->tl->samples) {
		struct profile_opts po = { .debug_dirs = debug_dirs, .ndebug_dirs = ndebug };
		long k = strtab_find(b->phase_names, "listen", 6);

		prof2 = profile__new(b->tl, k >= 0 ? (uint32_t)k : UINT32_MAX, &po);
		if (!prof2) {
			fprintf(stderr, "analyze: out of memory\n");
			rc = 1;
		}
	}
	/* the off-CPU flame graphs, in the CPU profile's windows (--profile=offcpu's own) */
	if (!rc && plot_dir && !b && prof && prof->offcpu) {
		proff = prof;
		prof = NULL;
	} else if (!rc && plot_dir && (b ? b : a)->tl && (b ? b : a)->tl->off_stacks) {
		const struct analysis *pa = b ? b : a;
		const struct profile *pp = b ? prof2 : prof;
		struct profile_opts po = { .debug_dirs = debug_dirs, .ndebug_dirs = ndebug,
					   .offcpu = true };
		long k = strtab_find(pa->phase_names, "listen", 6);

		proff = profile__new(pa->tl, pp ? pp->phase : k >= 0 ? (uint32_t)k : UINT32_MAX,
				     &po);
		if (!proff) {
			fprintf(stderr, "analyze: out of memory\n");
			rc = 1;
		}
	}
	if (!rc && plot_dir)
		rc = plot_write(plot_dir, b ? b : a, stderr, b ? prof2 : prof, proff);
cleanup:
	failures__free(fl);
	free(until_file);
	profile__free(prof);
	profile__free(prof2);
	profile__free(proff);
	analysis__free(a);
	analysis__free(b);
	return rc;
}

int main(int argc, char **argv)
{
	/* allocated here, so that every return of analyze_main() frees it */
	const char **debug_dirs = calloc((size_t)argc + 1, sizeof(*debug_dirs));
	int rc = analyze_main(argc, argv, debug_dirs);

	free(debug_dirs);
	return rc;
}
