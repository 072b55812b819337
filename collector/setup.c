// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the host and the options allow: the capabilities, the mode, the
 * BPF object and its fallback, and the backend's configuration.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "collector/collector.h"
#include "collector/kernel/marks.h"
#include "collector/rows/names.h"
#include "collector/kernel/proc.h"
#include "collector/kernel/spans.h"
#include "collector/kernel/backend.h"
#include "collector/clock.h"
#include "collector/rows/spanrows.h"

/*
 * Loading tracing programs needs CAP_BPF and CAP_PERFMON (5.8; before,
 * CAP_SYS_ADMIN). Watch mode (and --pid) asks no more of a 5.8+ kernel
 * (the service's unit, dist/boottrace-collector.service, runs it so:
 * checked on 6.18 with the modern, compat and legacy objects, in both
 * modes); a uprobe through the uprobe PMU (--mark, --start) is refused
 * without CAP_SYS_ADMIN (EACCES, on 6.18 too), and spawn and client modes
 * make namespaces and run commands as others: those need CAP_SYS_ADMIN.
 * Name what is missing rather than fail at load.
 */
int setup_check_capabilities(const struct options *o)
{
	static const struct { int cap; const char *name; } need[] = {
		{ 39 /* CAP_BPF */, "CAP_BPF" },
		{ 38 /* CAP_PERFMON */, "CAP_PERFMON" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	};
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	char missing[128] = "", buf[16] = "";
	size_t i;
	FILE *f;
	int last = 0, admin;

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;	/* cannot tell: let the load say */
	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	if (f && fgets(buf, sizeof(buf), f))
		last = atoi(buf);
	if (f)
		fclose(f);
	admin = last < 39 || o->command || marks_count(o->marks);
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int cap = need[i].cap;

		if ((cap == CAP_SYS_ADMIN && !admin) || (cap != CAP_SYS_ADMIN && last < 39))
			continue;
		if (!(d[cap / 32].effective & (1U << (cap % 32))))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 "%s%s", missing[0] ? ", " : "", need[i].name);
	}
	if (!missing[0])
		return 0;
	fprintf(stderr, "collector: missing capabilities: %s; run it as root (sudo collector ...)\n",
		missing);
	return -1;
}

/*
 * Which attribution: --mode, or (auto) cgroup mode when the container has
 * a cgroup v2 node of its own (spawn and watch make or see one when
 * cgroup2 is mounted; --pid checks /proc/PID/cgroup) and the object is not
 * the legacy one; otherwise pidtree. Whether an object can do it is
 * setup_open_backend()'s to find out: the modern object (BTF, 5.15) or the
 * compat object (bpf_get_current_cgroup_id, 4.18).
 */
int setup_mode(struct collector *c)
{
	char rel[PATH_MAX] = "";
	int in_root = 0;

	if (c->opt.pid > 0)
		in_root = c->cg2[0] && proc_cgroup2_path(c->opt.pid, rel, sizeof(rel)) == 0 &&
			  strcmp(rel, "/") == 0;
	if (strcmp(c->opt.mode, "auto") == 0) {
		c->mode = c->cg2[0] && !in_root && strcmp(c->opt.object, "legacy") ?
			  BT_MODE_CGROUP : BT_MODE_PIDTREE;
		if (c->opt.verbose && c->mode == BT_MODE_PIDTREE)
			fprintf(stderr, "collector: pidtree mode: %s\n",
				!c->cg2[0] ? "no cgroup2 mount" :
				in_root ? "the process is in the cgroup v2 root" :
				"the legacy object has no cgroup mode");
		return 0;
	}
	if (strcmp(c->opt.mode, "pidtree") == 0) {
		c->mode = BT_MODE_PIDTREE;
		return 0;
	}
	c->mode = BT_MODE_CGROUP;
	if (!c->cg2[0]) {
		fprintf(stderr, "collector: no cgroup2 mount in /proc/self/mounts: cgroup mode needs one "
			"(mount -t cgroup2 none /sys/fs/cgroup/unified); --mode pidtree works without\n");
		return -1;
	}
	if (strcmp(c->opt.object, "legacy") == 0) {
		fprintf(stderr, "collector: the legacy BPF object has no cgroup mode; use --mode pidtree\n");
		return -1;
	}
	if (in_root) {
		fprintf(stderr, "collector: process %d is in the cgroup v2 root, shared with the whole host: "
			"cgroup mode cannot tell it apart; use --mode pidtree\n", c->opt.pid);
		return -1;
	}
	return 0;
}

/*
 * Whether the kernel has bpf_get_current_cgroup_id (helper 80, 4.18: what
 * the compat object's cgroup mode is built on), by loading a program that
 * calls it (libbpf_probe_bpf_helper), not by the kernel's version: vendor
 * kernels backport. BOOTTRACE_TEST_NO_CGROUP_ID=1 answers no (tests).
 */
static int have_cgroup_id_helper(void)
{
	if (test_knob("BOOTTRACE_TEST_NO_CGROUP_ID"))
		return 0;
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_get_current_cgroup_id,
				       NULL) == 1;
}

/*
 * What the legacy and compat objects cannot attach, before loading
 * anything: 0, or -EINVAL after a message (a usage error).
 */
static int check_perf_marks(struct collector *c, const char *object)
{
	char err[4096];

	if (marks_count(c->opt.marks) && marks_perf_check(c->opt.marks, object, err, sizeof(err)) < 0) {
		fprintf(stderr, "collector: %s\n", err);
		c->usage_error = 1;
		return -EINVAL;
	}
	return 0;
}

/*
 * The object, by probing what loads rather than by kernel versions: with
 * --object auto, the modern object when it loads (BTF; 5.15), else the
 * compat object in cgroup mode when the kernel has helper 80 (4.18) and
 * the container a v2 cgroup of its own (setup_mode()), else the legacy
 * object in pidtree mode (4.15). With -v, why each was passed over; a
 * modern object that fails to load is said in any case, in one line.
 * BOOTTRACE_TEST_NO_MODERN=1 makes the modern object fail as if it did
 * not load (tests).
 */
int setup_open_backend(struct collector *c, struct backend_config *cfg, int have_btf)
{
	const char *object = c->opt.object;
	int any = strcmp(object, "auto") == 0, err;
	char failed[256] = "";	/* why the modern object did not load, if it did not */

	/* 1. the modern object */
	if (any || strcmp(object, "modern") == 0) {
		if (!have_btf) {
			if (!any) {
				fprintf(stderr, "collector: the modern BPF object needs kernel BTF "
					"(/sys/kernel/btf/vmlinux), which this kernel lacks\n");
				return -ENOTSUP;
			}
			if (c->opt.verbose)
				fprintf(stderr, "collector: not the modern BPF object: it needs kernel BTF "
					"(/sys/kernel/btf/vmlinux), which this kernel lacks\n");
		} else {
			if (test_knob("BOOTTRACE_TEST_NO_MODERN")) {
				err = -ENOTSUP;
				snprintf(failed, sizeof(failed), "BOOTTRACE_TEST_NO_MODERN is set");
			} else {
				err = backend_modern_open(cfg, &c->be);
				if (err == 0 || !any)
					return err;
				snprintf(failed, sizeof(failed), "%s", strerror(-err));
			}
			if (!any) {
				fprintf(stderr, "collector: the modern BPF object did not load (%s)\n", failed);
				return err;
			}
			if (c->opt.verbose)
				fprintf(stderr, "collector: not the modern BPF object: it did not load (%s)\n",
					failed);
		}
	}

	/* 2. the compat object: cgroup mode without the modern one (and pidtree, if asked) */
	if (strcmp(object, "compat") == 0 || (any && c->mode == BT_MODE_CGROUP)) {
		if (!have_cgroup_id_helper()) {
			if (!any || strcmp(c->opt.mode, "cgroup") == 0) {
				fprintf(stderr, "collector: the compat BPF object needs bpf_get_current_cgroup_id "
					"(kernel 4.18), which this kernel lacks%s\n",
					any ? "; --mode pidtree works without" : "");
				return -ENOTSUP;
			}
			if (c->opt.verbose)
				fprintf(stderr, "collector: not the compat BPF object: the kernel has no "
					"bpf_get_current_cgroup_id (helper 80, 4.18)\n");
		} else {
			if (check_perf_marks(c, "compat") < 0)
				return -EINVAL;
			err = backend_compat_open(cfg, &c->be);
			if (err == 0 && failed[0])
				fprintf(stderr, "collector: the modern BPF object did not load (%s); "
					"using the compat object in cgroup mode\n", failed);
			if (err == 0 || !any || strcmp(c->opt.mode, "cgroup") == 0)
				return err;
			if (c->opt.verbose)
				fprintf(stderr, "collector: not the compat BPF object: it did not load (%s)\n",
					strerror(-err));
		}
	} else if (any && c->opt.verbose) {
		fprintf(stderr, "collector: not the compat BPF object: pidtree mode is the legacy object's\n");
	}

	/* 3. the legacy object, pidtree mode */
	if (failed[0])
		fprintf(stderr, "collector: the modern BPF object did not load (%s); "
			"using the legacy object in pidtree mode\n", failed);
	c->mode = cfg->mode = BT_MODE_PIDTREE;
	if (check_perf_marks(c, "legacy") < 0)
		return -EINVAL;
	return backend_legacy_open(cfg, &c->be);
}

static int configure_syscalls(struct backend_config *cfg, const char *list)
{
	char buf[4096], *tok, *save = NULL;

	cfg->trace_all_syscalls = strcmp(list, "all") == 0;
	if (cfg->trace_all_syscalls)
		return 0;
	if (strcmp(list, "none") == 0) {
		cfg->trace_no_syscalls = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int nr = syscall_nr(tok);

		if (nr < 0 || nr >= BT_MAX_SYSCALLS) {
			fprintf(stderr, "collector: unknown syscall '%s'\n", tok);
			return -1;
		}
		cfg->syscall_mask[nr / 64] |= 1ULL << (nr % 64);
	}
	return 0;
}

int setup_config(struct collector *c, struct backend_config *cfg)
{
	size_t i;

	cfg->mode = c->mode;
	/* client mode watches too: its containers are made elsewhere */
	cfg->watch = (!c->opt.command || c->opt.cgroup_glob) && c->opt.pid <= 0;
	cfg->buffer_mb = c->opt.ringbuf_mb;
	cfg->sched = c->opt.sched != SCHED_OFF;
	cfg->profile_hz = c->opt.profile_hz;
	cfg->offcpu_stacks = c->opt.offcpu_stacks && cfg->sched;
	cfg->spans = c->opt.spans && marks_uprobes_supported(NULL);
	if (c->opt.profile_unwind != PROFILE_UNWIND_FP)
		cfg->profile_stack = c->opt.profile_stack;
	cfg->marks = marks_count(c->opt.marks) > 0;
	cfg->start_mark = marks_have_start(c->opt.marks);
	cfg->nmarks = (unsigned int)marks_count(c->opt.marks);
	for (i = 0; i < marks_count(c->opt.marks) && i < 32; i++)
		if (marks_get(c->opt.marks, i)->start)
			cfg->mark_start_mask |= 1U << i;
	cfg->verbose = c->opt.verbose;
	cfg->started_ns = c->started_ns;
	cfg->on_event = records_on_event;
	cfg->ctx = c;
	return configure_syscalls(cfg, c->opt.syscalls);
}

int setup_spans(struct collector *c)
{
	struct boottrace_bpf *skel = backend_modern_skel(c->be);

	if (!c->opt.spans)
		return 0;
	if (!skel || !c->be->cfg.spans) {
		/*
		 * The probes have semaphores, which only a uprobe with a
		 * reference counter counts up (Linux 4.20); the legacy and
		 * compat objects place theirs through uprobe_events, which
		 * cannot. Said when asked for, or under -v: spans are on by
		 * default, and an old kernel is no fault of the user's.
		 */
		if (c->opt.spans > 1 || c->opt.verbose)
			fprintf(stderr, "collector: --spans: the %s BPF object cannot count the "
				"interpreters' USDT semaphores (uprobe reference counts: Linux 4.20 "
				"and the modern object); no span rows (# spans=off)\n",
				skel ? "modern object without uprobes: this" : c->be->ops->name);
		return 0;
	}
	c->spans = spans__new(skel, c->opt.verbose);
	c->spanrows = spanrows__new();
	if (!c->spans || !c->spanrows) {
		fprintf(stderr, "collector: out of memory\n");
		return -1;
	}
	/*
	 * --spans host: the host's interpreters now, so that their first
	 * requires are never missed. Not by default: each uprobe costs its
	 * detach an RCU grace period at exit (2.1 s for the 7 files of the
	 * test VM, 0.09 s without them), paid by every run, interpreters or
	 * not.
	 */
	if (c->opt.spans == 3)
		spans_attach_host(c->spans);
	if (c->opt.verbose && c->opt.spans == 3)
		fprintf(stderr, "collector: --spans: %zu interpreter files on the host, attached in "
			"%.1f ms\n", spans_files(c->spans), ms_since(c->started_ns));
	return 0;
}
