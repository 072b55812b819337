/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --profile's user-space side: what turns a sample record into its stack
 * id and, the first time, its frames (docs/tsv-format.md, Profile rows).
 * It holds the kernel's symbols (ksyms.c), the processes' mappings and
 * perf maps (umaps.c) and the stacks written to this file (stacks.c);
 * rows.c writes the rows.
 */
#ifndef COLLECTOR_SAMPLES_H
#define COLLECTOR_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

struct samples;
struct backend;

/*
 * samples__new - for a run with --profile: reads /proc/kallsyms; the
 * interpreters it finds are registered with @be (interp.h). NULL when out
 * of memory.
 */
struct samples *samples__new(struct backend *be);
void samples__free(struct samples *s);

/*
 * samples_stack - the stack id of sample @e; when the stack is new to this
 * file (*@fresh 1), its frames in *@frames (*@n bytes, valid until the
 * next call).
 */
uint64_t samples_stack(struct samples *s, const struct bt_sample_event *e, const char **frames,
		       size_t *n, int *fresh);
/* samples_forget - process @pid exec'd or exited: its mappings are gone. */
void samples_forget(struct samples *s, pid_t pid);
/* samples_new_file - a new file of the run: its stacks are written again. */
void samples_new_file(struct samples *s);

#endif /* COLLECTOR_SAMPLES_H */
