/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pod_boot: a pod's boot as one boot (issue 38), as the kubelet starts a
 * pod through the CRI: RunPodSandbox (the network, then the sandbox),
 * then each container's CreateContainer and StartContainer.
 *
 * pod_boot_merge() moves the containers of each pod (pods.h: the same
 * pod_uid in their meta rows, in one run and one file) into one timeline
 * container before the timeline is finished, named "<namespace>/<pod>"
 * (escaped as in the file): its start is the earliest start row of its
 * containers (client mode: the client's spawn; watch mode: the sandbox's
 * cgroup made by runc create, or with the host rows of --sched host its
 * shim's start: a start row `shim` added at the exec of the
 * `containerd-shim-runc-v2 start` that forked the shim that forked that
 * runc create; the CRI call and the network before it are containerd's,
 * and no row says which pod they were for), its tasks all of theirs, and, once
 * timeline_finish() imports them (host_tasks.h), the runtime's tasks in
 * the pod's window. The critical path, --until, --by state, the profile,
 * the boot chart and the exports then take the pod as one boot, from
 * that start through containerd, the CNI plugins, the shim and runc into
 * the app's listen. The pod's phases: exec its first exec (the sandbox's
 * process running), listen the pod's ready (pods.h: the last app's
 * listen; not reached while an app never listened), each mark the
 * earliest of its containers'. Its containers' own timeline containers
 * are left empty (no start: not timed).
 *
 * pod_boot_steps() then tells the steps of a merged pod, from its rows
 * and the runtime's (host rows, docs/tsv-format.md; without them, only
 * what the containers' own rows say):
 *
 *   network   the CNI plugins: the processes containerd forked that exec'd
 *             a file that is no shim (containerd execs nothing else for a
 *             pod but its shims and CNI plugins), after the pod's start and
 *             before the sandbox's cgroup was made; from the first one's
 *             exec to the last one's exit (the plugins they exec in turn,
 *             an IPAM, are inside that);
 *   per container, in order of start:
 *     shim    the exec of containerd-shim-* by containerd that began its
 *             task (StartContainer's first work the kernel sees: `shim
 *             start`, which starts the pod's shim for the sandbox, and
 *             finds it for the others), the last one after the previous
 *             container's step and before its cgroup;
 *     create  its cgroup made (runc create's mkdir: its start row);
 *     start   the exec of `runc start` (a runc exec'd after create by
 *             another process than runc create, before its entrypoint);
 *     exec    its entrypoint's exec (the sandbox: its process running);
 *     listen  its first listen; end its end (init containers).
 * A step not seen is TL_NONE.
 */
#ifndef ANALYZE_POD_BOOT_H
#define ANALYZE_POD_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/boot/pods.h"
#include "analyze/boot/timeline.h"

/*
 * pod_boot_merge - merge each pod of @p (its containers in @tl, not yet
 * finished) into one timeline container, as above. 0, or -1 out of memory
 * (@tl is then only fit to be freed).
 */
int pod_boot_merge(struct timeline *tl, struct pods *p);

/* One container of a pod, its steps (absolute ns, or TL_NONE). */
struct pod_step {
	const struct pod_ctr *c;	/* pods.h's */
	uint64_t shim, create, start, exec, listen, end;
};

struct pod_boot {
	size_t ctr;		/* the pod's timeline container (tl->ctrs) */
	uint64_t t0;		/* its start */
	uint64_t net_begin, net_end;	/* the CNI plugins, or TL_NONE */
	size_t plugins;		/* CNI plugin processes seen */
	uint64_t started;	/* every app's entrypoint exec'd (the kubelet's SLI's
				 * "containers started"), or TL_NONE */
	uint64_t ready;		/* every app listening (pods.h's ready), or TL_NONE */
	struct pod_step *steps;	/* its containers, as pods.h orders them */
	size_t nsteps;
};

/*
 * pod_boot_find - the timeline container pod_boot_merge() made of pod @d
 * (pods_list()'s) in @tl (finished), or -1 when none (no container of it
 * in the timeline).
 */
long pod_boot_find(const struct timeline *tl, const struct pod *d);

/*
 * pod_boot_steps - the steps of pod @d, merged into tl->ctrs[@ctr]
 * (finished), into @b; @tl NULL (no timeline): only what pods.h knows of
 * its containers (no network, shim or runc start). 0, or -1 out of
 * memory. Free with pod_boot_release().
 */
int pod_boot_steps(const struct timeline *tl, size_t ctr, const struct pod *d, struct pod_boot *b);

/* pod_boot_release - free what pod_boot_steps() allocated in @b. */
void pod_boot_release(struct pod_boot *b);

/*
 * pod_boot_name - the name pod_boot_merge() gives pod @d, escaped as in
 * the file ("<namespace>/<pod>"; the uid when it has no pod name), into
 * @out (@n bytes, NUL-terminated). Its length.
 */
size_t pod_boot_name(const struct pod *d, char *out, size_t n);

#endif /* ANALYZE_POD_BOOT_H */
