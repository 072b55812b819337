/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the critical path's cmocka suites share: TSV row macros, a fixture
 * that loads a synthetic trace and builds the path of its container "c",
 * checking that the segments tile [start, phase] exactly, and look-ups of
 * the path's segments. Included by one test file each (static inline).
 */
#ifndef TESTS_CRITPATH_FIXTURE_H
#define TESTS_CRITPATH_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/boot/analysis.h"
#include "analyze/boot/critpath.h"

#define HEAD "# boottrace-tsv 1\n# mode=cgroup\n" TSV_HEADER "\n"
#define TAIL "# lost=0 events=1\n"
/* ts pid tid ppid comm event name ret dur detail, container "c" */
#define R(ts, pid, tid, ppid, comm, ev, name, ret, dur, detail) \
	ts "\tc\t\\N\t" pid "\t" tid "\t" ppid "\t" comm "\t" ev "\t" name "\t" ret "\t" dur \
	"\t" detail "\n"
#define START(ts, pid) R(ts, pid, pid, "1", "runc", "start", "spawn", "\\N", "\\N", "\\N")
#define SYS(ts, pid, tid, comm, name, ret, dur, detail) \
	R(ts, pid, tid, "1", comm, "syscall", name, ret, dur, detail)
#define FORK(ts, pid, tid, ppid, comm, kind) \
	R(ts, pid, tid, ppid, comm, "fork", kind, "\\N", "\\N", "\\N")
#define EXIT(ts, pid, ppid, comm) R(ts, pid, pid, ppid, comm, "exit", "\\N", "0", "\\N", "\\N")

struct fixture {
	struct analysis *a;
	struct cp_path p;
};

/* @tsv read into a new analysis with a timeline, finished. */
static inline struct analysis *load_tsv(const char *tsv)
{
	struct analyze_opts o = { .timeline = true };
	char path[] = "/tmp/test_analyze_critpath.XXXXXX";
	int fd = mkstemp(path);
	FILE *err = fopen("/dev/null", "w");
	struct analysis *a;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, tsv, strlen(tsv)), (ssize_t)strlen(tsv));
	close(fd);
	a = analysis__new(&o);
	assert_non_null(a);
	assert_int_equal(analysis_read(a, path, err), 0);
	unlink(path);
	fclose(err);
	assert_int_equal(analysis_finish(a), 0);
	return a;
}

/* Load @tsv, build the path of its container "c" to @phase; check the tiling. */
static inline void path_of(const char *tsv, const char *phase, struct fixture *fx)
{
	long ph;
	size_t i;

	fx->a = load_tsv(tsv);
	ph = strcmp(phase, "end") == 0 ? PHASE_END :
	     strtab_find(fx->a->phase_names, phase, strlen(phase));
	assert_true(ph >= 0);
	assert_int_equal(critpath_build(fx->a->tl, 0, (uint32_t)ph, phase, &fx->p), 1);
	/* exact tiling of [t0, t1] */
	if (fx->p.t1 > fx->p.t0) {
		assert_true(fx->p.nsegs > 0);
		assert_int_equal(fx->p.segs[0].ts, fx->p.t0);
	}
	for (i = 0; i < fx->p.nsegs; i++) {
		assert_true(fx->p.segs[i].dur > 0);
		if (i + 1 < fx->p.nsegs)
			assert_int_equal(fx->p.segs[i].ts + fx->p.segs[i].dur, fx->p.segs[i + 1].ts);
		else
			assert_int_equal(fx->p.segs[i].ts + fx->p.segs[i].dur, fx->p.t1);
	}
}

static inline void release(struct fixture *fx)
{
	critpath_release(&fx->p);
	analysis__free(fx->a);
}

static inline const struct tl_container *ctr(const struct fixture *fx)
{
	return &fx->a->tl->ctrs[0];
}

/*
 * The first segment of syscall @name (NULL: any) of kind @kind by @tid (0:
 * any) — the last one with @last — or NULL.
 */
static inline const struct cp_seg *seg_at(const struct fixture *fx, enum cp_kind kind,
				   const char *name, int64_t tid, bool last)
{
	size_t i;

	for (i = 0; i < fx->p.nsegs; i++) {
		const struct cp_seg *s = &fx->p.segs[last ? fx->p.nsegs - 1 - i : i];

		if (s->kind != kind)
			continue;
		if (tid && (s->task == TL_NOTASK || ctr(fx)->tasks[s->task].tid != tid))
			continue;
		if (name && strcmp(timeline_str(fx->a->tl, s->name), name) != 0)
			continue;
		return s;
	}
	return NULL;
}

static inline const struct cp_seg *seg(const struct fixture *fx, enum cp_kind kind, const char *name,
				int64_t tid)
{
	return seg_at(fx, kind, name, tid, false);
}

/* Total time of @tid's segments on the path. */
static inline uint64_t time_of(const struct fixture *fx, int64_t tid)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < fx->p.nsegs; i++)
		if (fx->p.segs[i].task != TL_NOTASK &&
		    ctr(fx)->tasks[fx->p.segs[i].task].tid == tid)
			t += fx->p.segs[i].dur;
	return t;
}

#endif /* TESTS_CRITPATH_FIXTURE_H */
