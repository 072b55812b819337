// SPDX-License-Identifier: BSD-2-Clause
/* Sample records → stack ids and frames (samples.h). */
#include <stdio.h>
#include <stdlib.h>

#include "collector/profile/frames.h"
#include "collector/profile/interp.h"
#include "collector/profile/jitmaps.h"
#include "collector/profile/ksyms.h"
#include "collector/profile/samples.h"
#include "collector/profile/stacks.h"
#include "collector/profile/umaps.h"
#include "collector/profile/unwind.h"

struct samples {
	struct ksyms *ksyms;
	struct umaps *umaps;
	struct stacks *stacks;
	struct unwind *unwind;	/* NULL: frame pointers */
	struct bt_sample_event unwound;	/* a sample with its CFI frames */
	struct interp *interp;
	struct jitmaps *late;	/* JIT addresses a perf map may name later */
	char text[FRAMES_MAX_TEXT];
};

struct samples *samples__new(struct backend *be, enum unwind_mode unwind)
{
	struct samples *s = calloc(1, sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	/* no kallsyms (a container without /proc's): addresses only */
	if ((f = fopen("/proc/kallsyms", "re"))) {
		s->ksyms = ksyms__load(f);
		fclose(f);
	}
	s->umaps = umaps__new("/proc");
	s->stacks = stacks__new();
	s->interp = interp__new(be);
	s->late = jitmaps__new("/proc");
	if (s->umaps)
		umaps_set_late(s->umaps, s->late);
	if (unwind != UNWIND_FP)
		s->unwind = unwind__new(unwind, "/proc", s->umaps);
	if (!s->umaps || !s->stacks || !s->interp || !s->late ||
	    (unwind != UNWIND_FP && !s->unwind)) {
		samples__free(s);
		return NULL;
	}
	return s;
}

void samples__free(struct samples *s)
{
	if (!s)
		return;
	ksyms__free(s->ksyms);
	umaps__free(s->umaps);
	stacks__free(s->stacks);
	unwind__free(s->unwind);
	interp__free(s->interp);
	jitmaps__free(s->late);
	free(s);
}

/*
 * @e with its user frames unwound by CFI (unwind.c) when the record of
 * @size bytes holds its registers and stack, else @e as it came.
 */
static const struct bt_sample_event *unwound(struct samples *s, const struct bt_sample_event *e,
					     size_t size)
{
	const struct bt_sample_ustack *us = (const void *)(e + 1);
	int n;

	if (!s->unwind || size < sizeof(*e) + sizeof(*us) ||
	    size - sizeof(*e) - sizeof(*us) < us->stack_bytes)
		return e;
	/* a JVM's (node's) walked stack: its native frames before the Java ones are bpf_get_stack()'s */
	if ((e->interp_kind == BT_INTERP_HOTSPOT || e->interp_kind == BT_INTERP_V8) &&
	    e->iframes > 1)
		return e;
	s->unwound = *e;
	n = unwind_stack(s->unwind, e, us, (const unsigned char *)(us + 1), s->unwound.ustack);
	if (n < 0)
		return e;
	s->unwound.ustack_bytes = n * (int)sizeof(e->ustack[0]);
	return &s->unwound;
}

uint64_t samples_stack(struct samples *s, const struct bt_sample_event *e, size_t size,
		       const char **frames, size_t *n, int *fresh)
{
	if (e->interp_kind == BT_INTERP_NONE)
		interp_check(s->interp, (pid_t)e->hdr.pid);	/* its next samples may have them */
	e = unwound(s, e, size);
	*n = frames_format(s->ksyms, s->umaps, s->interp, e, s->text, sizeof(s->text));
	*frames = s->text;
	jitmaps_seen(s->late, &e->hdr);
	return stacks_id(s->stacks, s->text, *n, fresh);
}

void samples_iname(struct samples *s, const struct bt_iname_event *e)
{
	if (s)
		interp_iname(s->interp, e);
}

void samples_iname_counts(const struct samples *s, unsigned long long *all,
			  unsigned long long *part)
{
	interp_iname_counts(s ? s->interp : NULL, all, part);
}

void samples_forget(struct samples *s, pid_t pid)
{
	if (!s)
		return;
	umaps_forget(s->umaps, pid);
	interp_forget(s->interp, pid);
	unwind_forget(s->unwind, pid);
}

size_t samples_late(struct samples *s, pid_t pid,
		    void (*emit)(void *ctx, const struct bt_event_hdr *h,
				 const struct jitmaps_entry *e),
		    void *ctx)
{
	return s ? jitmaps_take(s->late, pid, emit, ctx) : 0;
}

pid_t samples_late_any(const struct samples *s)
{
	return s ? jitmaps_any(s->late) : 0;
}

const struct unwind *samples_unwind(const struct samples *s)
{
	return s ? s->unwind : NULL;
}

void samples_new_file(struct samples *s)
{
	if (s)
		stacks_reset(s->stacks);
}
