// SPDX-License-Identifier: BSD-2-Clause
/*
 * One poll turn shared by the three ways to run, the line on stderr (the
 * events', or --runs' progress), the stop flag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/kernel/marks.h"
#include "collector/run/progress.h"
#include "collector/run/rotate.h"

volatile sig_atomic_t collector_exiting;

/* --runs > 1: the progress line, with the --mark labels and --until's phase */
static struct progress *progress_for(const struct collector *c)
{
	size_t i, n = marks_count(c->opt.marks), k = 0;
	const char **labels = calloc(n ? n : 1, sizeof(*labels));
	const char *p50 = NULL;
	struct progress *p;

	if (!labels)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct mark *m = marks_get(c->opt.marks, i);

		if (m && !m->start)
			labels[k++] = m->label;
	}
	if (c->opt.until == UNTIL_EXEC)
		p50 = "exec";
	else if (c->opt.until == UNTIL_LISTEN)
		p50 = "listen";
	else if (c->opt.until == UNTIL_MARK)
		p50 = c->opt.until_mark;
	p = progress__new(c->opt.runs, labels, k, p50);
	free(labels);
	return p;
}

void loop_status_setup(struct collector *c)
{
	c->status_line = isatty(STDERR_FILENO) && !c->opt.verbose;
	/*
	 * A command shares the terminal (spawn mode's, client mode's client):
	 * whatever it writes would land in a line redrawn in place, and a
	 * line redrawn after it would erase or split it (it writes to the
	 * terminal itself, where the collector cannot see it). So, as
	 * hyperfine draws no progress bar when the commands' output is
	 * shown: --runs prints one whole line as each run ends, and the
	 * events' line is drawn only at the end (watch and --pid: each
	 * second, nothing else writes there). Out of memory: no --runs line.
	 */
	c->status_live = c->status_line && !c->opt.command;
	if (c->status_line && c->opt.command && c->opt.runs > 1)
		c->progress = progress_for(c);
}

void loop_status_clear(struct collector *c)
{
	if (!c->status_shown)
		return;
	fputs("\r\033[K", stderr);
	c->status_shown = 0;
}

/* The terminal's width in columns, 0 when unknown. */
static unsigned terminal_columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) < 0)
		return 0;
	return ws.ws_col;
}

/* One line on stderr, rewritten each second, like perf top's or dd's. */
void loop_show_status(struct collector *c, int final)
{
	unsigned long long now = mono_ns(), rows = c->out->rows;

	if (!c->status_line || c->progress || (!final && !c->status_live))
		return;	/* --runs: loop_run_end()'s lines instead */
	if (!final && now < c->status_at + 1000000000ULL)
		return;
	fprintf(stderr, "\rcollector: %zu containers, %llu events, %.0f events/s, lost %llu\033[K%s",
		containers_count_top(&c->containers), rows,
		c->status_at ? (rows - c->status_rows) * 1e9 / (double)(now - c->status_at) : 0.0,
		c->be->ops->lost(c->be), final ? "\n" : "");
	c->status_shown = !final;
	c->status_at = now;
	c->status_rows = rows;
}

void loop_run_begin(struct collector *c)
{
	if (c->progress)
		progress_run_begin(c->progress, mono_ns());
}

void loop_run_end(struct collector *c)
{
	unsigned long long now = mono_ns();
	char line[512];

	if (!c->progress)
		return;
	progress_run_end(c->progress, now);
	if (collector_exiting)
		return;	/* interrupted: the closing line says it */
	progress_format(c->progress, now, line, sizeof(line), terminal_columns());
	fprintf(stderr, "%s\n", line);
}

int loop_poll_once(struct collector *c, int timeout_ms)
{
	int err = c->be->ops->poll(c->be, timeout_ms);

	if (err < 0) {
		fprintf(stderr, "collector: polling the BPF buffer failed: %s\n", strerror(-err));
		return err;
	}
	if (output_flush(c->out) < 0)
		return -c->out->err;
	if (c->on_turn)
		c->on_turn(c);
	rotate_turn(c);
	loop_show_status(c, 0);
	return 0;
}

unsigned long long loop_deadline(const struct collector *c)
{
	return c->opt.duration_ns ? mono_ns() + c->opt.duration_ns : 0;
}
