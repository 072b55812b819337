// SPDX-License-Identifier: BSD-2-Clause
/*
 * Span records → finished spans, a stack per thread. See spanrows.h.
 */
#include <stdlib.h>
#include <string.h>

#include "collector/idmap.h"
#include "collector/rows/spanrows.h"

struct span_open {
	unsigned long long ts, last;	/* its start; the last time seen inside it */
	char *name, *caller;
	size_t name_len, caller_len;
	long long line;
	unsigned char kind;
	bool error;
};

struct span_stack {
	struct span_stack *next;	/* the list forget() walks */
	__u32 pid, tid;
	unsigned n, over;		/* open entries; enters past SPANROWS_DEPTH */
	struct span_open v[SPANROWS_DEPTH];
};

struct spanrows {
	struct idmap by_tid;
	struct span_stack *all;
};

const char *spanrows_kind_name(unsigned kind)
{
	static const char *const names[BT_SPAN_KINDS] = {
		[BT_SPAN_REQUIRE] = "require", [BT_SPAN_LOAD] = "load", [BT_SPAN_IMPORT] = "import",
		[BT_SPAN_CLASS] = "class", [BT_SPAN_CLINIT] = "clinit",
	};

	return kind < BT_SPAN_KINDS ? names[kind] : NULL;
}

struct spanrows *spanrows__new(void)
{
	return calloc(1, sizeof(struct spanrows));
}

static void open_free(struct span_open *o)
{
	free(o->name);
	free(o->caller);
}

static void stack_free(struct span_stack *st)
{
	unsigned i;

	for (i = 0; i < st->n; i++)
		open_free(&st->v[i]);
	free(st);
}

void spanrows__free(struct spanrows *s)
{
	struct span_stack *st, *next;

	if (!s)
		return;
	for (st = s->all; st; st = next) {
		next = st->next;
		stack_free(st);
	}
	idmap_free(&s->by_tid);
	free(s);
}

void spanrows_forget(struct spanrows *s, pid_t pid)
{
	struct span_stack **pp = &s->all, *st;

	while ((st = *pp)) {
		if (st->pid != (__u32)pid) {
			pp = &st->next;
			continue;
		}
		*pp = st->next;
		idmap_del(&s->by_tid, (__u64)st->tid + 1);
		stack_free(st);
	}
}

static size_t clamp_len(__u16 n)
{
	return n < BT_SPAN_TEXT_MAX ? n : BT_SPAN_TEXT_MAX;
}

/* Entry @o of @st at depth @depth finished at @end: @emit it. */
static void finish(const struct span_open *o, unsigned depth, unsigned long long end,
		   const struct bt_span_event *e, bool raised, spanrows_emit_fn emit, void *arg)
{
	struct span_done d = {
		.hdr = &e->hdr, .ts = o->ts, .dur = end > o->ts ? end - o->ts : 0, .depth = depth,
		.kind = o->kind, .name = o->name, .name_len = o->name_len, .caller = o->caller,
		.caller_len = o->caller_len, .line = o->line, .found = -1, .raised = raised,
		.error = o->error,
	};

	if (!raised && e->kind == BT_SPAN_IMPORT)
		d.found = e->arg != 0;
	emit(arg, &d);
}

/* The innermost open entry of kind and name of @e, or -1. */
static int match(const struct span_stack *st, const struct bt_span_event *e)
{
	size_t len = clamp_len(e->name_len);
	int i;

	for (i = (int)st->n - 1; i >= 0; i--)
		if (st->v[i].kind == e->kind && st->v[i].name_len == len &&
		    !memcmp(st->v[i].name, e->name, len))
			return i;
	return -1;
}

static void on_return(struct span_stack *st, const struct bt_span_event *e,
		      spanrows_emit_fn emit, void *arg)
{
	unsigned long long end = e->hdr.ts_ns;
	int i = match(st, e), j;

	if (i < 0) {
		if (st->over)
			st->over--;	/* an enter past the depth limit */
		return;
	}
	/* entries above it raised: each ends when the last thing inside it did */
	for (j = (int)st->n - 1; j > i; j--) {
		struct span_open *o = &st->v[j];
		unsigned long long last = o->last > o->ts ? o->last : o->ts;

		finish(o, (unsigned)j, last, e, true, emit, arg);
		if (st->v[j - 1].last < last)
			st->v[j - 1].last = last;
		open_free(o);
	}
	finish(&st->v[i], (unsigned)i, end, e, false, emit, arg);
	open_free(&st->v[i]);
	st->n = (unsigned)i;
	st->over = 0;
	if (i > 0 && st->v[i - 1].last < end)
		st->v[i - 1].last = end;
}

void spanrows_event(struct spanrows *s, const struct bt_span_event *e, spanrows_emit_fn emit,
		    void *arg)
{
	__u64 key = (__u64)e->hdr.tid + 1;	/* idmap keys are never 0 */
	struct span_stack *st = idmap_get(&s->by_tid, key);
	struct span_open *o;
	int i;

	if (!spanrows_kind_name(e->kind))
		return;
	if (e->phase == BT_SPAN_POINT) {
		struct span_open p = { .ts = e->hdr.ts_ns, .name = (char *)e->name,
				       .name_len = clamp_len(e->name_len), .kind = e->kind };

		finish(&p, st ? st->n : 0, e->hdr.ts_ns, e, false, emit, arg);
		return;
	}
	if (e->phase != BT_SPAN_ENTER) {
		if (!st)
			return;
		if (e->phase == BT_SPAN_RETURN) {
			on_return(st, e, emit, arg);
		} else if ((i = match(st, e)) >= 0) {
			st->v[i].error = true;	/* BT_SPAN_ERROR: its end follows */
		}
		return;
	}
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return;
		if (idmap_put(&s->by_tid, key, st) < 0) {
			free(st);
			return;
		}
		st->pid = e->hdr.pid;
		st->tid = e->hdr.tid;
		st->next = s->all;
		s->all = st;
	}
	if (st->pid != e->hdr.pid) {
		/* the tid was reused by another process: what it had is gone */
		for (i = 0; i < (int)st->n; i++)
			open_free(&st->v[i]);
		st->n = st->over = 0;
		st->pid = e->hdr.pid;
	}
	if (st->n == SPANROWS_DEPTH) {
		st->over++;
		return;
	}
	o = &st->v[st->n];
	memset(o, 0, sizeof(*o));
	o->ts = o->last = e->hdr.ts_ns;
	o->kind = e->kind;
	/* no NUL inside: the kernel read them up to theirs (HotSpot's names have none) */
	o->name = strndup(e->name, clamp_len(e->name_len));
	o->name_len = o->name ? strlen(o->name) : 0;
	o->caller = e->caller_len ? strndup(e->caller, clamp_len(e->caller_len)) : NULL;
	o->caller_len = o->caller ? strlen(o->caller) : 0;
	o->line = e->arg;
	if (!o->name || (e->caller_len && !o->caller)) {
		open_free(o);
		return;
	}
	st->n++;
}
