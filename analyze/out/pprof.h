/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pprof: --profile --format pprof, a boot's profiles as one pprof file
 * (the protocol buffer of github.com/google/pprof's profile.proto,
 * gzipped), which go tool pprof, Pyroscope, Parca and Grafana read. Two
 * sample types: "cpu" (the samples' CPU time, nanoseconds) and "offcpu"
 * (the blocked time of the off-CPU stacks, nanoseconds); a sample per
 * folded stack of each container's window (boot/profile.h), its value in
 * its own type, 0 in the other; labels: "container", "comm", and "span"
 * (the innermost interpreter span it was in: "require /app/x.rb"). A
 * location per function (address 0), the function's filename its module,
 * in one mapping "boot" whose functions are named. The stacks are as
 * they are, leaf first: an off-CPU stack's leaf is the kernel's
 * __schedule (pprof's flat), not the code that waited (--profile=offcpu's
 * self).
 */
#ifndef ANALYZE_PPROF_H
#define ANALYZE_PPROF_H

#include <stdio.h>

#include "analyze/boot/profile.h"

/*
 * pprof_write - the profiles @cpu and @offcpu (either may be NULL: none)
 * as one gzipped pprof file to @f. 0, or -1 (errno: ENOMEM, or the
 * write's).
 */
int pprof_write(FILE *f, const struct profile *cpu, const struct profile *offcpu);

#endif /* ANALYZE_PPROF_H */
