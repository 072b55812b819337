// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/serve/boots.c, the boot phases --metrics times from the
 * rows the collector writes: exec (init, or the first exec that is no
 * runtime's), listen (the first successful one's completion), marks, each
 * once per container; phases that come before the start row; the end row
 * freeing the state; the runtime label from names, paths and comms; the
 * entrypoint label and its cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collector/serve/boots.h"

/* What the sink was told, one line per call. */
struct rec {
	char log[4096];
	int running[RT_COUNT];
};

static void rec_started(void *ctx, enum boot_runtime rt)
{
	struct rec *r = ctx;

	r->running[rt]++;
	snprintf(r->log + strlen(r->log), sizeof(r->log) - strlen(r->log), "start %s\n",
		 boots_runtime_name(rt));
}

static void rec_ended(void *ctx, enum boot_runtime rt)
{
	struct rec *r = ctx;

	r->running[rt]--;
	snprintf(r->log + strlen(r->log), sizeof(r->log) - strlen(r->log), "end %s\n",
		 boots_runtime_name(rt));
}

static void rec_phase(void *ctx, enum boot_runtime rt, const char *phase,
		      const char *const labels[BL_COUNT], int64_t ns)
{
	struct rec *r = ctx;

	snprintf(r->log + strlen(r->log), sizeof(r->log) - strlen(r->log), "%s %s [%s]%s%s%s%s %lld\n",
		 boots_runtime_name(rt), phase, labels[BL_ENTRYPOINT],
		 *labels[BL_NAMESPACE] ? " ns=" : "", labels[BL_NAMESPACE],
		 *labels[BL_IMAGE] ? " image=" : "", labels[BL_IMAGE], (long long)ns);
}

/* A tracker whose entrypoint label takes @entries values; namespace and image @meta each. */
static struct boots *new_boots_labels(struct rec *r, enum boots_kind kind, size_t entries,
				      size_t meta)
{
	struct boots_sink s = { rec_started, rec_ended, rec_phase, r };
	size_t caps[BL_COUNT] = { entries, meta, meta };

	memset(r, 0, sizeof(*r));
	return boots__new(kind, &s, caps);
}

static struct boots *new_boots(struct rec *r, enum boots_kind kind, size_t entries)
{
	return new_boots_labels(r, kind, entries, 0);
}

/* A row: container @c, @event, @name, @detail, at @ts; @ret < -1000: \N */
static void row(struct boots *b, const char *c, uint64_t ts, const char *event, const char *name,
		const char *comm, long ret, long long dur, const char *detail)
{
	struct row r = { 0 };

	r.ts_ns = ts;
	r.container = field_str(c);
	r.event = event;
	r.name = field_str(name);
	r.comm = field_str(comm);
	r.detail = field_str(detail);
	r.has_ret = ret > -1000;
	r.ret = ret;
	r.has_dur = dur >= 0;
	r.dur_ns = dur >= 0 ? (uint64_t)dur : 0;
	boots_row(b, &r);
}

static void test_runc_boot(void **state)
{
	struct rec r;
	struct boots *b = new_boots(&r, BOOTS_WATCH, 0);

	(void)state;
	row(b, "web", 1000, "start", "mkdir", "runc", -9999, -1, "/p/web");
	/* runc's re-execs of itself are not the entrypoint */
	row(b, "web", 1100, "exec", NULL, "runc:[2:INIT]", -9999, -1, "/proc/self/exe");
	row(b, "web", 1200, "exec", NULL, "runc:[2:INIT]", -9999, -1, "/dev/fd/5");
	row(b, "web", 1300, "syscall", "listen", "x", -98, 10, "0.0.0.0:80");	/* failed */
	row(b, "web", 1400, "exec", "init", "runc:[2:INIT]", -9999, -1, "/usr/sbin/httpd");
	row(b, "web", 1500, "syscall", "getppid", "httpd", 1, 5, NULL);
	row(b, "web", 1600, "syscall", "listen", "httpd", 0, 50, "0.0.0.0:80");
	row(b, "web", 1700, "syscall", "listen", "httpd", 0, 50, "0.0.0.0:81");	/* not the first */
	row(b, "web", 1800, "exec", NULL, "httpd", -9999, -1, "/bin/sh");	/* after the entrypoint */
	row(b, "web", 1900, "mark", "ready", "httpd", -9999, -1, "uprobe:/x:ready");
	row(b, "web", 2000, "mark", "ready", "httpd", -9999, -1, "uprobe:/x:ready");
	assert_int_equal(boots_live(b), 1);
	assert_int_equal(r.running[RT_RUNC], 1);
	row(b, "web", 3000, "end", NULL, NULL, -9999, -1, NULL);
	assert_int_equal(boots_live(b), 0);
	assert_string_equal(r.log,
		"start runc\n"
		"runc exec [] 400\n"
		"runc listen [] 650\n"
		"runc ready [] 900\n"
		"end runc\n");
	assert_int_equal(boots_rows(b), 12);
	boots__free(b);
}

static void test_spawn_fallback_and_pending(void **state)
{
	struct rec r;
	struct boots *b = new_boots(&r, BOOTS_SPAWN, 0);

	(void)state;
	/* no init (no pid namespace): the first exec that is no runtime's */
	row(b, "srv-1", 100, "start", "spawn", "collector", -9999, -1, "./srv");
	row(b, "srv-1", 150, "exec", NULL, "srv", -9999, -1, "/usr/bin/srv");
	row(b, "srv-1", 170, "syscall", "listen", "srv", 0, -1, "@x");	/* no dur: its ts */
	/* --start: rows before the start row wait for it */
	row(b, "srv-2", 500, "exec", NULL, "srv", -9999, -1, "/usr/bin/srv");
	row(b, "srv-2", 520, "mark", "cfg", "srv", -9999, -1, "usdt");
	row(b, "srv-2", 400, "start", "mark", "launcher", -9999, -1, "uprobe:/l:launch");
	row(b, "srv-2", 530, "mark", "cfg", "srv", -9999, -1, "usdt");
	row(b, "srv-1", 900, "end", NULL, NULL, -9999, -1, NULL);
	row(b, "srv-2", 900, "end", NULL, NULL, -9999, -1, NULL);
	assert_string_equal(r.log,
		"start spawn\n"
		"spawn exec [] 50\n"
		"spawn listen [] 70\n"
		"start spawn\n"
		"spawn exec [] 100\n"
		"spawn cfg [] 120\n"
		"end spawn\n"
		"end spawn\n");
	assert_int_equal(boots_live(b), 0);
	boots__free(b);
}

static void test_many_containers_freed(void **state)
{
	struct rec r;
	struct boots *b = new_boots(&r, BOOTS_WATCH, 0);
	char name[32];
	int i;

	(void)state;
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		row(b, name, 10, "start", "mkdir", "mkdir", -9999, -1, "/t/x");
		row(b, name, 20, "exec", NULL, "sh", -9999, -1, "/bin/sh");
		if (i >= 100) {
			snprintf(name, sizeof(name), "c%d", i - 100);
			row(b, name, 30, "end", NULL, NULL, -9999, -1, NULL);
		}
		r.log[0] = '\0';
	}
	assert_int_equal(boots_live(b), 100);
	assert_int_equal(r.running[RT_OTHER], 100);
	boots__free(b);	/* the 100 still running: freed here (valgrind, ASan) */
}

static void test_runtime_rules(void **state)
{
#define RT(kind, name, how, comm, detail) \
	boots_runtime(kind, field_str(name), field_str(how), field_str(comm), field_str(detail))
	(void)state;
	assert_int_equal(RT(BOOTS_WATCH, "docker-0123456789ab", "mkdir", "runc", "/docker/0123456789ab0000"), RT_DOCKER);
	assert_int_equal(RT(BOOTS_WATCH, "docker-0123456789ab#2", "mkdir", "runc", "/docker/x"), RT_DOCKER);
	assert_int_equal(RT(BOOTS_WATCH, "podman-0123456789ab", "namespace", "conmon", "pid,mount"), RT_PODMAN);
	assert_int_equal(RT(BOOTS_CLIENT, "podman-0123456789ab", "client", "podman", "podman run x"), RT_PODMAN);
	assert_int_equal(RT(BOOTS_WATCH, "containerd-0123456789ab", "mkdir", "runc", "/system.slice/x"), RT_CONTAINERD);
	assert_int_equal(RT(BOOTS_WATCH, "crio-0123456789ab", "mkdir", "runc", "/crio"), RT_CRIO);
	assert_int_equal(RT(BOOTS_WATCH, "containerd-0123456789ab", "mkdir", "runc",
			    "/kubepods/burstable/pod1/0123456789ab"), RT_KUBERNETES);
	assert_int_equal(RT(BOOTS_WATCH, "crio-0123456789ab", "mkdir", "runc",
			    "/kubepods.slice/kubepods-besteffort.slice/crio-0123456789ab.scope"), RT_KUBERNETES);
	assert_int_equal(RT(BOOTS_WATCH, "web", "mkdir", "runc", "/p/web"), RT_RUNC);
	assert_int_equal(RT(BOOTS_WATCH, "web", "namespace", "runc:[1:CHILD]", "pid,mount"), RT_RUNC);
	assert_int_equal(RT(BOOTS_WATCH, "web", "mkdir", "crun", "/p/web"), RT_RUNC);
	assert_int_equal(RT(BOOTS_WATCH, "web", "mkdir", "mkdir", "/p/web"), RT_OTHER);
	assert_int_equal(RT(BOOTS_WATCH, "nginx.service", "mkdir", "systemd", "/system.slice/nginx.service"), RT_OTHER);
	assert_int_equal(RT(BOOTS_WATCH, "pid-42", "attach", "collector", "/user.slice"), RT_OTHER);
	assert_int_equal(RT(BOOTS_WATCH, "x", "spawn", "collector", "./x"), RT_SPAWN);
	assert_int_equal(RT(BOOTS_SPAWN, "x-1", "mark", "launcher", "uprobe:l:f"), RT_SPAWN);
	/* not a runtime's short id: 11 digits, upper case, a suffix other than #N */
	assert_int_equal(RT(BOOTS_WATCH, "docker-0123456789a", "mkdir", "sh", "/x"), RT_OTHER);
	assert_int_equal(RT(BOOTS_WATCH, "docker-0123456789AB", "mkdir", "sh", "/x"), RT_OTHER);
	assert_int_equal(RT(BOOTS_WATCH, "docker-0123456789abc", "mkdir", "sh", "/x"), RT_OTHER);
	/* "kubepodsX" is not kubepods */
	assert_int_equal(RT(BOOTS_WATCH, "web", "mkdir", "sh", "/kubepodsX/web"), RT_OTHER);
#undef RT
}

static void test_entrypoint_label(void **state)
{
	struct rec r;
	struct boots *b = new_boots(&r, BOOTS_WATCH, 2);

	(void)state;
	row(b, "a", 0, "start", "mkdir", "sh", -9999, -1, "/a");
	row(b, "a", 5, "exec", NULL, "sh", -9999, -1, "/usr/sbin/nginx");
	row(b, "b", 0, "start", "mkdir", "sh", -9999, -1, "/b");
	row(b, "b", 6, "exec", NULL, "sh", -9999, -1, "/bad\tname\xff");
	row(b, "c", 0, "start", "mkdir", "sh", -9999, -1, "/c");
	row(b, "c", 7, "exec", NULL, "sh", -9999, -1, "/usr/bin/redis");	/* the third: other */
	row(b, "c", 8, "syscall", "listen", "sh", 0, 1, NULL);
	row(b, "d", 0, "start", "mkdir", "sh", -9999, -1, "/d");
	row(b, "d", 9, "exec", NULL, "sh", -9999, -1, "/opt/nginx");	/* known: nginx */
	assert_string_equal(r.log,
		"start other\n"
		"other exec [nginx] 5\n"
		"start other\n"
		"other exec [bad\\tname\\xff] 6\n"
		"start other\n"
		"other exec [other] 7\n"
		"other listen [other] 9\n"
		"start other\n"
		"other exec [nginx] 9\n");
	boots__free(b);
}

/* Namespace and image from the meta row (hostile bytes escaped), capped; none without one. */
static void test_meta_labels(void **state)
{
	static const char meta1[] = "runtime=10:containerd pod=5:web-0 namespace=4:prod image=11:reg/app:1.4";
	static const char meta2[] = "namespace=4:a\tb\xff image=3:x y";
	static const char meta3[] = "namespace=5:third image=11:reg/app:1.4";
	struct rec r;
	struct boots *b = new_boots_labels(&r, BOOTS_WATCH, 0, 2);

	(void)state;
	row(b, "a", 0, "start", "mkdir", "runc", -9999, -1, "/kubepods/burstable/pod1/a");
	row(b, "a", 1, "meta", "oci", NULL, -9999, -1, meta1);
	row(b, "a", 5, "exec", "init", "sh", -9999, -1, "/bin/sh");
	row(b, "b", 0, "start", "mkdir", "runc", -9999, -1, "/b");
	row(b, "b", 1, "meta", "oci", NULL, -9999, -1, meta2);
	row(b, "b", 6, "exec", "init", "sh", -9999, -1, "/bin/sh");
	row(b, "c", 0, "start", "mkdir", "runc", -9999, -1, "/c");
	row(b, "c", 1, "meta", "oci", NULL, -9999, -1, meta3);	/* a third namespace: other */
	row(b, "c", 7, "exec", "init", "sh", -9999, -1, "/bin/sh");
	row(b, "d", 0, "start", "mkdir", "runc", -9999, -1, "/d");	/* no meta row */
	row(b, "d", 1, "meta", "oci", NULL, -9999, -1, "namespace=99:short");	/* malformed: none */
	row(b, "d", 8, "exec", "init", "sh", -9999, -1, "/bin/sh");
	assert_string_equal(r.log,
		"start kubernetes\n"
		"kubernetes exec [] ns=prod image=reg/app:1.4 5\n"
		"start runc\n"
		"runc exec [] ns=a\\tb\\xff image=x y 6\n"
		"start runc\n"
		"runc exec [] ns=other image=reg/app:1.4 7\n"
		"start runc\n"
		"runc exec [] 8\n");
	boots__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runc_boot),
		cmocka_unit_test(test_spawn_fallback_and_pending),
		cmocka_unit_test(test_many_containers_freed),
		cmocka_unit_test(test_runtime_rules),
		cmocka_unit_test(test_entrypoint_label),
		cmocka_unit_test(test_meta_labels),
	};

	return cmocka_run_group_tests_name("collector_boots", tests, NULL, NULL);
}
