// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: --otlp-endpoint's URLs (analyze/out/otlp_http.c: a base URL
 * gets /v1/traces, a path is kept, IPv6 in brackets, https and the rest
 * refused with a reason); a container's resource attributes
 * (analyze/boot/resource.c: the 64-hex id of its cgroup path, the runtime
 * of its name, the name without #N, the file's host and kernel, each only
 * when known); and --format otlp's lines (analyze/out/otlp.c): one line a
 * timed boot, 1 + phases + critical path segments spans, the root without
 * a parent, ids the same on a second export and different between boots.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/boot/analysis.h"
#include "analyze/boot/critpath.h"
#include "analyze/boot/resource.h"
#include "analyze/out/otlp.h"
#include "analyze/out/otlp_http.h"
#include "common/tsv.h"

static void url_ok(const char *s, const char *host, const char *port, const char *path)
{
	struct otlp_url u;
	char why[256] = "";

	assert_int_equal(otlp_url_parse(s, &u, why, sizeof(why)), 0);
	assert_string_equal(u.host, host);
	assert_string_equal(u.port, port);
	assert_string_equal(u.path, path);
	assert_ptr_equal(u.text, s);
}

static void url_bad(const char *s, const char *reason)
{
	struct otlp_url u;
	char why[256] = "";

	assert_int_equal(otlp_url_parse(s, &u, why, sizeof(why)), -1);
	if (!strstr(why, reason))
		fail_msg("%s: '%s', not '%s'", s, why, reason);
}

static void test_urls(void **state)
{
	(void)state;
	url_ok("http://127.0.0.1:4318", "127.0.0.1", "4318", "/v1/traces");
	url_ok("http://127.0.0.1:4318/", "127.0.0.1", "4318", "/v1/traces");
	url_ok("HTTP://collector", "collector", "80", "/v1/traces");
	url_ok("http://[::1]:4318/otlp/v1/traces", "::1", "4318", "/otlp/v1/traces");
	url_ok("http://[::1]", "::1", "80", "/v1/traces");
	url_bad("https://127.0.0.1:4318", "https is not supported");
	url_bad("grpc://127.0.0.1:4317", "not an http:// URL");
	url_bad("http://:4318", "no host");
	url_bad("http://h:99999", "bad port");
	url_bad("http://h:", "bad port");
	url_bad("http://h:12ab", "bad port");
	url_bad("http://[::1/x", "bad IPv6");
	url_bad("http://h/a b", "bad path");
	url_bad("http://h?x", "bad URL");
}

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define R(ts, c, ev, name, ret, dur, detail) \
	ts "\t" c "\t7\t10\t10\t1\tcomm\t" ev "\t" name "\t" ret "\t" dur "\t" detail "\n"

static const char with_meta[] =
	"# boottrace-tsv 1\n# host=node-1\n# kernel=6.1.0-9\n# run_id=0746d754c3afb1425fe875bc269f3afb\n"
	"# realtime_offset_ns=1000000000000\n# part=1\n" TSV_HEADER "\n"
	R("1000", "docker-0123456789ab", "start", "mkdir", "\\N", "\\N",
	  "/system.slice/docker-" ID64 ".scope")
	R("1100", "docker-0123456789ab", "exec", "init", "\\N", "\\N", "/bin/srv")
	R("1200", "docker-0123456789ab", "syscall", "listen", "0", "50", "0.0.0.0:80")
	R("2000", "web#2", "start", "spawn", "\\N", "\\N", "/bin/web")
	R("2100", "web#2", "exec", "init", "\\N", "\\N", "/bin/web")
	R("3000", "untimed", "syscall", "read", "1", "5", "\\N")
	"# lost=0 events=6\n";

static const char bare[] = "# boottrace-tsv 1\n" TSV_HEADER "\n"
	R("5000", "kubepods-x", "start", "mkdir", "\\N", "\\N", "/kubepods/burstable/podu/" ID64 "0")
	"# lost=0 events=1\n";

static struct analysis *read_text(const char *text)
{
	struct analyze_opts o = { .timeline = true, .threads = 1 };
	struct analysis *a = analysis__new(&o);
	char path[] = "/tmp/boottrace-otlp-XXXXXX";
	int fd = mkstemp(path);
	FILE *err = fopen("/dev/null", "w");

	assert_non_null(a);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(analysis_read(a, path, err), 0);
	assert_int_equal(analysis_finish(a), 0);
	unlink(path);
	fclose(err);
	return a;
}

/* attribute @key of @at (@n) as a string (until the next call), or NULL */
static const char *attr(const struct res_attr *at, size_t n, const char *key)
{
	static char buf[512];
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(at[i].key, key) == 0) {
			assert_true(at[i].len < sizeof(buf));
			memcpy(buf, at[i].val, at[i].len);
			buf[at[i].len] = '\0';
			return buf;
		}
	return NULL;
}

static long ctr_of(const struct analysis *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->tl->nctrs; i++)
		if (strcmp(timeline_str(a->tl, a->tl->ctrs[i].name), name) == 0)
			return (long)i;
	return -1;
}

static void test_resource(void **state)
{
	struct analysis *a = read_text(with_meta);
	struct res_attr at[RESOURCE_MAX_ATTRS];
	long c = ctr_of(a, "docker-0123456789ab");
	size_t n;

	(void)state;
	assert_true(c >= 0);
	n = resource_attrs(a, (size_t)c, at);
	assert_string_equal(attr(at, n, "service.name"), "docker-0123456789ab");
	assert_string_equal(attr(at, n, "container.runtime"), "docker");
	assert_string_equal(attr(at, n, "container.id"), ID64);
	assert_string_equal(attr(at, n, "host.name"), "node-1");
	assert_string_equal(attr(at, n, "os.type"), "linux");
	assert_string_equal(attr(at, n, "os.version"), "6.1.0-9");
	assert_string_equal(attr(at, n, "boottrace.run_id"), "0746d754c3afb1425fe875bc269f3afb");
	c = ctr_of(a, "web#2");
	n = resource_attrs(a, (size_t)c, at);
	assert_string_equal(attr(at, n, "container.name"), "web");
	assert_string_equal(attr(at, n, "boottrace.container"), "web#2");
	assert_null(attr(at, n, "container.runtime"));
	assert_null(attr(at, n, "container.id"));	/* a spawn's command is no cgroup */
	analysis__free(a);

	/* no metadata: no host, kernel or run; an id of 65 hex digits is none */
	a = read_text(bare);
	n = resource_attrs(a, 0, at);
	assert_null(attr(at, n, "host.name"));
	assert_null(attr(at, n, "os.version"));
	assert_null(attr(at, n, "boottrace.run_id"));
	assert_null(attr(at, n, "container.id"));
	assert_string_equal(attr(at, n, "os.type"), "linux");
	analysis__free(a);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

static char *export(struct analysis *a)
{
	struct otlp_opts o = { .cp_phase = PHASE_LISTEN };
	char *buf = NULL;
	size_t len = 0, sent;

	o.out = open_memstream(&buf, &len);
	assert_non_null(o.out);
	assert_int_equal(otlp_export(a, &o, stderr, &sent), 0);
	fclose(o.out);
	return buf;
}

static void test_export(void **state)
{
	struct analysis *a = read_text(with_meta);
	char *out = export(a), *again = export(a), *line2, tid1[33], tid2[33];
	struct cp_path p;
	long c = ctr_of(a, "docker-0123456789ab");

	(void)state;
	/* two timed boots: two lines (untimed has no start row) */
	assert_int_equal(count(out, "\n"), 2);
	assert_string_equal(out, again);
	line2 = strchr(out, '\n') + 1;
	assert_int_equal(critpath_build(a->tl, (size_t)c, PHASE_LISTEN, "listen", &p), 1);
	/* docker-...: root + exec + listen + the path's segments */
	*strchr(out, '\n') = '\0';
	assert_int_equal(count(out, "\"spanId\""), 3 + p.nsegs);
	assert_int_equal(count(out, "\"parentSpanId\""), 2 + p.nsegs);
	critpath_release(&p);
	/* web#2 reached exec only: root + exec, no path to listen */
	assert_int_equal(count(line2, "\"spanId\""), 2);
	/* start -> exec, 1100 - 1000 ns, in UNIX ns by the file's offset */
	assert_non_null(strstr(out, "\"name\":\"start -> exec\",\"kind\":1,"
				    "\"startTimeUnixNano\":\"1000000001000\","
				    "\"endTimeUnixNano\":\"1000000001100\""));
	assert_int_equal(sscanf(strstr(out, "\"traceId\":\"") + 11, "%32[0-9a-f]", tid1), 1);
	assert_int_equal(sscanf(strstr(line2, "\"traceId\":\"") + 11, "%32[0-9a-f]", tid2), 1);
	assert_int_equal(strlen(tid1), 32);
	assert_string_not_equal(tid1, tid2);
	free(out);
	free(again);
	analysis__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_resource),
		cmocka_unit_test(test_export),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
