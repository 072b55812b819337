/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's user-space side: what turns a sample record into its stack
 * id and, the first time, its frames (docs/tsv-format.md, Profile rows).
 * It holds the kernel's symbols (ksyms.c), the processes' mappings and
 * perf maps (umaps.c; those written late, jitmaps.c), the CFI unwinder
 * (unwind.c) and the stacks written to this file (stacks.c);
 * run/records.c writes the rows.
 */
#ifndef COLLECTOR_SAMPLES_H
#define COLLECTOR_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"
#include "collector/profile/unwind.h"

struct samples;
struct backend;

/*
 * samples__new - for a run with --profile, its user stacks walked as
 * @unwind says (unwind.c): reads /proc/kallsyms; the interpreters it finds
 * are registered with @be (interp.h). NULL when out of memory.
 */
struct samples *samples__new(struct backend *be, enum unwind_mode unwind);
void samples__free(struct samples *s);

/*
 * samples_stack - the stack id of sample @e, a record of @size bytes
 * (with the user stack copied, bt_sample_ustack, when larger than
 * struct bt_sample_event: then unwound by CFI); when the stack is new to this
 * file (*@fresh 1), its frames in *@frames (*@n bytes, valid until the
 * next call).
 */
uint64_t samples_stack(struct samples *s, const struct bt_sample_event *e, size_t size,
		       const char **frames, size_t *n, int *fresh);
struct jitmaps_entry;
/*
 * samples_late - process @pid exited or exec'd: its perf map read now,
 * @emit called with each entry that names addresses its stacks left `u:`
 * (collector/profile/jitmaps.h), and the latest record of it. How many.
 */
size_t samples_late(struct samples *s, pid_t pid,
		    void (*emit)(void *ctx, const struct bt_event_hdr *h,
				 const struct jitmaps_entry *e),
		    void *ctx);
/* samples_late_any - a process samples_late() has something for; 0: none (the run's end). */
pid_t samples_late_any(const struct samples *s);
/* samples_unwind - the unwinder, for its costs (unwind_ns()); NULL without one. */
const struct unwind *samples_unwind(const struct samples *s);
/* samples_iname - a code object's names, read by the sampling program (interp_iname()). */
void samples_iname(struct samples *s, const struct bt_iname_event *e);
/* samples_iname_counts - interp_iname_counts(). */
void samples_iname_counts(const struct samples *s, unsigned long long *all,
			  unsigned long long *part);
/* samples_forget - process @pid exec'd or exited: its mappings are gone. */
void samples_forget(struct samples *s, pid_t pid);
/* samples_new_file - a new file of the run: its stacks are written again. */
void samples_new_file(struct samples *s);

#endif /* COLLECTOR_SAMPLES_H */
