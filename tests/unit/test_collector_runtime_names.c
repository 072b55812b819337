// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/json.c on the runtimes' state files and on hostile
 * text; collector/run/runtime_names.c's names from cgroup paths, and from
 * an OCI bundle (with Docker's state beside it) found by a process's
 * working directory; common/meta.c's detail both ways.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/json.h"
#include "collector/run/runtime_names.h"
#include "common/meta.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char *str_of(const char *doc, const char *key, char *buf, size_t n)
{
	const char *v = json_member(doc, doc + strlen(doc), key);

	if (!v || json_string(v, doc + strlen(doc), buf, n) < 0)
		return NULL;
	return buf;
}

static void test_json(void **state)
{
	static const char doc[] =
		" {\"a\": [1, {\"x\": \"y\"}, null], \"b\\u0041\": true,\n"
		"  \"s\": \"t\\tq\\\"\\u00e9\\ud83d\\ude00\\ud800x\", \"n\": {\"m\": \"deep\"}} ";
	const char *end = doc + strlen(doc), *it = NULL, *a, *e;
	char buf[64];
	int n = 0;

	(void)state;
	assert_string_equal(str_of(doc, "s", buf, sizeof(buf)),
			    "t\tq\"\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
	assert_null(str_of(doc, "bA", buf, sizeof(buf)));	/* true is no string */
	assert_non_null(json_member(doc, end, "bA"));		/* the key decoded */
	assert_string_equal(str_of(json_member(doc, end, "n"), "m", buf, sizeof(buf)), "deep");
	assert_null(json_member(doc, end, "zz"));
	a = json_member(doc, end, "a");
	while ((e = json_next(a, end, &it)))
		n++;
	assert_int_equal(n, 3);
	/* truncated: the decoded length, the bytes that fit */
	assert_int_equal(json_string("\"abcdef\"", "\"abcdef\"" + 8, buf, 4), 6);
	assert_string_equal(buf, "abc");
}

/* Hostile text: cut anywhere, nested deep, bad escapes: NULL or -1, never a crash. */
static void test_json_hostile(void **state)
{
	static const char doc[] = "{\"annotations\": {\"k\": \"v\\u12\"}, \"x\": [[[\"\\";
	char deep[300], buf[16];
	size_t cut, i;

	(void)state;
	for (cut = 0; cut <= sizeof(doc) - 1; cut++) {
		const char *v = json_member(doc, doc + cut, "annotations");

		if (v)
			(void)json_string(json_member(v, doc + cut, "k"), doc + cut, buf, sizeof(buf));
		assert_null(json_skip(doc, doc + cut));
	}
	for (i = 0; i < sizeof(deep) - 1; i++)
		deep[i] = '[';
	deep[i] = '\0';
	assert_null(json_skip(deep, deep + i));
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	assert_null(json_skip(deep, deep + 200));	/* deeper than 64 */
	assert_int_equal(json_string("\"a\\qb\"", "\"a\\qb\"" + 6, buf, sizeof(buf)), -1);
	assert_null(json_member("[\"a\"]", "[\"a\"]" + 5, "a"));
}

static void test_from_path(void **state)
{
	struct runtime_names rn;

	(void)state;
	assert_int_equal(runtime_names_from_path("/kubepods.slice/kubepods-besteffort.slice/"
		"kubepods-besteffort-pod1_2_3.slice/crio-" ID64 ".scope", &rn), 1);
	assert_string_equal(rn.val[META_RUNTIME], "crio");
	assert_string_equal(rn.val[META_ID], ID64);
	assert_string_equal(rn.val[META_POD_UID], "1-2-3");
	assert_string_equal(rn.val[META_QOS], "besteffort");
	assert_string_equal(rn.source, "cgroup");
	assert_null(rn.m.v[META_POD].s);
	assert_int_equal(runtime_names_from_path("/docker/" ID64, &rn), 1);
	assert_string_equal(rn.val[META_RUNTIME], "docker");
	assert_null(rn.m.v[META_POD_UID].s);
	assert_int_equal(runtime_names_from_path("/system.slice/nginx.service", &rn), 0);
	assert_int_equal(runtime_names_from_path("/kubepods.slice/kubepods-pod1.slice/crio-conmon-"
						 ID64 ".scope", &rn), 0);
	assert_int_equal(runtime_names_from_path("/kubepods/burstable", &rn), 0);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A bundle found by this process's working directory: its annotations
 * when its cgroupsPath is the container's, with Docker's state beside its
 * /etc/hostname; a bundle of another container is not taken.
 */
static void test_from_bundle(void **state)
{
	char dir[] = "/tmp/bt-rn.XXXXXX", path[256], cwd[4096], doc[2048];
	struct runtime_names rn;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(path, sizeof(path), "%s/containers", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/containers/" ID64, dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/containers/" ID64 "/config.v2.json", dir);
	put_file(path, "{\"Config\": {\"Image\": \"busy\\tbox:1\"}, \"Name\": \"/web\"}");
	snprintf(doc, sizeof(doc),
		 "{\"mounts\": [{\"destination\": \"/proc\"}, {\"destination\": \"/etc/hostname\", "
		 "\"source\": \"%s/containers/" ID64 "/hostname\"}], \"annotations\": "
		 "{\"io.kubernetes.cri.sandbox-name\": \"web-0\", \"io.kubernetes.cri.container-type\": "
		 "\"sandbox\"}, \"linux\": {\"cgroupsPath\": \"kubepods-besteffort-pod1.slice:"
		 "cri-containerd:" ID64 "\"}}", dir);
	snprintf(path, sizeof(path), "%s/config.json", dir);
	put_file(path, doc);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(runtime_names_from_path("/kubepods.slice/kubepods-besteffort.slice/"
		"kubepods-besteffort-pod1.slice/cri-containerd-" ID64 ".scope", &rn), 1);
	assert_int_equal(runtime_names_from_bundle(&rn, getpid()), 1);
	assert_string_equal(rn.source, "docker");
	assert_string_equal(rn.val[META_POD], "web-0");
	assert_string_equal(rn.val[META_TYPE], "sandbox");
	assert_string_equal(rn.val[META_NAME], "web");
	assert_string_equal(rn.val[META_IMAGE], "busy\tbox:1");
	/* CRI-O's annotations, its cgroupfs path */
	snprintf(doc, sizeof(doc),
		 "{\"annotations\": {\"io.kubernetes.pod.name\": \"db-0\", "
		 "\"io.kubernetes.pod.namespace\": \"data\", \"io.kubernetes.container.name\": "
		 "\"pg\", \"io.kubernetes.cri-o.ImageName\": \"pg:16\", "
		 "\"io.kubernetes.cri-o.ContainerType\": \"container\"}, "
		 "\"linux\": {\"cgroupsPath\": \"/kubepods/burstable/pod1/crio-" ID64 "\"}}");
	put_file("config.json", doc);
	assert_int_equal(runtime_names_from_path("/kubepods/burstable/pod1/crio-" ID64, &rn), 1);
	assert_int_equal(runtime_names_from_bundle(&rn, getpid()), 1);
	assert_string_equal(rn.source, "oci");
	assert_string_equal(rn.val[META_RUNTIME], "crio");
	assert_string_equal(rn.val[META_POD], "db-0");
	assert_string_equal(rn.val[META_NAMESPACE], "data");
	assert_string_equal(rn.val[META_CONTAINER], "pg");
	assert_string_equal(rn.val[META_IMAGE], "pg:16");
	assert_string_equal(rn.val[META_TYPE], "container");
	/* another container's bundle */
	assert_int_equal(runtime_names_from_path("/kubepods/pod1/" "f" ID64 + 1, &rn), 1);
	assert_int_equal(runtime_names_from_bundle(&rn, getpid()), 0);
	assert_int_equal(chdir(cwd), 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

static void test_meta_detail(void **state)
{
	struct meta m = { 0 }, back;
	char out[256];
	size_t n;

	(void)state;
	m.v[META_POD].s = "a b=c:d";
	m.v[META_POD].n = 7;
	m.v[META_IMAGE].s = "x\0y";
	m.v[META_IMAGE].n = 3;
	n = meta_format(&m, out, sizeof(out));
	assert_int_equal(n, strlen("image=3:x") + 2 + strlen(" pod=7:a b=c:d"));
	assert_memory_equal(out, "image=3:x\0y pod=7:a b=c:d", n);
	assert_int_equal(meta_parse(out, n, &back), 0);
	assert_int_equal(back.v[META_POD].n, 7);
	assert_memory_equal(back.v[META_IMAGE].s, "x\0y", 3);
	assert_false(meta_is_sandbox(&back));
	/* unknown keys skipped; twice, a word value, a short string: malformed */
	assert_int_equal(meta_parse("later=2:ok type=7:sandbox", 25, &back), 0);
	assert_true(meta_is_sandbox(&back));
	assert_int_equal(meta_parse("pod=1:a pod=1:b", 15, &back), -1);
	assert_int_equal(meta_parse("pod=word", 8, &back), -1);
	assert_int_equal(meta_parse("pod=9:a", 7, &back), -1);
	assert_int_equal(meta_format(&m, out, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_hostile),
		cmocka_unit_test(test_from_path),
		cmocka_unit_test(test_from_bundle),
		cmocka_unit_test(test_meta_detail),
	};

	return cmocka_run_group_tests_name("collector_runtime_names", tests, NULL, NULL);
}
