/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pods_chart: --plot's chart of the pods' boots (with --by pod): one bar
 * per container, grouped by pod, from its start to its end (an init
 * container, a sandbox that ended) or its listen (an app) or its exec,
 * coloured by role, on the time from its pod's start; a point at each
 * app's listen and at the pod's boot (its last app's listen). Names are
 * sanitized as every string --plot writes (plot.h).
 */
#ifndef ANALYZE_PODS_CHART_H
#define ANALYZE_PODS_CHART_H

#include "analyze/boot/analysis.h"
#include "analyze/out/plot.h"

/* pods_chart - pods.dat and pods.gp in the plot's directory; nothing without pods. */
void pods_chart(struct plot *p, const struct analysis *a);

#endif /* ANALYZE_PODS_CHART_H */
