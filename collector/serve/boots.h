/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Each container's boot phases, from the rows the collector writes, for
 * --metrics: an observer of the TSV rows (output.h's on_row), so that the
 * metrics and the file say the same thing. Pure: no I/O, no clock.
 *
 * The phases are the analyzer's (DESIGN.md §4, analyze/boot/analysis.h),
 * from the container's start row:
 *   exec    its entrypoint's exec: the first exec row named `init`, or that
 *           is no runtime's own (common/entrypoint.h);
 *   listen  the completion (ts + dur_ns) of its first successful listen;
 *   LABEL   its first mark row of each label.
 * Where they may differ from analyze's, which sees the whole file and
 * takes minima (docs/metrics.md says it for users):
 *   - online, a phase is the first row to come, not the smallest time: the
 *     same unless two rows of one phase were read out of time order (the
 *     perf-buffer objects' per-CPU rings; two processes' listens);
 *   - an `init` exec that comes after another entrypoint candidate: analyze
 *     prefers the init, this takes the first (no runtime this project
 *     tests execs anything of its own in the container before init);
 *   - a second start row (watch mode's --start probe) after a phase was
 *     timed does not move it; analyze takes the earliest start;
 *   - --exec PATTERN is analyze's alone.
 * A phase whose row comes before the container's start row (spawn mode
 * with --start) waits for it, 8 such at most per container.
 *
 * A container's state is freed at its end row; what never ends is freed
 * by boots__free().
 */
#ifndef COLLECTOR_BOOTS_H
#define COLLECTOR_BOOTS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/rows/output.h"

/* The runtime label (docs/metrics.md); the order is the text's. */
enum boot_runtime {
	RT_DOCKER, RT_PODMAN, RT_CONTAINERD, RT_CRIO, RT_KUBERNETES, RT_RUNC, RT_SPAWN, RT_OTHER,
	RT_COUNT,
};

/* What the collector runs as: every container of spawn mode is "spawn". */
enum boots_kind { BOOTS_WATCH, BOOTS_SPAWN, BOOTS_CLIENT };

/* The labels --metrics-label adds (docs/metrics.md), each capped: BOOT_LABEL_OTHER past the cap. */
enum boot_label { BL_ENTRYPOINT, BL_NAMESPACE, BL_IMAGE, BL_COUNT };
#define BOOT_LABEL_OTHER "other"

/* Where the boots go: the exporter's metrics (collector/serve/exporter.c). */
struct boots_sink {
	void (*started)(void *ctx, enum boot_runtime rt);
	void (*ended)(void *ctx, enum boot_runtime rt);
	/* container of @rt reached @phase @ns after its start; @labels: see boots__new() */
	void (*phase)(void *ctx, enum boot_runtime rt, const char *phase,
		      const char *const labels[BL_COUNT], int64_t ns);
	void *ctx;
};

struct boots;

/*
 * boots__new - a tracker for a collector running as @kind, reporting to
 * @sink (copied). Each phase gets three label values, each capped at
 * @caps[label] distinct values, then "other" (0: always ""):
 *   BL_ENTRYPOINT  the basename of the container's entrypoint (its exec
 *                  row's file), "" before it;
 *   BL_NAMESPACE   its pod's namespace, BL_IMAGE its image: from its
 *                  meta row (common/meta.h), "" without one.
 * Values are escaped as the TSV escapes text (metrics_label_from_raw()).
 * NULL on ENOMEM.
 */
struct boots *boots__new(enum boots_kind kind, const struct boots_sink *sink,
			 const size_t caps[BL_COUNT]);
/* boots__free - with every container's state; accepts NULL. */
void boots__free(struct boots *b);

/* boots_row - one row as written (output.h's on_row): what it changes. */
void boots_row(void *ctx, const struct row *r);

/* boots_rows - every row seen; boots_live - containers started and not ended. */
uint64_t boots_rows(const struct boots *b);
size_t boots_live(const struct boots *b);

/* boots_runtime_name - "docker", "podman", ... "other". */
const char *boots_runtime_name(enum boot_runtime rt);

/*
 * boots_runtime - the runtime of a container from its name and its first
 * start row: how it was seen (@how: mkdir, namespace, spawn, client,
 * attach, mark), by whom (@comm: the cgroup's maker, the runtime), @detail
 * (the cgroup path of mkdir and attach). In order: spawn mode or @how
 * spawn: spawn; a cgroup path under kubepods: kubernetes; a runtime's name
 * (collector/run/container_names.h: docker-, podman-, containerd-, crio- and 12 hex
 * digits, maybe #N): that runtime; made by runc, crun or youki (@comm):
 * runc; else other.
 */
enum boot_runtime boots_runtime(enum boots_kind kind, struct field name, struct field how,
				struct field comm, struct field detail);

#endif /* COLLECTOR_BOOTS_H */
