/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pods: the containers' names (their `meta` rows, common/meta.h) and what
 * they make: the groups of --by image and --by namespace, and each pod's
 * boot (--by pod). Kept beside struct analysis when --by asks for it
 * (analysis.pods); the file is then read by one thread.
 *
 * A container here is (run, name): the files of one collector run (the
 * same `# run_id`) share their containers, as analysis.h joins them;
 * files without a run are each their own. Its times are minima over its
 * rows, as analysis.h's phases: t_start its start rows, exec its init
 * exec else its first exec that is no runtime's (--exec PATTERN is not
 * applied here), listen its first successful listen's completion; t_end
 * its end row; t_create its earliest start row that is not the client's
 * spawn (client mode's `client`): when the runtime made its cgroup (runc
 * create's mkdir), by task create_pid.
 *
 * A pod: the containers whose meta rows give the same pod_uid (in the
 * same run). Its sandbox: the one with type=sandbox. Its init containers:
 * the others that ended before the next of them (by start) started: the
 * kubelet runs each init container to its end before the next, and the
 * app containers after the last (an app that restarted looks the same:
 * it is counted as init). Its apps: the rest. Its boot: from the
 * sandbox's start (else the earliest start) to the last app's listen;
 * not reached when an app never listened, or it has no app.
 */
#ifndef ANALYZE_PODS_H
#define ANALYZE_PODS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/read/reader.h"
#include "common/meta.h"

#define POD_NONE UINT64_MAX

enum pod_role { ROLE_SANDBOX, ROLE_INIT, ROLE_APP };

struct pod_ctr {
	uint32_t key;			/* its (run, name) in pods.keys */
	uint32_t file;			/* the file of its first row (0-based) */
	uint64_t t_start, t_exec, t_init, t_listen, t_end;
	uint64_t t_create;		/* its first start row not the client's, or POD_NONE */
	int64_t create_pid;		/* that row's pid (runc create), or -1 */
	char *name;			/* the container column, escaped as in the file */
	size_t name_n;
	char *meta;			/* its meta row's detail, unescaped (NULL: none) */
	size_t meta_n;
	struct meta m;			/* parsed, pointing into meta */
	enum pod_role role;		/* after pods_finish() */
};

struct pods {
	struct strtab *keys;
	struct pod_ctr *c;
	size_t n, cap;
	char *scratch;			/* a detail unescaped */
};

/* pods__new - empty; NULL out of memory. pods__free accepts NULL. */
struct pods *pods__new(void);
void pods__free(struct pods *p);

/*
 * pods_row - account row @r (start, end, exec, meta, or a listen syscall
 * row; others are ignored) of container column @r's, in file @file of run
 * @run (NULL: none). 0, or -1 out of memory.
 */
int pods_row(struct pods *p, uint32_t file, const char *run, const struct tsv_row *r);

/*
 * pods_find - container @name (@n bytes, escaped as in the file) of file
 * @file of run @run (NULL: none), as pods_row() keyed it; NULL if unseen.
 */
const struct pod_ctr *pods_find(const struct pods *p, uint32_t file, const char *run,
				const char *name, size_t n);

/* pods_exec - @c's exec phase time (its init exec, else its first), POD_NONE. */
uint64_t pods_exec(const struct pod_ctr *c);

/* A pod: its containers, ordered by start (the sandbox first). */
struct pod {
	const struct pod_ctr **c;
	size_t n;
	uint64_t t0;		/* the sandbox's start, else the earliest */
	uint64_t ready;		/* the last app's listen; POD_NONE: not reached */
	const struct meta *names;	/* the first member's meta with a pod name, else the first's */
};

/*
 * pods_list - the pods of @p, in order of their t0, into *@out (the caller
 * frees each ->c, then the array); roles set. Returns the count, or
 * (size_t)-1 out of memory.
 */
size_t pods_list(struct pods *p, struct pod **out);

#endif /* ANALYZE_PODS_H */
