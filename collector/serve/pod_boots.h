/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Each pod's boot, from its containers' rows, for --metrics (issue 38):
 * an observer of the rows as written, beside boots.h's (the same rows,
 * the same rules: the entrypoint's exec is common/entrypoint.h's, a
 * listen is a successful listen's completion). Pure: no I/O, no clock.
 *
 * A pod: the containers whose meta rows give one pod_uid (docs/tsv-format.md,
 * Meta rows). Its start: the earliest start row of its containers (client
 * mode: the client's spawn; watch mode: its sandbox's cgroup made by runc
 * create). At its first listen (of a container that is no sandbox) two
 * values are observed, once per pod:
 *   startup  the kubelet's pod startup SLI as boottrace can count it: from
 *            the pod's start to the last entrypoint exec of its containers
 *            running then, less the time its containers that ended before
 *            it ran (init containers: the SLI leaves them out; no image is
 *            pulled in the window, as the SLI leaves pulls out);
 *   listen   from the pod's start to that listen.
 * Why at the listen: the CRI does not tell an init container from an
 * app, nor how many apps a pod has; a pod that never listens is not
 * counted (docs/metrics.md says so). A container's state goes at its end
 * row; a pod's when its last container ended, once it was counted or had
 * a sandbox (a pod without one, of no CRI, keeps its start while it has
 * no container, for the next: a few dozen bytes).
 */
#ifndef COLLECTOR_POD_BOOTS_H
#define COLLECTOR_POD_BOOTS_H

#include <stdint.h>

#include "collector/rows/output.h"

enum pod_value { POD_STARTUP, POD_LISTEN };

struct pod_boots;

/* pod_boots__new - reporting @what's ns to @observe(@ctx, ...); NULL on ENOMEM. */
struct pod_boots *pod_boots__new(void (*observe)(void *ctx, enum pod_value what, int64_t ns),
				 void *ctx);
/* pod_boots__free - with every state; accepts NULL. */
void pod_boots__free(struct pod_boots *p);
/* pod_boots_row - one row as written (output.h's on_row). */
void pod_boots_row(void *ctx, const struct row *r);

#endif /* COLLECTOR_POD_BOOTS_H */
