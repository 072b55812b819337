// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the host and the options allow: the capabilities, the mode, the
 * BPF object and its fallback, and the backend's configuration.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/marks.h"
#include "collector/names.h"
#include "collector/proc.h"

/*
 * Loading tracing programs needs CAP_BPF and CAP_PERFMON (5.8; before,
 * CAP_SYS_ADMIN); making cgroups and task storage for other users' tasks
 * need CAP_SYS_ADMIN. Name what is missing rather than fail at load.
 */
int setup_check_capabilities(void)
{
	static const struct { int cap; const char *name; } need[] = {
		{ 39 /* CAP_BPF */, "CAP_BPF" },
		{ 38 /* CAP_PERFMON */, "CAP_PERFMON" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	};
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	char missing[128] = "";
	size_t i;

	if (syscall(SYS_capget, &h, d) < 0)
		return 0;	/* cannot tell: let the load say */
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int cap = need[i].cap;

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
 * Which attribution: --mode, or (auto) cgroup mode when the kernel has BTF
 * (the modern object; bpf_get_current_cgroup_id is 4.18) and the container
 * has a cgroup v2 node of its own: spawn and watch make or see one when
 * cgroup2 is mounted; --pid checks /proc/PID/cgroup. Otherwise pidtree.
 */
int setup_mode(struct collector *c, int have_btf)
{
	char rel[PATH_MAX] = "";
	int in_root = 0;

	if (c->opt.pid > 0)
		in_root = c->cg2[0] && proc_cgroup2_path(c->opt.pid, rel, sizeof(rel)) == 0 &&
			  strcmp(rel, "/") == 0;
	if (strcmp(c->opt.mode, "auto") == 0) {
		c->mode = have_btf && c->cg2[0] && !in_root && strcmp(c->opt.object, "legacy") ?
			  BT_MODE_CGROUP : BT_MODE_PIDTREE;
		return 0;
	}
	if (strcmp(c->opt.mode, "pidtree") == 0) {
		c->mode = BT_MODE_PIDTREE;
		return 0;
	}
	c->mode = BT_MODE_CGROUP;
	if (!have_btf) {
		fprintf(stderr, "collector: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"cgroup mode needs it; --mode pidtree is for such kernels\n");
		return -1;
	}
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
 * The modern object where the kernel has BTF, else the legacy one. In auto
 * mode a modern object that does not load falls back to the legacy one in
 * pidtree mode, with one line saying why.
 */
int setup_open_backend(struct collector *c, struct backend_config *cfg, int have_btf)
{
	int err;

	if (strcmp(c->opt.object, "legacy") != 0 && have_btf) {
		err = backend_modern_open(cfg, &c->be);
		if (err == 0 || strcmp(c->opt.object, "modern") == 0 ||
		    strcmp(c->opt.mode, "cgroup") == 0)
			return err;
		fprintf(stderr, "collector: the modern BPF object did not load (%s); "
			"using the legacy object in pidtree mode\n", strerror(-err));
		c->mode = cfg->mode = BT_MODE_PIDTREE;
	} else if (strcmp(c->opt.object, "modern") == 0) {
		fprintf(stderr, "collector: the modern BPF object needs kernel BTF "
			"(/sys/kernel/btf/vmlinux), which this kernel lacks\n");
		return -ENOTSUP;
	}
	/* before loading anything: what the legacy object cannot attach */
	if (marks_count(c->opt.marks)) {
		char err[4096];

		if (marks_legacy_check(c->opt.marks, err, sizeof(err)) < 0) {
			fprintf(stderr, "collector: %s\n", err);
			c->usage_error = 1;
			return -EINVAL;
		}
	}
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
	cfg->watch = !c->opt.command && c->opt.pid <= 0;
	cfg->buffer_mb = c->opt.ringbuf_mb;
	cfg->marks = marks_count(c->opt.marks) > 0;
	cfg->start_mark = marks_have_start(c->opt.marks);
	cfg->nmarks = (unsigned int)marks_count(c->opt.marks);
	for (i = 0; i < marks_count(c->opt.marks) && i < 32; i++)
		if (marks_get(c->opt.marks, i)->start)
			cfg->mark_start_mask |= 1U << i;
	cfg->verbose = c->opt.verbose;
	cfg->started_ns = c->started_ns;
	cfg->on_event = rows_on_event;
	cfg->ctx = c;
	return configure_syscalls(cfg, c->opt.syscalls);
}
