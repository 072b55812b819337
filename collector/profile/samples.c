// SPDX-License-Identifier: BSD-2-Clause
/* Sample records → stack ids and frames (samples.h). */
#include <stdio.h>
#include <stdlib.h>

#include "collector/profile/frames.h"
#include "collector/profile/interp.h"
#include "collector/profile/ksyms.h"
#include "collector/profile/samples.h"
#include "collector/profile/stacks.h"
#include "collector/profile/umaps.h"

struct samples {
	struct ksyms *ksyms;
	struct umaps *umaps;
	struct stacks *stacks;
	struct interp *interp;
	char text[FRAMES_MAX_TEXT];
};

struct samples *samples__new(struct backend *be)
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
	if (!s->umaps || !s->stacks || !s->interp) {
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
	interp__free(s->interp);
	free(s);
}

uint64_t samples_stack(struct samples *s, const struct bt_sample_event *e, const char **frames,
		       size_t *n, int *fresh)
{
	if (e->interp_kind == BT_INTERP_NONE)
		interp_check(s->interp, (pid_t)e->hdr.pid);	/* its next samples may have them */
	*n = frames_format(s->ksyms, s->umaps, s->interp, e, s->text, sizeof(s->text));
	*frames = s->text;
	return stacks_id(s->stacks, s->text, *n, fresh);
}

void samples_forget(struct samples *s, pid_t pid)
{
	if (s) {
		umaps_forget(s->umaps, pid);
		interp_forget(s->interp, pid);
	}
}

void samples_new_file(struct samples *s)
{
	if (s)
		stacks_reset(s->stacks);
}
