// SPDX-License-Identifier: BSD-2-Clause
/* The printer of --failures: see failures_report.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analyze/boot/ending.h"
#include "analyze/out/failures_report.h"
#include "analyze/units.h"
#include "common/end_detail.h"

/* errno @e's name (ECONNREFUSED), the kernel's own above 511, or its number in @buf. */
static const char *errno_name(int64_t e, char buf[24])
{
	static const char *const restart[] = { "ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND",
					       "ENOIOCTLCMD", "ERESTART_RESTARTBLOCK" };
	const char *s = e > 0 && e < 512 ? strerrorname_np((int)e) : NULL;

	if (s)
		return s;
	if (e >= 512 && e <= 516)
		return restart[e - 512];
	snprintf(buf, 24, "errno%" PRId64, e);
	return buf;
}

static const char *str(const struct failures *fl, uint32_t id)
{
	return id == TL_NOSTR ? "" : timeline_str(fl->tl, id);
}

static const char *ctr_name(const struct failures *fl, size_t ci)
{
	return timeline_str(fl->tl, fl->tl->ctrs[ci].name);
}

/* The end's kind (exit, signal, unknown, running) and status, for tsv and json. */
static const char *end_kind(const struct fail_ctr *fc, char status[24])
{
	char name[16];

	status[0] = 0;
	if (fc->t_end == TL_NONE)
		return "running";
	if (fc->how >= END_SIGNAL) {
		snprintf(status, 24, "%s", end_signal_name(fc->how - END_SIGNAL, name));
		return "signal";
	}
	if (fc->how >= 0) {
		snprintf(status, 24, "%d", fc->how);
		return "exit";
	}
	return "unknown";
}

static const char *sender_kind(const struct fail_ctr *fc)
{
	switch (fc->sender) {
	case SENDER_WAKER: return "waker";
	case SENDER_IRQ: return "interrupt";
	case SENDER_UNKNOWN: return "unknown";
	case SENDER_RUNNING: return "running";
	default: return "none";
	}
}

static int64_t before_end(const struct fail_ctr *fc, uint64_t ts)
{
	return ts <= fc->t_end ? (int64_t)(fc->t_end - ts) : 0;
}

/* What the rows say of the waker as a task: inside the container, or its host rows. */
static void text_waker(FILE *f, const struct failures *fl, const struct fail_ctr *fc)
{
	if (!fc->sender_known) {
		fprintf(f, "    (outside the container; host rows, in client mode or with --sched "
			"host, would say what it ran)\n");
		return;
	}
	fprintf(f, "    (%s: process %" PRId64, fc->sender_host ? "outside the container" :
		"in the container", fc->sender_pid);
	if (fc->sender_exec != TL_NOSTR)
		fprintf(f, ", exec of %s", str(fl, fc->sender_exec));
	if (fc->sender_ppid > 0)
		fprintf(f, ", child of %" PRId64 "%s%s", fc->sender_ppid,
			fc->sender_pcomm != TL_NOSTR ? " " : "", str(fl, fc->sender_pcomm));
	fprintf(f, ")\n");
}

static void text_sender(FILE *f, const struct failures *fl, const struct fail_ctr *fc)
{
	char b[UNITS_BUFSZ];

	switch (fc->sender) {
	case SENDER_WAKER:
		fprintf(f, "    woken from its last sleep %s before the end by %" PRId64 " %s: "
			"its sender (a signal wakes its target in the sender's context)\n",
			units_format(before_end(fc, fc->sender_ts), b), fc->sender_tid,
			str(fl, fc->sender_comm));
		text_waker(f, fl, fc);
		break;
	case SENDER_IRQ:
		fprintf(f, "    woken from its last sleep by an interrupt: the rows name no sender "
			"(the kernel's own signal, or one sent from an interrupt)\n");
		break;
	case SENDER_UNKNOWN:
		fprintf(f, "    woken from its last sleep while %" PRId64 " %s was current: this "
			"object cannot tell a task's wake from an interrupt's, so that is a guess\n",
			fc->sender_tid, str(fl, fc->sender_comm));
		break;
	case SENDER_RUNNING:
		fprintf(f, "    it was running or runnable when the signal came: no wake names "
			"the sender\n");
		break;
	default:
		fprintf(f, "    the rows do not say who sent it (no scheduler rows of its init)\n");
		break;
	}
	if (fc->kill_ts != TL_NONE)
		fprintf(f, "    %s() by %" PRId64 " %s of %s %s before the end (a candidate: the "
			"rows do not record a kill's target)\n", str(fl, fc->kill_name), fc->kill_tid,
			str(fl, fc->kill_comm), ctr_name(fl, fc->kill_ctr),
			units_format(before_end(fc, fc->kill_ts), b));
	else
		fprintf(f, "    no kill() of a traced task in the stretch: a sender outside every "
			"container has no syscall rows\n");
}

static void text_one(FILE *f, const struct failures *fl, const struct fail_ctr *fc)
{
	const struct tl_container *c = &fl->tl->ctrs[fc->ctr];
	char b[3][UNITS_BUFSZ], how[40], eb[24];
	size_t k;

	fprintf(f, "%s (file %u): ", ctr_name(fl, fc->ctr), c->file + 1);
	if (fc->t_end == TL_NONE)
		fprintf(f, "no end: running when the trace ended");
	else
		fprintf(f, "%s after %s", end_how_text(fc->how, how, sizeof(how)),
			units_format((int64_t)(fc->t_end - c->t_start), b[0]));
	if (fc->init != TL_NOTASK)
		fprintf(f, " (init %" PRId64 " %s)", c->tasks[fc->init].pid,
			str(fl, c->tasks[fc->init].comm_last));
	fprintf(f, "\n");
	if (fc->prev != SIZE_MAX) {
		if (fc->backoff != TL_NONE)
			fprintf(f, "  restart %u: started %s after %s ended (back-off)\n", fc->boot,
				units_format((int64_t)fc->backoff, b[0]), ctr_name(fl, fc->prev));
		else
			fprintf(f, "  restart %u: %s before it has no end\n", fc->boot,
				ctr_name(fl, fc->prev));
	}
	if (fc->t_end == TL_NONE)
		return;
	if (!fc->failed)
		fprintf(f, "  no failed syscall in its last %s\n",
			units_format((int64_t)(fc->t_end - fc->from), b[0]));
	else
		fprintf(f, "  failed syscalls in its last %s: %" PRIu64 "\n",
			units_format((int64_t)(fc->t_end - fc->from), b[0]), fc->failed);
	for (k = 0; k < fc->ngroups; k++) {
		const struct fail_group *g = &fc->groups[k];

		fprintf(f, "    %s %s%s%s \xc3\x97 %" PRIu64 "  (last %s before the end)\n",
			str(fl, g->name), errno_name(g->err, eb), g->detail != TL_NOSTR ? " " : "",
			str(fl, g->detail), g->count, units_format(before_end(fc, g->last), b[1]));
	}
	if (fc->nall > fc->ngroups)
		fprintf(f, "    and %zu groups that failed earlier\n", fc->nall - fc->ngroups);
	if (fc->how >= END_SIGNAL) {
		fprintf(f, "  signal SIG%s:\n", end_signal_name(fc->how - END_SIGNAL, eb));
		text_sender(f, fl, fc);
	}
}

static void tsv_one(FILE *f, const struct failures *fl, const struct fail_ctr *fc)
{
	const struct tl_container *c = &fl->tl->ctrs[fc->ctr];
	const char *name = ctr_name(fl, fc->ctr);
	char status[24], eb[24];
	const char *kind = end_kind(fc, status);
	size_t k;

	fprintf(f, "%s\tend\t%s\t%s\t\\N\t", name, kind, *status ? status : "\\N");
	if (fc->t_end != TL_NONE)
		fprintf(f, "%" PRIu64, fc->t_end - c->t_start);
	else
		fprintf(f, "\\N");
	if (fc->init != TL_NOTASK)
		fprintf(f, "\tinit=%" PRId64 "\n", c->tasks[fc->init].pid);
	else
		fprintf(f, "\t\\N\n");
	if (fc->prev != SIZE_MAX) {
		fprintf(f, "%s\trestart\t%s\t\\N\t\\N\t", name, ctr_name(fl, fc->prev));
		if (fc->backoff != TL_NONE)
			fprintf(f, "%" PRIu64 "\t\\N\n", fc->backoff);
		else
			fprintf(f, "\\N\t\\N\n");
	}
	for (k = 0; k < fc->ngroups; k++) {
		const struct fail_group *g = &fc->groups[k];

		fprintf(f, "%s\tsyscall\t%s\t%s\t%" PRIu64 "\t%" PRId64 "\t%s\n", name,
			str(fl, g->name), errno_name(g->err, eb), g->count, before_end(fc, g->last),
			g->detail != TL_NOSTR ? str(fl, g->detail) : "\\N");
	}
	if (fc->how < END_SIGNAL)
		return;
	fprintf(f, "%s\tsender\t%s\t\\N\t\\N\t", name, sender_kind(fc));
	if (fc->sender == SENDER_WAKER || fc->sender == SENDER_UNKNOWN) {
		fprintf(f, "%" PRId64 "\ttid=%" PRId64 " comm=%s", before_end(fc, fc->sender_ts),
			fc->sender_tid, str(fl, fc->sender_comm));
		if (fc->sender_known)
			fprintf(f, " pid=%" PRId64 " ppid=%" PRId64 " host=%d", fc->sender_pid,
				fc->sender_ppid, fc->sender_host);
		if (fc->sender_exec != TL_NOSTR)
			fprintf(f, " exec=%s", str(fl, fc->sender_exec));
		fprintf(f, "\n");
	} else {
		fprintf(f, "\\N\t\\N\n");
	}
	if (fc->kill_ts != TL_NONE)
		fprintf(f, "%s\tsender\tkill\t\\N\t\\N\t%" PRId64 "\ttid=%" PRId64 " comm=%s "
			"container=%s\n", name, before_end(fc, fc->kill_ts), fc->kill_tid,
			str(fl, fc->kill_comm), ctr_name(fl, fc->kill_ctr));
}

static void json_s(FILE *f, const char *s)
{
	report_json_string(f, s, strlen(s));
}

static void json_one(FILE *f, const struct failures *fl, const struct fail_ctr *fc)
{
	const struct tl_container *c = &fl->tl->ctrs[fc->ctr];
	char status[24], eb[24];
	const char *kind = end_kind(fc, status);
	size_t k;

	fprintf(f, "{\"container\": ");
	json_s(f, ctr_name(fl, fc->ctr));
	fprintf(f, ", \"file\": %u, \"end\": \"%s\"", c->file + 1, kind);
	if (fc->how >= 0 && fc->how < END_SIGNAL)
		fprintf(f, ", \"status\": %d", fc->how);
	if (fc->how >= END_SIGNAL)
		fprintf(f, ", \"signal\": \"%s\"", status);
	if (fc->t_end != TL_NONE)
		fprintf(f, ", \"lifetime_ns\": %" PRIu64, fc->t_end - c->t_start);
	if (fc->init != TL_NOTASK)
		fprintf(f, ", \"init\": %" PRId64, c->tasks[fc->init].pid);
	if (fc->prev != SIZE_MAX) {
		fprintf(f, ", \"restart_of\": ");
		json_s(f, ctr_name(fl, fc->prev));
		if (fc->backoff != TL_NONE)
			fprintf(f, ", \"backoff_ns\": %" PRIu64, fc->backoff);
		else
			fprintf(f, ", \"backoff_ns\": null");
	}
	fprintf(f, ", \"failed\": %" PRIu64 ", \"failed_syscalls\": [", fc->failed);
	for (k = 0; k < fc->ngroups; k++) {
		const struct fail_group *g = &fc->groups[k];

		fprintf(f, "%s{\"syscall\": ", k ? ", " : "");
		json_s(f, str(fl, g->name));
		fprintf(f, ", \"error\": \"%s\", \"count\": %" PRIu64 ", \"last_before_end_ns\": %"
			PRId64 ", \"detail\": ", errno_name(g->err, eb), g->count,
			before_end(fc, g->last));
		if (g->detail != TL_NOSTR)
			json_s(f, str(fl, g->detail));
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "]");
	if (fc->how >= END_SIGNAL) {
		fprintf(f, ", \"sender\": {\"how\": \"%s\"", sender_kind(fc));
		if (fc->sender == SENDER_WAKER || fc->sender == SENDER_UNKNOWN) {
			fprintf(f, ", \"tid\": %" PRId64 ", \"comm\": ", fc->sender_tid);
			json_s(f, str(fl, fc->sender_comm));
			fprintf(f, ", \"before_end_ns\": %" PRId64, before_end(fc, fc->sender_ts));
			if (fc->sender_known) {
				fprintf(f, ", \"pid\": %" PRId64 ", \"ppid\": %" PRId64
					", \"outside\": %s", fc->sender_pid, fc->sender_ppid,
					fc->sender_host ? "true" : "false");
				if (fc->sender_exec != TL_NOSTR) {
					fprintf(f, ", \"exec\": ");
					json_s(f, str(fl, fc->sender_exec));
				}
			}
		}
		if (fc->kill_ts != TL_NONE) {
			fprintf(f, ", \"kill\": {\"syscall\": ");
			json_s(f, str(fl, fc->kill_name));
			fprintf(f, ", \"tid\": %" PRId64 ", \"comm\": ", fc->kill_tid);
			json_s(f, str(fl, fc->kill_comm));
			fprintf(f, ", \"container\": ");
			json_s(f, ctr_name(fl, fc->kill_ctr));
			fprintf(f, ", \"before_end_ns\": %" PRId64 "}", before_end(fc, fc->kill_ts));
		}
		fprintf(f, "}");
	}
	fprintf(f, "}");
}

void failures_list_unreached(FILE *f, const struct timeline *tl, uint32_t phase, size_t max)
{
	char how[40], b[UNITS_BUFSZ];
	size_t i, listed = 0, more = 0;

	for (i = 0; i < tl->nctrs; i++) {
		const struct tl_container *c = &tl->ctrs[i];

		if (c->is_host || c->t_start == TL_NONE || timeline_phase(c, phase) != TL_NONE)
			continue;
		if (listed++ == max) {
			listed--;
			more++;
			continue;
		}
		if (c->t_end == TL_NONE)
			fprintf(f, "  %s: no end: running when the trace ended\n",
				timeline_str(tl, c->name));
		else
			fprintf(f, "  %s: %s after %s\n", timeline_str(tl, c->name),
				end_how_text(ending_how(c), how, sizeof(how)),
				units_format((int64_t)(c->t_end - c->t_start), b));
	}
	if (more)
		fprintf(f, "  and %zu more (analyze --failures)\n", more);
}

int failures_print(FILE *f, const struct failures *fl, enum report_format fmt)
{
	char b[UNITS_BUFSZ];
	size_t i;

	if (fmt == FMT_TSV)
		fprintf(f, "container\tkind\tname\terror\tcount\tns\tdetail\n");
	else if (fmt == FMT_JSON)
		fprintf(f, "{\"stretch_ns\": %" PRIu64 ", \"boots\": [", fl->stretch);
	else
		fprintf(f, "why each boot ended (failed syscalls: the last %s before its end):\n",
			units_format((int64_t)fl->stretch, b));
	for (i = 0; i < fl->n; i++) {
		if (fmt == FMT_TSV) {
			tsv_one(f, fl, &fl->v[i]);
		} else if (fmt == FMT_JSON) {
			fprintf(f, "%s\n  ", i ? "," : "");
			json_one(f, fl, &fl->v[i]);
		} else {
			fprintf(f, "\n");
			text_one(f, fl, &fl->v[i]);
		}
	}
	if (fmt == FMT_JSON)
		fprintf(f, "\n]}\n");
	else if (fmt == FMT_TEXT && !fl->n)
		fprintf(f, "no containers\n");
	return ferror(f) ? -1 : 0;
}
