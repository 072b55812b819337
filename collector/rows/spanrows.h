/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The span records of bpf/spans.bpf.h (an interpreter's enter, return,
 * error and point probes, one thread's in order: one ring buffer) paired
 * into finished spans, per thread, with a stack each. Pure: no I/O; the
 * caller makes the rows (run/records.c, docs/tsv-format.md, Span rows).
 *
 * A return is matched by kind and name, the innermost such entry: a
 * require that raised fired no return (Ruby), so the entries above the
 * match are finished then too, `raised`, with the last time seen inside
 * them as their end (their own start if nothing ran inside: a LoadError
 * costs ~0). A return that matches nothing (its enter came before the
 * probes were attached) is dropped. A stack is at most SPANROWS_DEPTH
 * deep: deeper enters are counted and their returns dropped.
 */
#ifndef COLLECTOR_SPANROWS_H
#define COLLECTOR_SPANROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

#define SPANROWS_DEPTH 64

/* A finished span; its strings live until the callback returns. */
struct span_done {
	const struct bt_event_hdr *hdr;	/* the record that finished it (task, comm) */
	unsigned long long ts, dur;	/* start, length */
	unsigned depth;			/* 0: outermost in its thread */
	unsigned kind;			/* enum bt_span_kind */
	const char *name, *caller;
	size_t name_len, caller_len;	/* caller_len 0: no caller */
	long long line;			/* the caller's line, with a caller */
	int found;			/* import: 1 found, 0 not (ModuleNotFoundError); -1: n/a */
	bool raised;			/* no return: finished by an outer one's */
	bool error;			/* the JVM said its initializer threw */
};

typedef void (*spanrows_emit_fn)(void *arg, const struct span_done *d);

struct spanrows;

/* A new pairer; NULL when out of memory. */
struct spanrows *spanrows__new(void);
/* Free it and the open spans; NULL is fine. */
void spanrows__free(struct spanrows *s);

/* One record: @emit is called for each span it finishes (0, 1 or more). */
void spanrows_event(struct spanrows *s, const struct bt_span_event *e, spanrows_emit_fn emit,
		    void *arg);

/* Process @pid exec'd or exited: its threads' open spans are dropped. */
void spanrows_forget(struct spanrows *s, pid_t pid);

/* The kind's word in the `name` column: require, load, import, class, clinit; NULL: unknown. */
const char *spanrows_kind_name(unsigned kind);

#endif /* COLLECTOR_SPANROWS_H */
