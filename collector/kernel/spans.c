// SPDX-License-Identifier: BSD-2-Clause
/*
 * --spans: the interpreters' USDT probes, attached per file. See spans.h.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/boottrace.h"	/* the types in the skeleton, BT_SPAN_* */
#include "boottrace.skel.h"
#include "collector/kernel/elf.h"
#include "collector/kernel/spans.h"
#include "collector/keyset.h"

/* The probes, and what each means (docs/tsv-format.md, Span rows). */
static const struct span_probe {
	const char *provider, *name;
	unsigned char kind, phase, args;
} probes[] = {
	{ "ruby", "require__entry", BT_SPAN_REQUIRE, BT_SPAN_ENTER, BT_SPAN_ARGS_STR_CALLER },
	{ "ruby", "require__return", BT_SPAN_REQUIRE, BT_SPAN_RETURN, BT_SPAN_ARGS_STR },
	{ "ruby", "load__entry", BT_SPAN_LOAD, BT_SPAN_ENTER, BT_SPAN_ARGS_STR_CALLER },
	{ "ruby", "load__return", BT_SPAN_LOAD, BT_SPAN_RETURN, BT_SPAN_ARGS_STR },
	{ "python", "import__find__load__start", BT_SPAN_IMPORT, BT_SPAN_ENTER, BT_SPAN_ARGS_STR },
	{ "python", "import__find__load__done", BT_SPAN_IMPORT, BT_SPAN_RETURN, BT_SPAN_ARGS_STR },
	{ "hotspot", "class__loaded", BT_SPAN_CLASS, BT_SPAN_POINT, BT_SPAN_ARGS_PTRLEN },
	{ "hotspot", "class__initialization__clinit", BT_SPAN_CLINIT, BT_SPAN_ENTER,
	  BT_SPAN_ARGS_PTRLEN },
	/* HotSpot fires error, then end, for an initializer that threw */
	{ "hotspot", "class__initialization__error", BT_SPAN_CLINIT, BT_SPAN_ERROR,
	  BT_SPAN_ARGS_PTRLEN },
	{ "hotspot", "class__initialization__end", BT_SPAN_CLINIT, BT_SPAN_RETURN,
	  BT_SPAN_ARGS_PTRLEN },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

/* The host's interpreters, as Debian and the official images install them. */
static const char *const host_globs[] = {
	"/usr/bin/python3*", "/usr/local/bin/python3*",
	"/usr/lib/x86_64-linux-gnu/libpython3*.so*", "/usr/local/lib/libpython3*.so*",
	"/usr/lib/x86_64-linux-gnu/libruby*.so*", "/usr/local/lib/libruby*.so*",
	"/usr/lib/jvm/*/lib/server/libjvm.so", "/opt/java/*/lib/server/libjvm.so",
};

/* Where a DT_NEEDED libruby or libpython is looked for, under the process's root. */
static const char *const lib_dirs[] = {
	"/usr/local/lib", "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib", "/lib",
};

struct spans {
	struct boottrace_bpf *skel;
	bool verbose;
	struct keyset seen;	/* files looked at: dev << 32 ^ ino hashed, below */
	struct bpf_link **links;
	size_t nlinks, cap, files;
};

struct spans *spans__new(struct boottrace_bpf *skel, bool verbose)
{
	struct spans *s = calloc(1, sizeof(*s));

	if (s) {
		s->skel = skel;
		s->verbose = verbose;
	}
	return s;
}

void spans__free(struct spans *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	keyset_free(&s->seen);
	free(s);
}

size_t spans_files(const struct spans *s)
{
	return s ? s->files : 0;
}

/* The key of a file: its device and inode (never 0: keysets take no 0). */
static __u64 file_key(const struct stat *st)
{
	return ((__u64)st->st_dev << 40 ^ (__u64)st->st_ino) | 1ULL << 63;
}

static int add_link(struct spans *s, struct bpf_link *l)
{
	struct bpf_link **v;

	if (s->nlinks == s->cap) {
		v = realloc(s->links, (s->cap ? s->cap * 2 : 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->links = v;
		s->cap = s->cap ? s->cap * 2 : 16;
	}
	s->links[s->nlinks++] = l;
	return 0;
}

/*
 * The probes of ours that @path has, attached for every process; the file
 * is looked at once (by inode) whatever it holds.
 */
static void attach_file(struct spans *s, const char *path)
{
	struct usdt_probe *v = NULL;
	struct stat st;
	size_t n = 0, i, j, got = 0;
	__u64 key;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	key = file_key(&st);
	if (keyset_has(&s->seen, key) || keyset_add(&s->seen, key) < 0)
		return;
	if (elf_usdt_list(path, &v, &n) < 0)
		return;
	for (j = 0; j < NPROBES; j++) {
		const struct span_probe *p = &probes[j];
		struct bpf_link *l;

		for (i = 0; i < n; i++)
			if (!strcmp(v[i].provider, p->provider) && !strcmp(v[i].name, p->name))
				break;
		if (i == n)
			continue;
		{
			LIBBPF_OPTS(bpf_usdt_opts, o,
				    .usdt_cookie = BT_SPAN_COOKIE(p->kind, p->phase, p->args));

			l = bpf_program__attach_usdt(s->skel->progs.bt_span, -1, path, p->provider,
						     p->name, &o);
		}
		if (!l) {
			fprintf(stderr, "collector: --spans: cannot attach usdt:%s:%s:%s: %s\n", path,
				p->provider, p->name, strerror(errno));
			continue;
		}
		if (add_link(s, l) < 0) {
			bpf_link__destroy(l);
			break;
		}
		got++;
	}
	free(v);
	if (got) {
		s->files++;
		if (s->verbose)
			fprintf(stderr, "collector: --spans: %zu probes in %s\n", got, path);
	}
}

size_t spans_attach_host(struct spans *s)
{
	size_t i, j, before = s->files;
	glob_t g;

	for (i = 0; i < sizeof(host_globs) / sizeof(host_globs[0]); i++) {
		if (glob(host_globs[i], 0, NULL, &g) != 0)
			continue;
		for (j = 0; j < g.gl_pathc; j++)
			attach_file(s, g.gl_pathv[j]);
		globfree(&g);
	}
	return s->files - before;
}

struct exec_ctx {
	struct spans *s;
	const char *root;	/* /proc/PID/root */
};

/* A DT_NEEDED name: libruby and libpython, looked for in the image's library dirs. */
static int needed_lib(const char *lib, void *arg)
{
	struct exec_ctx *x = arg;
	char path[PATH_MAX];
	size_t i;

	if (strncmp(lib, "libruby", 7) && strncmp(lib, "libpython", 9))
		return 0;
	for (i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s%s/%s", x->root, lib_dirs[i], lib) >=
		    sizeof(path) || access(path, R_OK) < 0)
			continue;
		attach_file(x->s, path);
		break;
	}
	return 0;
}

/* Interpreter files already in the process's maps (a library dlopen'd before we looked). */
static void attach_maps(struct spans *s, pid_t pid, const char *root)
{
	char path[64], line[PATH_MAX + 128], file[PATH_MAX + 64];
	const char *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (!p || (!strstr(p, "/libruby") && !strstr(p, "/libpython") &&
			   !strstr(p, "/libjvm.so")))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if ((size_t)snprintf(file, sizeof(file), "%s%s", root, p) < sizeof(file))
			attach_file(s, file);
	}
	fclose(f);
}

/* Whether @path is the file @want (its device and inode). */
static bool same_file(const char *path, const struct stat *want)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

void spans_on_exec(struct spans *s, pid_t pid)
{
	char root[64], exe[PATH_MAX], bin[PATH_MAX + 64], jvm[PATH_MAX + 96], *slash;
	struct exec_ctx x = { s, root };
	const char *base = root;
	struct stat st;
	ssize_t n;

	if (!s)
		return;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(bin, sizeof(bin), "/proc/%d/exe", (int)pid);
	n = readlink(bin, exe, sizeof(exe) - 1);
	if (n <= 0 || exe[0] != '/' || stat(bin, &st) < 0)
		return;
	exe[n] = '\0';
	/*
	 * The binary itself, once: a shell run a thousand times is looked at
	 * once, its maps too (at the exec they hold little more than the
	 * binary; a library the process dlopen'd before the collector read the
	 * exec row is there).
	 */
	if (keyset_has(&s->seen, file_key(&st)))
		return;
	/*
	 * Its path: the kernel writes it (and the maps' paths) from the
	 * process's mount namespace root when that is not ours (a container:
	 * under /proc/PID/root), from ours when it is (a chroot in our
	 * namespace: the path as we see it). The one that is that file.
	 */
	if ((size_t)snprintf(bin, sizeof(bin), "%s%s", root, exe) >= sizeof(bin))
		return;
	if (!same_file(bin, &st)) {
		if (!same_file(exe, &st))
			return;
		base = "";
		snprintf(bin, sizeof(bin), "%s", exe);
	}
	attach_file(s, bin);
	elf_needed(bin, needed_lib, &x);	/* the loader finds them under its root */
	/* java: libjvm.so is dlopen'd from ../lib/server beside bin/java */
	slash = strrchr(exe, '/');
	if (slash && !strcmp(slash, "/java")) {
		*slash = '\0';
		if ((size_t)snprintf(jvm, sizeof(jvm), "%s%s/../lib/server/libjvm.so", base, exe) <
		    sizeof(jvm))
			attach_file(s, jvm);
	}
	attach_maps(s, pid, base);
}
