/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The collector's state, and the calls between its rooms. The rooms are
 * in wings (collector/README.md), which include downwards only: main.c,
 * options.c and setup.c on top, then serve/ (--metrics), run/ (the ways
 * to run, what a container is, the records' dispatch: this header is
 * theirs), rows/ (rows and files), profile/ (--profile's samples) and
 * kernel/ (the BPF objects and what the host offers: tracefs, /proc,
 * cgroups, ELF files). tests/integration/test_include_order.sh checks it.
 */
#ifndef COLLECTOR_COLLECTOR_H
#define COLLECTOR_COLLECTOR_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "collector/kernel/backend.h"
#include "collector/run/child.h"
#include "collector/run/containers.h"
#include "collector/options.h"
#include "collector/rows/output.h"

struct bt_cgroup_event;
struct exporter;
struct bt_root_event;
struct bt_event_hdr;
struct progress;
struct spans;
struct spanrows;

/* Client mode: the run in progress (client.c). */
struct client_run {
	int live;			/* a new matching container is this run's */
	int n;				/* its number, from 1 */
	unsigned long long spawn_ts;	/* the client's spawn: the start row's time */
	struct child ch;		/* the client */
	int have;			/* its container came */
	pid_t pid1;			/* pidtree: the container's pid 1 */
	char path[512];			/* its cgroup, relative to the cgroup2 mount; for a
					 * pod, the pod's (client.c) */
	int pod;			/* the container is a pod's: the run is the pod */
};

struct collector {
	struct options opt;
	enum bt_mode mode;
	struct backend *be;
	int usage_error;		/* set-up failed on what the command line asks: exit 2 */
	unsigned long long next_key;	/* pidtree: the next user-space key */
	struct output *out;
	char cg2[PATH_MAX];
	struct container_table containers;
	unsigned long long stray;	/* events of cgroups user space dropped */
	int stdout_is_tsv;		/* the TSV goes to stdout (no -o FILE) */
	/* the status line (stderr is a terminal) */
	int status_line;
	int status_live;		/* redrawn each second (no command shares the terminal) */
	int status_shown;		/* a line is on the terminal, no newline after it */
	unsigned long long status_at, status_rows, started_ns;
	struct progress *progress;	/* --runs: the progress line instead of the events' */
	/* spawn mode, the boot in progress */
	struct container *spawned;
	int spawned_gone;		/* pidtree: its last task exited */
	unsigned long long until_at;	/* when to stop it, 0: not yet */
	int until_reached;		/* it reached --until's phase (lifecycle_until_reached()) */
	unsigned long long run_deadline;	/* spawn, client: -d's end of the runs, 0: none */
	/* --start: the spawn time, kept until the probe's start row replaces it */
	unsigned long long spawn_ts;
	int start_written;		/* this boot's start row is out */
	struct client_run client;	/* client mode */
	struct exporter *exporter;	/* --metrics (exporter.c) */
	/*
	 * After each poll turn (loop.c), NULL: nothing. --metrics serves its
	 * scrapers there: serve/ is above run/, whose loop calls it only
	 * through this, as output.c calls serve/boots.c through on_row.
	 */
	void (*on_turn)(struct collector *c);
	/* the run's files (rotate.c) */
	char run_id[33];		/* in each file's metadata */
	unsigned part;			/* this file's, from 1 */
	unsigned long long lost_base;	/* events lost before this file */
	int output_file;		/* -o is a regular file: SIGHUP reopens it */
	struct samples *samples;	/* --profile or --offcpu-stacks with the modern object, else NULL */
	struct offstacks *offstacks;	/* --offcpu-stacks on: stacks until their sched rows; else NULL */
	struct spans *spans;		/* --spans on with the modern object: the attacher */
	struct spanrows *spanrows;	/* and the pairer of its records; else both NULL */
};

/* loop.c: the signal that stops the collector, SIGINT or SIGTERM; 0: none (the only global). */
extern volatile sig_atomic_t collector_exiting;

/* --- lifecycle.c: what a container is, its start and end rows ------------ */

/* track or untrack a cgroup id in the kernel (untrack: cgroup mode only) */
int lifecycle_track(struct collector *c, unsigned long long id);
void lifecycle_untrack(struct collector *c, unsigned long long id);
/* a cgroup v2 directory was made or removed (cgroup mode) */
void lifecycle_on_cgroup(struct collector *c, const struct bt_cgroup_event *e);
/*
 * the first record of candidate @k (a task entered it): it becomes a
 * container (its start row is written) or a part of the container that
 * is its ancestor; returns @k
 */
struct container *lifecycle_decide(struct collector *c, struct container *k);
/* pidtree watch mode: the kernel found a task that starts a container */
void lifecycle_on_root(struct collector *c, const struct bt_root_event *e);
/* pidtree mode: the last task of a container exited */
void lifecycle_on_gone(struct collector *c, const struct bt_event_hdr *h);
/* the start row of @k: @how it was seen, by task @pid/@comm, @detail */
void lifecycle_write_start(struct collector *c, struct container *k, unsigned long long ts,
			   const char *how, long pid, const char *comm, const char *detail);
/*
 * Container @k (a runtime's: cgroup @path, made by task @maker, child of
 * @maker_parent; 0: unknown) gets a meta row of its names
 * (runtime_names.h) once they are known: from lifecycle_names() at its
 * rows, at the latest before its entrypoint's exec row or its end row.
 */
void lifecycle_names_begin(struct collector *c, struct container *k, const char *path,
			   long maker, long maker_parent);
/*
 * a row of task @pid of container @k is about to be written at @ts: look
 * for its bundle (at the first row of each task, 8 times at most),
 * and write its meta row when found, or when @last (an exec that may be
 * its entrypoint's)
 */
void lifecycle_names(struct collector *c, struct container *k, unsigned long long ts, long pid,
		     bool last);
/* the end row of @k: its detail, how its init ended, when its exit was seen */
void lifecycle_write_end(struct collector *c, struct container *k, unsigned long long ts);
/*
 * container @k (a top one; NULL: none) saw an exec by process @pid,
 * @flagged_init when the kernel flagged it init: the first flagged one,
 * else the first one, is its init
 */
void lifecycle_saw_exec(struct container *k, long pid, int flagged_init);
/* container @k (NULL: none) saw process @pid exit with wait(2) status @wstatus */
void lifecycle_saw_exit(struct container *k, long pid, unsigned wstatus);
/*
 * container @k reached @what: when it is the boot in progress (spawn and
 * client mode) and @what is --until's, it reached its phase
 * (c->until_reached), and is stopped --until's +DURATION later
 */
void lifecycle_until_reached(struct collector *c, struct container *k, enum until_kind what);

/* --- records.c: records → TSV rows ---------------------------------------- */

/* the backend's callback: one record (bpf/boottrace.h) from the kernel */
int records_on_event(void *ctx, void *data, size_t size);
/* the metadata lines and the header line */
void records_write_header(struct collector *c);
struct row;
/* the columns of a row of @h (its task), of container @k (NULL: a host row, container \N) */
void records_row_from_hdr(const struct collector *c, struct row *r, const struct bt_event_hdr *h,
			  const struct container *k, const char *event);

/* --- jitrows.c: perf maps written late, as jit rows ------------------------ */

/* process @h->pid, of container @k, exits or execs: its jit rows */
void jitrows_take(struct collector *c, struct container *k, const struct bt_event_hdr *h);
/* the run ends: the jit rows of the processes still running */
void jitrows_finish(struct collector *c);

/* --- loop.c --------------------------------------------------------------- */

/* deliver what the kernel has (waiting up to @timeout_ms), flush; 0 or -errno */
int loop_poll_once(struct collector *c, int timeout_ms);
/*
 * which lines stderr shows: none unless it is a terminal (and not -v);
 * spawn and client mode with --runs > 1, a progress line as each run ends
 * (progress.h), else the events' (watch, --pid: redrawn each second; a
 * command shares the terminal: only at the end). c->progress NULL when it
 * cannot be had.
 */
void loop_status_setup(struct collector *c);
/* the events' line on a terminal: each second where live, the @final one stays */
void loop_show_status(struct collector *c, int final);
/* erase the events' line, if one is shown, before a message on stderr */
void loop_status_clear(struct collector *c);
/* --runs: a run begins; one ends (its progress line, unless interrupted) */
void loop_run_begin(struct collector *c);
void loop_run_end(struct collector *c);
/* when --duration ends (CLOCK_MONOTONIC ns), 0: never */
unsigned long long loop_deadline(const struct collector *c);

/* --- spawn.c, watch.c: the three ways to run ------------------------------ */

/* spawn mode: the command N times; the collector's exit status */
int spawn_run(struct collector *c);
/* client mode: the client N times; exit status */
int client_run(struct collector *c);
/*
 * client mode: container @k (cgroup @path; pidtree: its pid 1 @pid1) came
 * while a run is live: the run's (its client start row written), another
 * container of the run's pod (k->run_member), or another one, said on
 * stderr
 */
void client_claim(struct collector *c, struct container *k, const char *path, pid_t pid1);
/* watch mode: until a signal or --duration; exit status */
int watch_run(struct collector *c);
/* --pid: the tree of an existing process until it ends; exit status */
int watch_attach(struct collector *c);

/* --- setup.c -------------------------------------------------------------- */

/* the capabilities loading and @o need; 0, or -1 after saying what is missing */
int setup_check_capabilities(const struct options *o);
/* --mode, or what auto picks; 0, or -1 after a message */
int setup_mode(struct collector *c);
/* @cfg from the options (syscall list included); 0, or -1 after a message */
int setup_config(struct collector *c, struct backend_config *cfg);
/*
 * open, load and attach the object (auto: modern, else compat in cgroup
 * mode, else legacy in pidtree mode); 0 or -errno (c->usage_error: exit 2)
 */
int setup_open_backend(struct collector *c, struct backend_config *cfg, int have_btf);
/*
 * --spans with the modern object: the attacher and the pairer, and the
 * host's interpreters attached; with the others, none (said when asked).
 * 0, or -1 after a message.
 */
int setup_spans(struct collector *c);

#endif /* COLLECTOR_COLLECTOR_H */
