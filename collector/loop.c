// SPDX-License-Identifier: BSD-2-Clause
/* One poll turn shared by the three ways to run, the status line, the stop flag. */
#include <stdio.h>
#include <string.h>

#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/exporter.h"
#include "collector/rotate.h"

volatile sig_atomic_t collector_exiting;

/* One line on stderr, rewritten each second, like perf top's or dd's. */
void loop_show_status(struct collector *c, int final)
{
	unsigned long long now = mono_ns(), rows = c->out->rows;

	if (!c->status_line || (!final && now < c->status_at + 1000000000ULL))
		return;
	fprintf(stderr, "\rcollector: %zu containers, %llu events, %.0f events/s, lost %llu\033[K%s",
		containers_count_top(&c->containers), rows,
		c->status_at ? (rows - c->status_rows) * 1e9 / (double)(now - c->status_at) : 0.0,
		c->be->ops->lost(c->be), final ? "\n" : "");
	c->status_at = now;
	c->status_rows = rows;
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
	exporter_turn(c);
	rotate_turn(c);
	loop_show_status(c, 0);
	return 0;
}

unsigned long long loop_deadline(const struct collector *c)
{
	return c->opt.duration_ns ? mono_ns() + c->opt.duration_ns : 0;
}
