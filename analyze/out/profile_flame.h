/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * profile_flame: --plot's flame graphs of a profile (boot/profile.h): one
 * SVG per container of its boot window's samples (flamegraph.h), the
 * comm as the root frame, kernel frames suffixed "_[k]", named
 * flame-N.svg (N: the container's place among the profiled ones, from 1:
 * no byte of a hostile name in a file name), titled with the container's
 * name (escaped inside the SVG). An off-CPU profile's (profile_opts'
 * offcpu): offcpu-flame-N.svg, its counts microseconds blocked.
 */
#ifndef ANALYZE_PROFILE_FLAME_H
#define ANALYZE_PROFILE_FLAME_H

#include <stddef.h>

#include "analyze/boot/profile.h"
#include "analyze/out/plot.h"

/* At most this many flame graphs: the first containers profiled. */
#define PROFILE_FLAME_MAX 100

/*
 * profile_flame_write - the flame graphs of @prof into plot @p's
 * directory. Returns how many were written (flame-1.svg ..., or
 * offcpu-flame-1.svg ...); failures
 * are said on the plot's stream and mark the run failed.
 */
size_t profile_flame_write(struct plot *p, struct profile *prof);

#endif /* ANALYZE_PROFILE_FLAME_H */
