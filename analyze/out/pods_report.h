/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pods_report: the printers of --by pod, --by image and --by namespace
 * (analyze/boot/pods.h), in text, tsv and json. Names come from the meta
 * rows and are hostile: printed TSV-escaped (text and tsv) or as JSON
 * strings of the escaped bytes, as every name analyze prints.
 *
 *   --by image|namespace  per value (none: containers without a meta row
 *                         that says it): the exec and listen phases of its
 *                         containers, as the phase table has them (count
 *                         min avg max p50 p90 p99, nearest rank);
 *   --by pod              per pod: its boot (sandbox start → every app's
 *                         listen) and each container's role (sandbox, init,
 *                         app) and start, exec, listen, end from the pod's t0.
 */
#ifndef ANALYZE_PODS_REPORT_H
#define ANALYZE_PODS_REPORT_H

#include <stdio.h>

#include "analyze/boot/analysis.h"
#include "analyze/out/report.h"

/* pods_print - @by (BY_POD, BY_IMAGE, BY_NAMESPACE) for @a in @fmt. 0, or -1 (errno). */
int pods_print(FILE *f, const struct analysis *a, enum by_kind by, enum report_format fmt);

#endif /* ANALYZE_PODS_REPORT_H */
