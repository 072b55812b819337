// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/serve/pod_boots.c, each pod's startup and listen for
 * --metrics from its containers' rows: a pod of a sandbox, an init
 * container and an app (the startup less the init's run, the listen from
 * the client's start row), counted once; the sandbox's own listen not the
 * pod's; a pod without a sandbox across its init container's end; rows of
 * containers of no pod ignored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collector/serve/pod_boots.h"
#include "common/meta.h"

struct rec {
	int64_t v[2][8];
	int n[2];
};

static void observe(void *ctx, enum pod_value what, int64_t ns)
{
	struct rec *r = ctx;

	if (r->n[what] < 8)
		r->v[what][r->n[what]++] = ns;
}

static void row(struct pod_boots *p, const char *c, uint64_t ts, const char *event,
		const char *name, long ret, const char *detail)
{
	struct row r = { 0 };

	r.ts_ns = ts;
	r.container = field_str(c);
	r.event = event;
	r.name = field_str(name);
	r.has_ret = ret >= 0;
	r.ret = ret;
	r.detail = field_str(detail);
	pod_boots_row(p, &r);
}

/* A meta row of pod @uid, a sandbox or not, as the collector writes it (raw bytes). */
static void meta(struct pod_boots *p, const char *c, uint64_t ts, const char *uid, bool sandbox)
{
	struct meta m = { 0 };
	char d[512];
	struct row r = { 0 };

	m.v[META_POD_UID].s = uid;
	m.v[META_POD_UID].n = strlen(uid);
	m.v[META_TYPE].s = sandbox ? "sandbox" : "container";
	m.v[META_TYPE].n = strlen(m.v[META_TYPE].s);
	r.ts_ns = ts;
	r.container = field_str(c);
	r.event = "meta";
	r.name = field_str("oci");
	r.detail.s = d;
	r.detail.n = meta_format(&m, d, sizeof(d));
	pod_boots_row(p, &r);
}

#define MS 1000000ULL

static void test_pod_of_three(void **state)
{
	struct rec r = { 0 };
	struct pod_boots *p = pod_boots__new(observe, &r);

	(void)state;
	assert_non_null(p);
	/* the client's spawn at 0, the sandbox's cgroup at 500 ms */
	row(p, "sb", 0, "start", "client", -1, "crictl run");
	row(p, "sb", 500 * MS, "start", "mkdir", -1, "/kubepods/besteffort/podu/s");
	meta(p, "sb", 501 * MS, "u", true);
	row(p, "sb", 600 * MS, "exec", "init", -1, "/pause");
	/* the sandbox listening (host network) is not the pod's ready */
	row(p, "sb", 610 * MS, "syscall", "listen", 0, NULL);
	/* an init container: 700 .. 1000 ms, 300 ms left out of the startup */
	row(p, "in", 700 * MS, "start", "mkdir", -1, "/kubepods/besteffort/podu/i");
	meta(p, "in", 701 * MS, "u", false);
	row(p, "in", 800 * MS, "exec", "init", -1, "/bin/migrate");
	row(p, "in", 1000 * MS, "end", NULL, -1, NULL);
	/* the app: exec'd at 1400 ms, listens at 1500 ms, then again */
	row(p, "ap", 1100 * MS, "start", "mkdir", -1, "/kubepods/besteffort/podu/a");
	meta(p, "ap", 1101 * MS, "u", false);
	row(p, "ap", 1200 * MS, "exec", NULL, -1, "/dev/fd/6");	/* runc's own: not it */
	row(p, "ap", 1400 * MS, "exec", "init", -1, "/bin/web");
	row(p, "ap", 1450 * MS, "syscall", "listen", -1, NULL);	/* failed: not it */
	row(p, "ap", 1500 * MS, "syscall", "listen", 0, NULL);
	row(p, "ap", 1600 * MS, "syscall", "listen", 0, NULL);
	assert_int_equal(r.n[POD_STARTUP], 1);
	assert_int_equal(r.n[POD_LISTEN], 1);
	assert_int_equal(r.v[POD_STARTUP][0], (1400 - 300) * MS);
	assert_int_equal(r.v[POD_LISTEN][0], 1500 * MS);
	row(p, "ap", 2000 * MS, "end", NULL, -1, NULL);
	row(p, "sb", 2100 * MS, "end", NULL, -1, NULL);
	/* a container of no pod: nothing */
	row(p, "x", 3000 * MS, "start", "mkdir", -1, "/x");
	row(p, "x", 3100 * MS, "exec", "init", -1, "/bin/x");
	row(p, "x", 3200 * MS, "syscall", "listen", 0, NULL);
	assert_int_equal(r.n[POD_LISTEN], 1);
	pod_boots__free(p);
}

/* No sandbox (a tree made by hand, no annotations): its start is kept across its init's end. */
static void test_pod_without_sandbox(void **state)
{
	struct rec r = { 0 };
	struct pod_boots *p = pod_boots__new(observe, &r);

	(void)state;
	assert_non_null(p);
	row(p, "a", 100 * MS, "start", "mkdir", -1, "/kubepods.slice/a");
	meta(p, "a", 101 * MS, "v", false);
	row(p, "a", 120 * MS, "exec", NULL, -1, "/usr/bin/sleep");
	row(p, "a", 400 * MS, "end", NULL, -1, NULL);
	row(p, "b", 450 * MS, "start", "mkdir", -1, "/kubepods.slice/b");
	meta(p, "b", 451 * MS, "v", false);
	row(p, "b", 500 * MS, "exec", NULL, -1, "/usr/bin/busybox");
	row(p, "b", 600 * MS, "syscall", "listen", 0, NULL);
	assert_int_equal(r.n[POD_LISTEN], 1);
	assert_int_equal(r.v[POD_LISTEN][0], 500 * MS);
	assert_int_equal(r.v[POD_STARTUP][0], (400 - 300) * MS);
	pod_boots__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_of_three),
		cmocka_unit_test(test_pod_without_sandbox),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
