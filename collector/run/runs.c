// SPDX-License-Identifier: BSD-2-Clause
/* The runs of spawn and client mode, their ends and the exit status: see runs.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "collector/collector.h"
#include "collector/run/runs.h"
#include "common/tsv.h"

/* The exit status of a boot that never reached its phase: timeout(1)'s. */
#define EXIT_NEVER_REACHED 124

bool runs_stop_due(const struct collector *c, unsigned long long start, unsigned long long now,
		   enum boot_end *how)
{
	if (collector_exiting)
		*how = BOOT_INTERRUPTED;
	else if (c->run_deadline && now >= c->run_deadline)
		*how = BOOT_DURATION;
	else if (c->opt.timeout_ns && !c->until_reached && now >= start + c->opt.timeout_ns)
		*how = BOOT_TIMEOUT;
	else
		return false;
	return true;
}

void runs_init(struct runs *r, int total)
{
	memset(r, 0, sizeof(*r));
	r->total = total;
}

/* @ns as the user would have written it: "5 s", "500 ms", "1.25 s". */
static const char *duration_text(unsigned long long ns, char *buf, size_t n)
{
	if (ns % 1000000000ULL == 0)
		snprintf(buf, n, "%llu s", ns / 1000000000ULL);
	else if (ns % 1000000ULL == 0)
		snprintf(buf, n, "%llu ms", ns / 1000000ULL);
	else
		snprintf(buf, n, "%.3f s", (double)ns / 1e9);
	return buf;
}

void runs_boot_end(struct collector *c, struct runs *r, const char *name, enum boot_end how,
		   int status, const char *client)
{
	const char *phase = options_until_name(&c->opt);
	char d[32], esc[TSV_ESCAPED_MAX(CONTAINER_NAME_MAX) + 1];

	/* a client mode container's name is its cgroup's: bytes of anyone's */
	esc[tsv_escape(name, strnlen(name, CONTAINER_NAME_MAX), esc)] = '\0';
	name = esc;
	r->last_status = status;
	if (how == BOOT_INTERRUPTED)
		return;	/* runs_exit_status() says it */
	r->ended++;
	if (how != BOOT_REACHED) {
		if (r->never < RUNS_NAMED)
			snprintf(r->named[r->never], sizeof(r->named[0]), "%s", name);
		r->never++;
	}
	loop_status_clear(c);
	switch (how) {
	case BOOT_REACHED:
		/* its own failure: --until end (the default) passes its status on */
		if (c->opt.until == UNTIL_END && status)
			fprintf(stderr, "collector: %s exited with status %d\n", name, status);
		break;
	case BOOT_EARLY:
		if (client)
			fprintf(stderr, "collector: %s ended before %s (%s exited with status %d)\n",
				name, phase, client, status);
		else
			fprintf(stderr, "collector: %s exited with status %d before %s\n", name,
				status, phase);
		break;
	case BOOT_TIMEOUT:
		fprintf(stderr, "collector: %s did not reach %s within --timeout %s: stopped\n", name,
			phase, duration_text(c->opt.timeout_ns, d, sizeof(d)));
		break;
	case BOOT_DURATION:
		fprintf(stderr, "collector: %s did not reach %s before -d %s ran out: stopped\n", name,
			phase, duration_text(c->opt.duration_ns, d, sizeof(d)));
		break;
	case BOOT_INTERRUPTED:
		break;
	}
}

int runs_exit_status(struct collector *c, const struct runs *r)
{
	const char *phase = options_until_name(&c->opt);
	char d[32];
	int i;

	loop_status_clear(c);
	if (collector_exiting) {
		fprintf(stderr, "collector: interrupted after %d of %d run%s\n", r->ended, r->total,
			r->total == 1 ? "" : "s");
		return 128 + collector_exiting;
	}
	if (r->ended < r->total)
		fprintf(stderr, "collector: -d %s ran out after %d of %d runs%s",
			duration_text(c->opt.duration_ns, d, sizeof(d)), r->ended, r->total,
			r->never ? "; never reached " : "\n");
	else if (r->never && r->total > 1)
		fprintf(stderr, "collector: %d of %d boots never reached ", r->never, r->total);
	if (r->never && (r->total > 1 || r->ended < r->total)) {
		fprintf(stderr, "%s:", phase);
		for (i = 0; i < r->never && i < RUNS_NAMED; i++)
			fprintf(stderr, "%s %s", i ? "," : "", r->named[i]);
		fprintf(stderr, "%s\n", r->never > RUNS_NAMED ? ", ..." : "");
	}
	if (r->never || r->ended < r->total)
		return EXIT_NEVER_REACHED;
	return c->opt.until == UNTIL_END ? r->last_status : 0;
}
