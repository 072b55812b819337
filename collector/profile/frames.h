/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sample's stacks (struct bt_sample_event) → the frames of its stack
 * row (docs/tsv-format.md, Profile rows): the kernel's named from
 * kallsyms (ksyms.c), the user frames as the kernel gave them (build id
 * and file offset) or, for a bare address, named from the process's
 * mappings or perf map (umaps.c). Innermost first, one space between.
 */
#ifndef COLLECTOR_FRAMES_H
#define COLLECTOR_FRAMES_H

#include <stddef.h>
#include <sys/types.h>

#include <linux/types.h>

#include "bpf/boottrace.h"

struct ksyms;
struct umaps;
struct interp;

/*
 * A kernel symbol this far past its start is not that symbol's: the
 * address is past the last function kallsyms has (a module loaded after
 * the collector read it).
 */
#define FRAMES_KSYM_MAX_OFF (1u << 20)

/* A stack row's frames at most: BT_STACK_MAX each, of a path each at worst. */
#define FRAMES_MAX_TEXT (64u << 10)

/*
 * frames_format - the frames of sample @e into @buf (@n bytes,
 * NUL-terminated), with the symbols of @k (NULL: none), the processes
 * of @u and the interpreters of @in (NULL: native frames only). Its
 * length; frames that do not fit are left out (never half).
 */
size_t frames_format(const struct ksyms *k, struct umaps *u, struct interp *in,
		     const struct bt_sample_event *e, char *buf, size_t n);

/*
 * frames_fp_count - how many user frames the kernel's frame-pointer walk
 * gave @e: up to the first empty one.
 */
int frames_fp_count(const struct bt_sample_event *e);

#endif /* COLLECTOR_FRAMES_H */
