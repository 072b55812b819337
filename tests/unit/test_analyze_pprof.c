// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: analyze/out/pprof.c, --format pprof, on a synthetic trace with
 * a known truth: 10 samples of one stack (1 ms each) and a 100 ms blocked
 * interval with its off-CPU stack. The file gunzips to a protocol buffer
 * whose fields are profile.proto's: two sample types (cpu, offcpu, in
 * nanoseconds), two samples (10 ms of cpu, 100 ms of offcpu), each with
 * its container and comm labels, every location id a function's, the
 * string table starting with "".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <zlib.h>

#include "analyze/boot/profile.h"
#include "analyze/out/pprof.h"
#include "tests/unit/critpath_fixture.h"

#define HEAD_SCHED "# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n" TSV_HEADER "\n"
#define SAMPLE(ts) R(ts, "10", "10", "1", "app", "sample", "1", "\\N", "1000000", "cpu=0")

static const char trace[] = HEAD_SCHED
	START("1000000", "10")
	R("2000000", "10", "10", "1", "app", "stack", "1", "\\N", "\\N", "k:do_page_fault+0x1 j:4:busy j:4:main")
	SAMPLE("2000000") SAMPLE("3000000") SAMPLE("4000000") SAMPLE("5000000") SAMPLE("6000000")
	SAMPLE("7000000") SAMPLE("8000000") SAMPLE("9000000") SAMPLE("10000000") SAMPLE("11000000")
	SYS("12000000", "10", "10", "app", "nanosleep", "0", "100100000", "\\N")
	R("12010000", "10", "10", "1", "app", "stack", "2", "\\N", "\\N",
	  "k:__schedule+0x1 k:do_nanosleep+0x2 j:4:nap_ j:4:main")
	R("12010000", "10", "10", "1", "app", "sched", "S", "50000", "100050000",
	  "wake=softirq cpu=0 stack=2")
	SYS("124000000", "10", "10", "app", "listen", "0", "20000", "0.0.0.0:80")
	TAIL;

/* A protocol buffer's field: its number, wire type, varint or bytes. */
struct field {
	unsigned num, wire;
	uint64_t v;
	const uint8_t *p;
	size_t n;
};

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	int s = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
		s += 7;
		assert_true(s < 64);
	}
	fail_msg("a varint past the end");
	return 0;
}

/* The next field of [*p, end) into @f: 1, or 0 at the end. */
static int next(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t key;

	if (*p >= end)
		return 0;
	key = varint(p, end);
	f->num = (unsigned)(key >> 3);
	f->wire = (unsigned)(key & 7);
	if (f->wire == 0) {
		f->v = varint(p, end);
	} else {
		assert_int_equal(f->wire, 2);
		f->n = (size_t)varint(p, end);
		assert_true(f->n <= (size_t)(end - *p));
		f->p = *p;
		*p += f->n;
	}
	return 1;
}

static void test_pprof(void **state)
{
	struct profile_opts po = { .no_system = true };
	struct analysis *a = load_tsv(trace);
	struct profile *cpu, *off;
	char *buf = NULL, *strs[64];
	size_t len = 0, nstr = 0, nsamples = 0, nfn = 0;
	uint64_t cpu_ns = 0, off_ns = 0, types[2][2];
	size_t ntypes = 0;
	uint8_t out[1 << 16];
	z_stream z = { 0 };
	const uint8_t *p, *end;
	struct field f, g;
	FILE *m;
	long ph;

	(void)state;
	ph = strtab_find(a->phase_names, "listen", 6);
	cpu = profile__new(a->tl, (uint32_t)ph, &po);
	po.offcpu = true;
	off = profile__new(a->tl, (uint32_t)ph, &po);
	assert_non_null(cpu);
	assert_non_null(off);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(pprof_write(m, cpu, off), 0);
	fclose(m);
	/* gzip */
	assert_true(len > 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = sizeof(out);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	end = out + z.total_out;
	inflateEnd(&z);
	/* the string table first: the other fields index it */
	for (p = out; next(&p, end, &f);)
		if (f.num == 6) {
			assert_true(nstr < 64);
			strs[nstr++] = strndup((const char *)f.p, f.n);
		}
	assert_true(nstr > 0);
	assert_string_equal(strs[0], "");
	for (p = out; next(&p, end, &f);) {
		const uint8_t *q = f.p, *qe = f.p + f.n;
		uint64_t v[2] = { 0, 0 }, locs = 0;
		size_t nv = 0, labels = 0;

		if (f.num == 1) {	/* sample_type */
			assert_true(ntypes < 2);
			while (next(&q, qe, &g))
				types[ntypes][g.num - 1] = g.v;
			ntypes++;
		} else if (f.num == 2) {	/* sample */
			while (next(&q, qe, &g)) {
				if (g.num == 1)
					locs++;
				else if (g.num == 2 && nv < 2)
					v[nv++] = g.v;
				else if (g.num == 3)
					labels++;
			}
			assert_int_equal(nv, 2);
			assert_true(locs >= 3);
			assert_int_equal(labels, 2);	/* container, comm: no span */
			cpu_ns += v[0];
			off_ns += v[1];
			nsamples++;
		} else if (f.num == 5) {	/* function */
			nfn++;
		}
	}
	assert_int_equal(ntypes, 2);
	assert_string_equal(strs[types[0][0]], "cpu");
	assert_string_equal(strs[types[0][1]], "nanoseconds");
	assert_string_equal(strs[types[1][0]], "offcpu");
	assert_string_equal(strs[types[1][1]], "nanoseconds");
	assert_int_equal(nsamples, 2);
	assert_int_equal(cpu_ns, 10000000);
	assert_int_equal(off_ns, 100000000);
	/* do_page_fault busy main __schedule do_nanosleep nap_ */
	assert_int_equal(nfn, 6);
	while (nstr)
		free(strs[--nstr]);
	free(buf);
	profile__free(cpu);
	profile__free(off);
	analysis__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof),
	};

	return cmocka_run_group_tests_name("analyze_pprof", tests, NULL, NULL);
}
