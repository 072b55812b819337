// SPDX-License-Identifier: BSD-2-Clause
/* What a segment of a critical path says, in every format: see critpath_seg.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/boot/cpu_share.h"
#include "analyze/boot/profile.h"
#include "analyze/out/critpath_seg.h"
#include "common/tsv.h"

/* The task of segment @s, or NULL for the runtime's. */
const struct tl_task *cpseg_task(const struct tl_container *c, const struct cp_seg *s)
{
	return s->task == TL_NOTASK ? NULL : &c->tasks[s->task];
}

const char *cpseg_comm(const struct timeline *tl, const struct tl_container *c,
		       const struct cp_seg *s)
{
	const struct tl_task *t = cpseg_task(c, s);

	if (t)
		return timeline_str(tl, timeline_comm_at(t, s->ts));
	return c->nstarts ? timeline_str(tl, c->starts[0].comm) : "";
}

void cpseg_ids(const struct tl_container *c, const struct cp_seg *s, int64_t *pid,
	       int64_t *tid)
{
	const struct tl_task *t = cpseg_task(c, s);

	*pid = t ? t->pid : c->nstarts ? c->starts[0].pid : 0;
	*tid = t ? t->tid : *pid;
}

/* "syscall:NAME", "cpu", ... into @buf. */
const char *cpseg_what(const struct timeline *tl, const struct cp_seg *s, char *buf,
		       size_t n)
{
	if (s->kind == CP_SYSCALL)
		snprintf(buf, n, "syscall:%s", timeline_str(tl, s->name));
	else
		snprintf(buf, n, "%s", critpath_kind_name((enum cp_kind)s->kind));
	return buf;
}

static const char *match_name(enum cp_match m)
{
	switch (m) {
	case CP_MATCH_PID: return "by pid";
	case CP_MATCH_TIME: return "matched by time";
	case CP_MATCH_PIPE: return "by pipe inode";
	case CP_MATCH_CLONE: return "child of this call";
	case CP_MATCH_WAKE: return "scheduler";
	case CP_MATCH_WAKE_CUR: return "current at the wake: a guess";
	default: return "";
	}
}

/* --- interpreter spans (span rows): the innermost a segment is in ---------- */

/* The innermost span of the segment's task that holds it, or NULL. */
const struct tl_span *cpseg_span(const struct tl_container *c, const struct cp_seg *s)
{
	const struct tl_task *t = cpseg_task(c, s);

	return t && t->nspans ? timeline_span_over(t, s->ts, s->ts + s->dur) : NULL;
}

/*
 * The innermost span holding @s that is 1% of the path (@total) or more:
 * the short segments are folded in runs that do not cross one's edges,
 * so a slow initializer's stretch is a line of its own.
 */
const struct tl_span *cpseg_big_span(const struct tl_container *c, const struct cp_seg *s,
				     uint64_t total)
{
	const struct tl_task *t = cpseg_task(c, s);
	const struct tl_span *sp = cpseg_span(c, s);

	while (sp && sp->dur < total / 100)
		sp = sp->parent == TL_NOSPAN ? NULL : &t->spans[sp->parent];
	return sp;
}

/* "load /app/slow.rb" (escaped, as in TSV) into @buf, or "" when @s is in no span. */
const char *cpseg_span_text(const struct timeline *tl, const struct tl_container *c,
			    const struct cp_seg *s, char *buf, size_t n)
{
	const struct tl_span *sp = cpseg_span(c, s);

	if (!sp)
		return "";
	snprintf(buf, n, "%s %s", timeline_str(tl, sp->kind), timeline_str(tl, sp->what));
	return buf;
}

/* Into @best (CPSEG_SPAN_TOP, zeroed here); how many there are. */
size_t cpseg_span_top(const struct tl_container *c, const struct cp_path *p,
		      struct cpseg_span_sum best[CPSEG_SPAN_TOP])
{
	struct cpseg_span_sum *v = NULL, *w;
	size_t nv = 0, i, k, j;

	memset(best, 0, CPSEG_SPAN_TOP * sizeof(*best));
	for (i = 0; i < p->nsegs; i++) {
		const struct tl_span *sp = cpseg_span(c, &p->segs[i]);

		if (!sp)
			continue;
		for (k = 0; k < nv && v[k].sp != sp; k++)
			;
		if (k == nv) {
			if (!(w = realloc(v, (nv + 1) * sizeof(*v))))
				break;	/* out of memory: the spans so far */
			v = w;
			v[nv].sp = sp;
			v[nv++].t = 0;
		}
		v[k].t += p->segs[i].dur;
	}
	for (i = 0; i < nv; i++) {
		for (k = 0; k < CPSEG_SPAN_TOP && best[k].sp && best[k].t >= v[i].t; k++)
			;
		if (k == CPSEG_SPAN_TOP)
			continue;
		for (j = CPSEG_SPAN_TOP - 1; j > k; j--)
			best[j] = best[j - 1];
		best[k] = v[i];
	}
	free(v);
	for (k = 0; k < CPSEG_SPAN_TOP && best[k].sp; k++)
		;
	return k;
}

/* How many tasks a runnable segment's text names by their share of its CPU. */
#define SHARE_TOP 3

/* @part of @whole as "97%", "0.3%" (into @buf, 16 bytes). */
static const char *share_pct(uint64_t part, uint64_t whole, char *buf)
{
	double x = whole ? 100.0 * (double)part / (double)whole : 0;

	if (part && x < 0.05)
		snprintf(buf, 16, "<0.1%%");
	else
		snprintf(buf, 16, x >= 9.95 ? "%.0f%%" : "%.1f%%", x);
	return buf;
}

/*
 * Who held the CPU of runnable segment @s of @p (its shares filled), as
 * "CPU 1 held by bar-hog 4021 97%, kworker/1:1H 46 0.3%, other 2.7%" at
 * @buf + @k (after "; " when the row's detail is there: a path may end in
 * anything): the SHARE_TOP tasks with the most time, each by the comm it
 * had then and its tid, then what is left. With host
 * rows that rest ran no task with rows (idle, the collector's threads);
 * without them the rest is unknown, said so. Returns the new length.
 */
static int share_text(const struct timeline *tl, const struct tl_container *c,
		      const struct cp_path *p, const struct cp_seg *s, char *buf, size_t n, int k)
{
	size_t ns, i;
	const struct cp_share *sh = cpu_share_of(p, (size_t)(s - p->segs), &ns);
	uint64_t named = 0;
	char pc[16];

	k += snprintf(buf + k, n - (size_t)k, "%sCPU %u held by", k ? "; " : "", s->cpu);
	for (i = 0; i < ns && (size_t)k < n; i++) {
		named += sh[i].ns;
		if (i < SHARE_TOP)
			k += snprintf(buf + k, n - (size_t)k, "%s %s %" PRId32 " %s", i ? "," : "",
				      timeline_str(tl, sh[i].comm), sh[i].tid,
				      share_pct(sh[i].ns, s->dur, pc));
	}
	if (i > SHARE_TOP && (size_t)k < n) {
		uint64_t rest = 0;

		for (i = SHARE_TOP; i < ns; i++)
			rest += sh[i].ns;
		k += snprintf(buf + k, n - (size_t)k, ", %zu more %s", ns - SHARE_TOP,
			      share_pct(rest, s->dur, pc));
	}
	if (named < s->dur && (size_t)k < n) {
		if (c->host_rows)
			k += snprintf(buf + k, n - (size_t)k, "%s idle or unrecorded %s", ns ? "," : "",
				      share_pct(s->dur - named, s->dur, pc));
		else
			k += snprintf(buf + k, n - (size_t)k, "%s unknown %s (no host rows: tasks outside "
				      "the containers are not in the file)", ns ? "," : "",
				      share_pct(s->dur - named, s->dur, pc));
	}
	if (s->by && (size_t)k < n)
		k += snprintf(buf + k, n - (size_t)k, "; last %" PRId32 " %s%s", s->by,
			      timeline_str(tl, s->by_comm), s->off_state == 'R' ? " (preempted)" : "");
	return k;
}

int cpseg_code(struct profile *prof, const struct cp_seg *s, struct cpseg_code *out)
{
	char src[CPSEG_PROFILE_NAME];
	const char *name, *mod;
	size_t ln, lm, lsrc;
	long fn;

	if (!prof || s->state != CP_ST_BLOCKED || s->stack == TL_NOSTR)
		return 0;
	fn = profile_code(prof, s->stack, src, sizeof(src));
	if (fn < -1)
		return -1;
	if (fn < 0)
		return 0;
	name = profile_fn_name(prof, (uint32_t)fn);
	mod = profile_fn_module(prof, (uint32_t)fn);
	ln = strlen(name);
	/* an interpreter frame's name holds its place (profile_code() put it in src): the function alone */
	if (profile_fn_interp(prof, (uint32_t)fn))
		ln = profile_interp_place(name, ln, NULL, 0);
	lm = strlen(mod);
	lsrc = strlen(src);
	out->fn[tsv_escape(name, ln > CPSEG_PROFILE_NAME ? CPSEG_PROFILE_NAME : ln, out->fn)] = '\0';
	out->module[tsv_escape(mod, lm > CPSEG_PROFILE_NAME ? CPSEG_PROFILE_NAME : lm,
			       out->module)] = '\0';
	out->src[tsv_escape(src, lsrc, out->src)] = '\0';
	return 1;
}

/*
 * "in FUNCTION (SOURCE:LINE)", else "in FUNCTION (MODULE)": the code of
 * blocked segment @s (cpseg_code()) into @buf (@n bytes, @n > 0), after a
 * space when @space; "" when it names none. Its length.
 */
static int code_text(struct profile *prof, const struct cp_seg *s, char *buf, size_t n, bool space)
{
	struct cpseg_code code;
	int k;

	buf[0] = '\0';
	if (cpseg_code(prof, s, &code) < 1)
		return 0;
	k = snprintf(buf, n, "%sin %s (%s)", space ? " " : "", code.fn,
		     code.src[0] ? code.src : code.module);
	return k < 0 ? 0 : (size_t)k >= n ? (int)n - 1 : k;
}

/* How far before a wake the waker's samples say what it ran (no stack is taken at a wake). */
#define WAKER_WINDOW_NS 10000000ULL

/*
 * " running FUNCTION" (escaped, cut to CPSEG_PROFILE_NAME bytes): the waker
 * of blocked segment @s (a task outside the container, imported with its
 * rows: client mode, --sched host) by its samples' top function in the
 * WAKER_WINDOW_NS before the wake (@s's end), into @buf (@n > 0 bytes);
 * "" when it has none there, or there is no profile.
 */
static void waker_code(struct profile *prof, const struct tl_container *c, const struct cp_seg *s,
		       char *buf, size_t n)
{
	char esc[TSV_ESCAPED_MAX(CPSEG_PROFILE_NAME) + 1];
	struct prof_count top[1];
	uint32_t k = timeline_find_task(c, s->by);
	uint64_t end = s->ts + s->dur, ns;
	const char *name;
	size_t len;

	buf[0] = '\0';
	if (!prof || !prof->any || prof->offcpu || k == TL_NOTASK)
		return;
	if (profile_task_top(prof, &c->tasks[k], end > WAKER_WINDOW_NS ? end - WAKER_WINDOW_NS : 0,
			     end + 1, top, 1, &ns) < 1 || !top[0].self)
		return;
	name = profile_fn_name(prof, top[0].fn);
	len = strlen(name);
	esc[tsv_escape(name, len > CPSEG_PROFILE_NAME ? CPSEG_PROFILE_NAME : len, esc)] = '\0';
	snprintf(buf, n, " running %s", esc);
}

/*
 * The detail of @s (escaped, as in TSV): the row's, then where the walk
 * went on; for the runtime, how the container started.
 */
const char *cpseg_detail(const struct timeline *tl, const struct tl_container *c,
			 const struct cp_path *p, const struct cp_seg *s, struct profile *prof,
			 char *buf, size_t n)
{
	const char *d = s->kind == CP_RUNTIME && c->nstarts ? timeline_str(tl, c->starts[0].how) :
			timeline_str(tl, s->detail);
	int k = snprintf(buf, n, "%s", d);

	if (k < 0 || (size_t)k >= n)
		return buf;
	/* a blocked stretch's code: its stack as it blocked, past libc's wait */
	if (s->state == CP_ST_BLOCKED && s->stack != TL_NOSTR && prof) {
		k += code_text(prof, s, buf + k, n - (size_t)k, k > 0);
		if ((size_t)k >= n)
			return buf;
	}
	if (s->match != CP_MATCH_NONE) {
		const struct tl_task *o = &c->tasks[s->other];
		const char *ev = s->event == CP_EV_WRITE ? "write by" :
				 s->event == CP_EV_EXEC ? "exec of" :
				 s->event == CP_EV_WAKE ? "woken by" : "exit of";

		snprintf(buf + k, n - (size_t)k, "%s<- %s %" PRId64 " %s (%s)", k ? " " : "", ev,
			 o->tid, timeline_str(tl, timeline_comm_at(o, s->ts)),
			 match_name((enum cp_match)s->match));
	} else if (s->state == CP_ST_BLOCKED) {
		if (s->by && s->wake == TL_WAKE_UNKNOWN)
			snprintf(buf + k, n - (size_t)k, "%s<- woken while %" PRId32 " %s ran (by it or by an "
				 "interrupt: the object cannot tell)", k ? " " : "", s->by,
				 timeline_str(tl, s->by_comm));
		else if (s->by) {
			k += snprintf(buf + k, n - (size_t)k, "%s<- woken by %" PRId32 " %s (outside the container)",
				      k ? " " : "", s->by, timeline_str(tl, s->by_comm));
			if ((size_t)k < n)
				waker_code(prof, c, s, buf + k, n - (size_t)k);
		}
		else
			snprintf(buf + k, n - (size_t)k, "%s<- woken by %s", k ? " " : "",
				 s->wake == TL_WAKE_IRQ ? "an interrupt" :
				 s->wake == TL_WAKE_SOFTIRQ ? "a softirq" : "an unknown waker");
	} else if (s->state == CP_ST_RUNNABLE && s->cpu != TL_NOCPU && p->shares_filled) {
		share_text(tl, c, p, s, buf, n, k);
	} else if (s->state == CP_ST_RUNNABLE && s->by) {
		snprintf(buf + k, n - (size_t)k, "%sCPU held by %" PRId32 " %s%s", k ? "; " : "",
			 s->by, timeline_str(tl, s->by_comm),
			 s->off_state == 'R' ? " (preempted)" : "");
	}
	/* the interpreter's require, load, import it happened in (span rows) */
	k = (int)strlen(buf);
	if (cpseg_span(c, s) && (size_t)k < n) {
		char sp[CPSEG_DETAIL_MAX];

		snprintf(buf + k, n - (size_t)k, "%sin %s", k ? " " : "",
			 cpseg_span_text(tl, c, s, sp, sizeof(sp)));
	}
	return buf;
}

/*
 * The top functions of @s's task's samples during @s, when @s is on a CPU
 * (a cpu segment, or running with scheduler rows), as "[67% burn_long,
 * 33% burn_short]" (names TSV-escaped, cut to CPSEG_PROFILE_NAME bytes) in
 * @buf (CPSEG_PROFILE_MAX bytes); "" when it has no samples, or there is no
 * profile. NULL out of memory.
 */
const char *cpseg_profile(struct profile *prof, const struct tl_container *c,
			  const struct cp_seg *s, char *buf)
{
	const struct tl_task *t = cpseg_task(c, s);
	struct prof_count top[CPSEG_PROFILE_TOP];
	uint64_t n;
	size_t at = 0;
	long k, i;

	buf[0] = '\0';
	if (!prof || !t || !(s->kind == CP_CPU || (c->has_sched && s->state == CP_ST_RUNNING)))
		return buf;
	k = profile_task_top(prof, t, s->ts, s->ts + s->dur, top, CPSEG_PROFILE_TOP, &n);
	if (k < 0)
		return NULL;
	for (i = 0; i < k && top[i].self; i++) {
		const char *name = profile_fn_name(prof, top[i].fn);
		size_t len = strlen(name);

		at += (size_t)snprintf(buf + at, CPSEG_PROFILE_MAX - at, "%s%.0f%% ", i ? ", " : "[",
				       100.0 * (double)top[i].self / (double)n);
		at += tsv_escape(name, len > CPSEG_PROFILE_NAME ? CPSEG_PROFILE_NAME : len, buf + at);
	}
	if (i)
		snprintf(buf + at, CPSEG_PROFILE_MAX - at, "]");
	else
		buf[0] = '\0';
	return buf;
}

/* The state of @s as shown: "running", "blocked(D)", ... into @buf. */
const char *cpseg_state(const struct cp_seg *s, char *buf, size_t n)
{
	if (s->state == CP_ST_BLOCKED && s->off_state == 'D')
		snprintf(buf, n, "blocked(D)");
	else
		snprintf(buf, n, "%s", critpath_state_name((enum cp_state)s->state));
	return buf;
}

