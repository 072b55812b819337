/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The detail of a `sched` row (docs/tsv-format.md, Scheduler rows):
 * space-separated key=value fields in any order, each value a decimal
 * number, a word (wake=), or a length-prefixed string LEN:BYTES whose
 * bytes may hold anything (spaces, '=', ':', digits):
 *
 *   wake=task waker=812 wpid=800 wcomm=7:dockerd holder=0 hcomm=9:swapper/1 cpu=1 stack=12
 *
 * The collector formats it, the analyzer parses it; both work on the
 * field's bytes after TSV unescaping (LEN counts those). Pure.
 */
#ifndef BOOTTRACE_SCHED_DETAIL_H
#define BOOTTRACE_SCHED_DETAIL_H

#include <stdbool.h>
#include <stddef.h>

/* wake=: how the task was woken (SCHED_WAKE_MISSING: no wake= field, no wake seen). */
enum sched_wake {
	SCHED_WAKE_MISSING,
	SCHED_WAKE_TASK,	/* a task woke it: waker= */
	SCHED_WAKE_IRQ,		/* from hard interrupt context */
	SCHED_WAKE_SOFTIRQ,	/* from softirq context */
	SCHED_WAKE_NEW,		/* a fork: waker= is the parent */
	SCHED_WAKE_NONE,	/* state R: preempted, no wake */
	SCHED_WAKE_UNKNOWN,	/* the object cannot tell task from interrupt context: cur= */
};

/* A string value: @n bytes at @s (not NUL-terminated; @s NULL: absent). */
struct sched_str {
	const char *s;
	size_t n;
};

/* A task named in the detail: tid, pid (-1: absent) and comm. */
struct sched_task {
	long long tid, pid;
	struct sched_str comm;
};

struct sched_detail {
	enum sched_wake wake;
	struct sched_task waker;	/* waker= wpid= wcomm= */
	struct sched_task cur;		/* wake=unknown: cur= cpid= ccomm=, the task current at the wake */
	struct sched_task holder;	/* holder= hcomm= (pid -1) */
	long long cpu;			/* cpu=, -1: absent */
	/*
	 * in=inferred: the kernel traced no switch-in; the row ends at the
	 * first sign the task ran again (a bound), and names no holder
	 */
	bool in_inferred;
	/*
	 * stack=: the id of the task's stack as it blocked (a `stack` row
	 * earlier in the file; --offcpu-stacks), 0: none
	 */
	long long stack;
};

/* sched_wake_name - "task", "irq", ...; NULL for SCHED_WAKE_MISSING. */
const char *sched_wake_name(enum sched_wake w);

/*
 * sched_detail_parse - parse @n bytes at @s (unescaped) into @d. String
 * values point into @s. Unknown keys are skipped (later versions may add
 * some), their values read by the same rules. Returns 0, or -1 when @s is
 * malformed: a field without '=', a LEN past the end, a string not
 * followed by a space or the end, a number that is not one, a wake= word
 * not known, a key given twice.
 */
int sched_detail_parse(const char *s, size_t n, struct sched_detail *d);

/*
 * detail_number - a detail's decimal value: @n bytes at @s, digits only,
 * at most 18 (no overflow); the number, or -1 (end_detail.h's too).
 */
long long detail_number(const char *s, size_t n);

/*
 * sched_detail_format - @d as the detail into @out (@cap bytes; 256 hold
 * any detail whose comms are at most 16 bytes). Absent parts (-1, NULL
 * comm, SCHED_WAKE_MISSING) are left out. Returns the length, not
 * NUL-terminated, or 0 when @cap is too small.
 */
size_t sched_detail_format(const struct sched_detail *d, char *out, size_t cap);

/* One field of a detail: its key (@klen bytes) and value. */
struct detail_field {
	const char *key;
	size_t klen;
	struct sched_str val;	/* a string's bytes, or the word or number as written */
	bool str;		/* the value was LEN:BYTES */
};

/*
 * detail_field_next - the field of @s (@n bytes, unescaped) at *@pos into
 * @f, *@pos moved past it: 1; 0 at the end; -1 when malformed (by the rules
 * of sched_detail_parse()). The `meta` row's detail (common/meta.h) has
 * the same form.
 */
int detail_field_next(const char *s, size_t n, size_t *pos, struct detail_field *f);

/*
 * detail_put_str - append " KEY=LEN:BYTES" (no space when *@len is 0) to
 * @out (@cap bytes) at *@len, moved past it. false when it does not fit.
 */
bool detail_put_str(char *out, size_t cap, size_t *len, const char *key, struct sched_str str);

#endif /* BOOTTRACE_SCHED_DETAIL_H */
