// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: --profile's user-space side. collector/profile/ksyms.c on a kallsyms
 * text (types kept and dropped, an address between symbols, before the
 * first); collector/profile/umaps.c's parsers and its look-ups in a /proc made in
 * a temporary directory (a file mapping, [vdso], an anonymous mapping
 * named by a perf map at the pid the process has in its namespace, a
 * perf map that grows, an address in nothing, a process that is gone;
 * re-reads after misses that keep the heap the same size);
 * collector/profile/stacks.c's ids (the same frames, the same id; a new file
 * starts again from 1); collector/profile/frames.c's text of a sample record;
 * collector/profile/interp.c's names from the sampling program's records
 * (BT_EV_INAME: parts cut at their length and at a NUL, lengths past the
 * buffer, a part not read; records of a process not registered counted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/profile/frames.h"
#include "collector/profile/interp.h"
#include "collector/profile/ksyms.h"
#include "collector/profile/stacks.h"
#include "collector/profile/umaps.h"

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t do_one\n"
	"ffffffff81002000 D some_data\n"
	"ffffffff81003000 W weak_fn\n"
	"ffffffffc0100000 t mod_fn\t[mymod]\n"
	"garbage line\n";

static struct ksyms *load_ksyms(void)
{
	FILE *f = fmemopen((void *)kallsyms, sizeof(kallsyms) - 1, "r");
	struct ksyms *k;

	assert_non_null(f);
	k = ksyms__load(f);
	fclose(f);
	assert_non_null(k);
	return k;
}

static void test_ksyms(void **state)
{
	struct ksyms *k = load_ksyms();
	uint64_t off = 0;

	(void)state;
	assert_int_equal(ksyms_count(k), 4);	/* _stext do_one weak_fn mod_fn */
	assert_string_equal(ksyms_find(k, 0xffffffff81001010ULL, &off), "do_one");
	assert_int_equal(off, 0x10);
	/* data is not a function: the address is in do_one's range, far in */
	assert_string_equal(ksyms_find(k, 0xffffffff81002010ULL, &off), "do_one");
	assert_int_equal(off, 0x1010);
	assert_string_equal(ksyms_find(k, 0xffffffff81003000ULL, &off), "weak_fn");
	assert_int_equal(off, 0);
	assert_string_equal(ksyms_find(k, 0xffffffffc0100004ULL, &off), "mod_fn");
	assert_null(ksyms_find(k, 0xffffffff80000000ULL, &off));
	ksyms__free(k);
}

static void test_parse_maps_line(void **state)
{
	uint64_t s, e, o;
	const char *p;
	size_t n;

	(void)state;
	assert_int_equal(umaps_parse_maps_line("7f0000001000-7f0000003000 r-xp 00002000 fe:01 1234"
					       "                       /usr/lib/a b.so\n",
					       &s, &e, &o, &p, &n), 0);
	assert_int_equal(s, 0x7f0000001000ULL);
	assert_int_equal(e, 0x7f0000003000ULL);
	assert_int_equal(o, 0x2000);
	assert_int_equal(n, strlen("/usr/lib/a b.so"));
	assert_memory_equal(p, "/usr/lib/a b.so", n);
	assert_int_equal(umaps_parse_maps_line("1000-2000 rw-p 00000000 00:00 0 \n", &s, &e, &o, &p, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(umaps_parse_maps_line("1000-2000 rw-p 00000000 00:00 0   [heap]\n",
					       &s, &e, &o, &p, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(umaps_parse_maps_line("1000-2000 r-xp 00000000 00:00 0   [vdso]\n",
					       &s, &e, &o, &p, &n), 0);
	assert_int_equal(n, 6);
	assert_int_equal(umaps_parse_maps_line("2000-1000 r-xp 0 0 0\n", &s, &e, &o, &p, &n), -1);
	assert_int_equal(umaps_parse_maps_line("nonsense", &s, &e, &o, &p, &n), -1);
}

static void test_parse_perfmap_line(void **state)
{
	uint64_t s, z;
	const char *p;
	size_t n;

	(void)state;
	assert_int_equal(umaps_parse_perfmap_line("3a0c1840 1c0 JS:*burnJs /x.js:1:16\n",
						  &s, &z, &p, &n), 0);
	assert_int_equal(s, 0x3a0c1840);
	assert_int_equal(z, 0x1c0);
	assert_int_equal(n, strlen("JS:*burnJs /x.js:1:16"));
	assert_int_equal(umaps_parse_perfmap_line("10 0 empty\n", &s, &z, &p, &n), -1);
	assert_int_equal(umaps_parse_perfmap_line("10 5\n", &s, &z, &p, &n), -1);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A /proc with process 4242, which is pid 7 in its namespace. */
static char *fake_proc(void)
{
	static char dir[] = "/tmp/bt-umaps-XXXXXX";
	char p[256];

	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/4242", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4242/root", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4242/root/tmp", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4242/maps", dir);
	write_file(p, "400000-401000 r-xp 00001000 fe:01 77 /opt/app/server\n"
		      "7f0000000000-7f0000100000 rwxp 00000000 00:00 0 \n"
		      "7fff00000000-7fff00002000 r-xp 00000000 00:00 0 [vdso]\n");
	snprintf(p, sizeof(p), "%s/4242/status", dir);
	write_file(p, "Name:\tnode\nNSpid:\t4242\t7\n");
	snprintf(p, sizeof(p), "%s/4242/root/tmp/perf-7.map", dir);
	write_file(p, "7f0000000100 100 JS:*hot fn\n");
	return dir;
}

static void test_umaps_frame(void **state)
{
	char *dir = fake_proc(), buf[256], p[256];
	struct umaps *u = umaps__new(dir);
	size_t n;

	(void)state;
	assert_non_null(u);
	n = umaps_frame(u, 4242, 0x400010, buf, sizeof(buf));
	assert_string_equal(buf, "f:15:/opt/app/server+0x1010");
	assert_int_equal(n, strlen(buf));
	umaps_frame(u, 4242, 0x7fff00000c01ULL, buf, sizeof(buf));
	assert_string_equal(buf, "f:6:[vdso]+0xc01");
	umaps_frame(u, 4242, 0x7f0000000180ULL, buf, sizeof(buf));
	assert_string_equal(buf, "j:10:JS:*hot fn");
	/* past the perf map's entry: nothing names it, until the map grows */
	umaps_frame(u, 4242, 0x7f0000000300ULL, buf, sizeof(buf));
	assert_string_equal(buf, "u:0x7f0000000300");
	snprintf(p, sizeof(p), "%s/4242/root/tmp/perf-7.map", dir);
	write_file(p, "7f0000000100 100 JS:*hot fn\n7f0000000200 200 JS:~later\n");
	umaps_frame(u, 4242, 0x7f0000000300ULL, buf, sizeof(buf));
	assert_string_equal(buf, "j:9:JS:~later");
	/* in none of a live process's mappings: no frame, the stack ends there */
	assert_int_equal(umaps_frame(u, 4242, 0x900000, buf, sizeof(buf)), 0);
	/* a process that is gone: addresses only */
	umaps_frame(u, 999999, 0x400010, buf, sizeof(buf));
	assert_string_equal(buf, "u:0x400010");
	/* too small a buffer: nothing, never half a frame */
	assert_int_equal(umaps_frame(u, 4242, 0x400010, buf, 10), 0);
	umaps_forget(u, 4242);
	umaps_forget(u, 4242);
	umaps_frame(u, 4242, 0x400010, buf, sizeof(buf));
	assert_string_equal(buf, "f:15:/opt/app/server+0x1010");
	umaps__free(u);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* Many processes in and out: the table stays consistent past its bound. */
static void test_umaps_many(void **state)
{
	struct umaps *u = umaps__new("/nonexistent");
	char buf[64];
	int i;

	(void)state;
	for (i = 1; i < UMAPS_MAX * 3; i++) {
		umaps_frame(u, i, 0x1234, buf, sizeof(buf));
		assert_string_equal(buf, "u:0x1234");
		if (i % 3 == 0)
			umaps_forget(u, i - 1);
	}
	umaps__free(u);
}

/*
 * The bytes malloc has in use, on the heap and in mmap()ed blocks (0
 * where a sanitizer's allocator replaces glibc's).
 */
static size_t heap_used(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/*
 * Re-reads: an address in no mapping re-reads the maps each time, a perf
 * map that grew is read again; the names of the old lists are dropped,
 * not piled up (a long-lived process with such addresses, or a JIT's
 * growing perf map, kept the collector's memory growing with each one).
 */
static void test_umaps_reread(void **state)
{
	char dir[] = "/tmp/bt-umaps-XXXXXX", p[256], path[240], *map;
	struct umaps *u;
	size_t before, at, cap = 1 << 16;
	char buf[512];
	int i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	snprintf(p, sizeof(p), "%s/4343", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4343/root", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4343/root/tmp", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/4343/maps", dir);
	snprintf(buf, sizeof(buf), "400000-401000 r-xp 00000000 fe:01 77 %s\n"
		 "7f0000000000-7f0000100000 rwxp 00000000 00:00 0 \n", path);
	write_file(p, buf);
	/* a perf map of 100 entries of 100-byte names */
	assert_non_null(map = malloc(cap));
	for (i = 0, at = 0; i < 100; i++)
		at += (size_t)snprintf(map + at, cap - at, "%llx 10 JS:%0*d\n",
				       0x7f0000000000ULL + (unsigned)i * 0x10, 97, i);
	snprintf(p, sizeof(p), "%s/4343/root/tmp/perf-4343.map", dir);
	write_file(p, map);

	assert_non_null(u = umaps__new(dir));
	umaps_frame(u, 4343, 0x400010, buf, sizeof(buf));
	umaps_frame(u, 4343, 0x7f0000000005ULL, buf, sizeof(buf));
	assert_string_equal(buf + strlen(buf) - 3, "000");
	before = heap_used();
	for (i = 0; i < 2000; i++) {
		/* in no mapping: the maps read again; still none, no frame (the end) */
		assert_int_equal(umaps_frame(u, 4343, 0x900000, buf, sizeof(buf)), 0);
	}
	for (i = 0; i < 200; i++) {
		/* past the perf map's end, which grows (in place: the same names) */
		at += (size_t)snprintf(map + at, cap - at, "%llx 10 JS:n\n",
				       0x7f0000001000ULL + (unsigned)i * 0x10);
		write_file(p, map);
		umaps_frame(u, 4343, 0x7f0000001005ULL + (unsigned)i * 0x10, buf, sizeof(buf));
		assert_string_equal(buf, "j:4:JS:n");
	}
	/* still right, and the heap the same but for the new entries */
	umaps_frame(u, 4343, 0x400010, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "f:239:/ppp", 10), 0);
	umaps_frame(u, 4343, 0x7f0000000635ULL, buf, sizeof(buf));
	assert_string_equal(buf + strlen(buf) - 3, "099");
	assert_true(heap_used() < before + 64 * 1024);
	umaps__free(u);
	free(map);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

static void test_stacks(void **state)
{
	struct stacks *s = stacks__new();
	int fresh;

	(void)state;
	assert_int_equal(stacks_id(s, "k:a+0x1", 7, &fresh), 1);
	assert_true(fresh);
	assert_int_equal(stacks_id(s, "k:b+0x1", 7, &fresh), 2);
	assert_true(fresh);
	assert_int_equal(stacks_id(s, "k:a+0x1", 7, &fresh), 1);
	assert_false(fresh);
	/* a prefix is another stack */
	assert_int_equal(stacks_id(s, "k:a+0x", 6, &fresh), 3);
	assert_true(fresh);
	assert_int_equal(stacks_id(s, "", 0, &fresh), 4);
	assert_int_equal(stacks_id(s, "", 0, &fresh), 4);
	assert_false(fresh);
	stacks_reset(s);
	assert_int_equal(stacks_id(s, "k:b+0x1", 7, &fresh), 1);
	assert_true(fresh);
	stacks__free(s);
}

/* Past STACKS_MAX stacks the table starts over; the ids go on, unique. */
static void test_stacks_bound(void **state)
{
	struct stacks *s = stacks__new();
	char f[32];
	uint64_t i, id;
	int fresh;

	(void)state;
	for (i = 0; i < STACKS_MAX + 10; i++) {
		snprintf(f, sizeof(f), "u:0x%llx", (unsigned long long)i);
		id = stacks_id(s, f, strlen(f), &fresh);
		assert_int_equal(id, i + 1);
		assert_true(fresh);
	}
	/* the first one was forgotten: a new id, written again */
	id = stacks_id(s, "u:0x0", 5, &fresh);
	assert_true(fresh);
	assert_int_equal(id, STACKS_MAX + 11);
	stacks__free(s);
}

static void test_frames(void **state)
{
	struct ksyms *k = load_ksyms();
	struct umaps *u = umaps__new("/nonexistent");
	struct bt_sample_event *e = calloc(1, sizeof(*e));
	char buf[1024];
	size_t n;

	(void)state;
	e->hdr.pid = 4242;
	e->kstack[0] = 0xffffffff81001010ULL;
	e->kstack[1] = 0xffffffff81003008ULL;
	e->kstack[2] = 0xffffffff00000000ULL;	/* below every symbol */
	e->kstack_bytes = 3 * 8;
	e->ustack[0].status = BT_STACK_BUILD_ID_VALID;
	memset(e->ustack[0].build_id, 0xab, BT_BUILD_ID_SIZE);
	e->ustack[0].build_id[19] = 0x01;
	e->ustack[0].offset = 0x1199;
	e->ustack[1].status = BT_STACK_BUILD_ID_IP;
	e->ustack[1].ip = 0x5000;
	e->ustack[2].status = BT_STACK_BUILD_ID_EMPTY;	/* the end */
	e->ustack[3].status = BT_STACK_BUILD_ID_IP;
	e->ustack[3].ip = 0x6000;
	e->ustack_bytes = 4 * 32;
	n = frames_format(k, u, NULL, e, buf, sizeof(buf));
	assert_string_equal(buf, "k:do_one+0x10 k:weak_fn+0x8 k:0xffffffff00000000 "
			    "b:" "ababababababababababababababababababab" "01+0x1199 u:0x5000");
	assert_int_equal(n, strlen(buf));
	/* a buffer that holds the first two frames only: those */
	n = frames_format(k, u, NULL, e, buf, 30);
	assert_string_equal(buf, "k:do_one+0x10 k:weak_fn+0x8");
	/* an error from bpf_get_stack: no frames of that kind */
	e->kstack_bytes = -14;
	e->ustack_bytes = -14;
	assert_int_equal(frames_format(k, u, NULL, e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* without kallsyms: addresses */
	e->kstack_bytes = 8;
	frames_format(NULL, u, NULL, e, buf, sizeof(buf));
	assert_string_equal(buf, "k:0xffffffff81001010");
	free(e);
	umaps__free(u);
	ksyms__free(k);
}

static void test_iname(void **state)
{
	struct bt_iname_event *e = calloc(1, sizeof(*e));
	struct interp *in = interp__new(NULL);
	unsigned long long all, part;
	char *s;

	(void)state;
	assert_non_null(in);
	e->hdr.type = BT_EV_INAME;
	e->hdr.pid = 4242;
	e->kind = BT_INTERP_RUBY31;
	e->code = 0x7f0012345678ULL;
	e->flags = BT_INAME_LABEL | BT_INAME_FILE;
	e->line = 12;
	memcpy(e->label, "build_tableXX", 13);	/* bytes past its length: not its */
	e->label_len = 11;
	memcpy(e->file, "/app/slow\t.rb", 14);
	e->file_len = 14;
	s = interp_iname_name(e);
	assert_string_equal(s, "build_table (/app/slow\t.rb:12)");
	free(s);
	/* a NUL inside ends the part; a length past the buffer is cut to it */
	e->label[5] = '\0';
	memset(e->file, 'a', sizeof(e->file));
	e->file_len = 60000;
	e->line = -1;
	s = interp_iname_name(e);
	assert_non_null(s);
	assert_int_equal(strlen(s), strlen("build (") + BT_INAME_TEXT - 1 + strlen(":-1)"));
	assert_int_equal(strncmp(s, "build (aaa", 10), 0);
	free(s);
	/* a part not read: no name (read from the process's memory then) */
	e->flags = BT_INAME_LABEL;
	assert_null(interp_iname_name(e));
	/* records of a process the collector registered not: counted, kept nowhere */
	interp_iname(in, e);
	e->flags = BT_INAME_LABEL | BT_INAME_FILE;
	interp_iname(in, e);
	interp_iname_counts(in, &all, &part);
	assert_int_equal(all, 2);
	assert_int_equal(part, 1);
	interp_iname_counts(NULL, &all, &part);
	assert_int_equal(all, 0);
	interp__free(in);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms),
		cmocka_unit_test(test_parse_maps_line),
		cmocka_unit_test(test_parse_perfmap_line),
		cmocka_unit_test(test_umaps_frame),
		cmocka_unit_test(test_umaps_many),
		cmocka_unit_test(test_umaps_reread),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_stacks_bound),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_iname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
