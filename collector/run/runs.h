/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The runs of spawn and client mode: how each boot ended, said on stderr
 * and counted, and the collector's exit status from them (collector(8),
 * EXIT STATUS; docs/collector.md):
 *
 *   0    every boot reached its --until phase (--until end, the default:
 *        the last command's own status, as env(1) and timeout(1) pass it)
 *   124  a boot never reached its phase: --timeout or -d ran out first,
 *        or its command (client mode: its container) ended before it; or
 *        -d ran out before the runs were done. timeout(1)'s status for "the
 *        time ran out", which no other status of the collector's takes (1,
 *        2, 126, 127, 128 + a signal)
 *   130  interrupted by SIGINT (143: SIGTERM): the boot in progress
 *        stopped, the runs left not started; main re-raises the signal
 *        once the trailer is written, so that a shell's loop stops too
 *
 * A boot the collector stopped because it reached its phase says nothing
 * (the command's status after the collector's SIGTERM is the collector's
 * doing, not the command's); the others say what happened, once each, and
 * with --runs > 1 a closing line names those that never reached it.
 */
#ifndef COLLECTOR_RUNS_H
#define COLLECTOR_RUNS_H

#include <stdbool.h>

#include "collector/run/containers.h"

struct collector;

/* How a boot ended. */
enum boot_end {
	BOOT_REACHED,		/* its phase (end: its command, or container, ended by itself) */
	BOOT_EARLY,		/* its command (client mode: its container) ended before the phase */
	BOOT_TIMEOUT,		/* stopped: --timeout ran out before the phase */
	BOOT_DURATION,		/* stopped: -d ran out before the phase */
	BOOT_INTERRUPTED,	/* stopped: SIGINT or SIGTERM came before the phase */
};

/* the boots that never reached their phase named in the closing line */
#define RUNS_NAMED 8

struct runs {
	int total;		/* --runs */
	int ended;		/* boots that ended but by a signal */
	int never;		/* of them, those that never reached their phase */
	int last_status;	/* the last boot's command's exit status */
	char named[RUNS_NAMED][CONTAINER_NAME_MAX];	/* the first of those */
};

/*
 * runs_stop_due - whether the boot in progress, begun at @start, must be
 * stopped at @now, and why in *@how: a signal came (BOOT_INTERRUPTED), -d
 * ran out (BOOT_DURATION), --timeout ran out before it reached its phase
 * (BOOT_TIMEOUT).
 */
bool runs_stop_due(const struct collector *c, unsigned long long start, unsigned long long now,
		   enum boot_end *how);

/* runs_init - no boot yet, of @total. */
void runs_init(struct runs *r, int total);

/*
 * runs_boot_end - boot @name ended @how, its command having exited with
 * @status (a shell's: 128 + signal); @client: client mode's client
 * (named in the message when the container ended early), NULL in spawn
 * mode. Says it on stderr when there is something to say, and counts it.
 */
void runs_boot_end(struct collector *c, struct runs *r, const char *name, enum boot_end how,
		   int status, const char *client);

/*
 * runs_exit_status - the closing line (interrupted, -d ran out, boots that
 * never reached their phase), and the exit status of the runs as above.
 */
int runs_exit_status(struct collector *c, const struct runs *r);

#endif /* COLLECTOR_RUNS_H */
