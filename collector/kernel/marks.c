// SPDX-License-Identifier: BSD-2-Clause
/*
 * --mark and --start: parse the specs, find the binaries, check symbols and
 * USDT notes (elf.c: so that a typo or a stripped binary is a clear
 * message before anything is loaded), attach the BPF programs of
 * bpf/marks.bpf.h once per spec with the spec's index as the cookie, or
 * those of bpf/marks_legacy.bpf.h (the 4.15 object: copy i for spec i) on
 * uprobe events at the file offsets found here.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/boottrace.h"	/* the types in the skeleton */
#include "bpf/boottrace_legacy.h"	/* BT_LEGACY_MAX_MARKS */
#include "boottrace.skel.h"
#include "collector/kernel/backend.h"
#include "collector/kernel/elf.h"
#include "collector/kernel/marks.h"

#define UPROBE_SYSFS "/sys/bus/event_source/devices/uprobe"
/* bpf/marks.bpf.h: bit 32 of the cookie marks a --start probe. */
#define MARK_COOKIE_START (1ULL << 32)

struct marks {
	struct mark *v;
	size_t n;
	struct bpf_link **links;	/* one per mark once attached */
};

struct marks *marks__new(void)
{
	return calloc(1, sizeof(struct marks));
}

static void mark_free(struct mark *k)
{
	free(k->binary);
	free(k->symbol);
	free(k->provider);
	free(k->name);
	free(k->label);
	free(k->path);
	free(k->spec);
}

void marks__free(struct marks *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		if (m->links)
			bpf_link__destroy(m->links[i]);
		mark_free(&m->v[i]);
	}
	free(m->links);
	free(m->v);
	free(m);
}

size_t marks_count(const struct marks *m)
{
	return m ? m->n : 0;
}

const struct mark *marks_get(const struct marks *m, size_t i)
{
	return m && i < m->n ? &m->v[i] : NULL;
}

bool marks_have_start(const struct marks *m)
{
	size_t i;

	for (i = 0; i < marks_count(m); i++)
		if (m->v[i].start)
			return true;
	return false;
}

const char *marks_start_spec(const struct marks *m)
{
	size_t i;

	for (i = 0; i < marks_count(m); i++)
		if (m->v[i].start)
			return m->v[i].spec ? m->v[i].spec : "";
	return "";
}

const struct mark *marks_find_label(const struct marks *m, const char *label)
{
	size_t i;

	for (i = 0; i < marks_count(m); i++)
		if (!m->v[i].start && strcmp(m->v[i].label, label) == 0)
			return &m->v[i];
	return NULL;
}

/* --- parsing ----------------------------------------------------------------- */

/*
 * Labels become the `name` of TSV rows and the analyzer's phase names, and
 * --until mark:LABEL+DURATION splits at '+': a conservative alphabet.
 */
static bool label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

/* A symbol, provider or probe name: no separators, no blanks, not empty. */
static bool word_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s == ':' || *s == '=' || (unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

int marks_add(struct marks *m, const char *spec, bool start, char *err, size_t errlen)
{
	const char *opt = start ? "--start" : "--mark";
	const char *colon = strchr(spec, ':'), *rest, *last, *prev, *eq;
	struct mark k = { 0 }, *v;
	size_t klen;

	if (!colon) {
		snprintf(err, errlen, "%s '%s': expected uprobe:BINARY:SYMBOL, "
			 "uretprobe:BINARY:SYMBOL or usdt:BINARY:PROVIDER:NAME", opt, spec);
		return -1;
	}
	klen = (size_t)(colon - spec);
	if (klen == 6 && !strncmp(spec, "uprobe", 6)) {
		k.kind = MARK_UPROBE;
	} else if (klen == 9 && !strncmp(spec, "uretprobe", 9)) {
		k.kind = MARK_URETPROBE;
	} else if (klen == 4 && !strncmp(spec, "usdt", 4)) {
		k.kind = MARK_USDT;
	} else {
		snprintf(err, errlen, "%s '%s': unknown probe kind '%.*s' (uprobe, uretprobe or usdt)",
			 opt, spec, (int)klen, spec);
		return -1;
	}
	rest = colon + 1;
	/* =LABEL after the last field; a path may hold '=' or ':', names may not */
	last = strrchr(rest, ':');
	if (!last) {
		snprintf(err, errlen, "%s '%s': expected %.*s:BINARY:%s", opt, spec, (int)klen, spec,
			 k.kind == MARK_USDT ? "PROVIDER:NAME" : "SYMBOL");
		return -1;
	}
	eq = strchr(last, '=');
	if (k.kind == MARK_USDT) {
		for (prev = last; prev > rest && prev[-1] != ':'; prev--)
			;
		if (prev == rest) {
			snprintf(err, errlen, "%s '%s': expected usdt:BINARY:PROVIDER:NAME", opt, spec);
			return -1;
		}
		prev--;	/* the ':' before PROVIDER */
		k.binary = dupn(rest, (size_t)(prev - rest));
		k.provider = dupn(prev + 1, (size_t)(last - prev - 1));
		k.name = eq ? dupn(last + 1, (size_t)(eq - last - 1)) : strdup(last + 1);
	} else {
		k.binary = dupn(rest, (size_t)(last - rest));
		k.symbol = eq ? dupn(last + 1, (size_t)(eq - last - 1)) : strdup(last + 1);
	}
	if (eq)
		k.label = strdup(eq + 1);
	else
		k.label = strdup(k.kind == MARK_USDT ? (k.name ? k.name : "") :
						      (k.symbol ? k.symbol : ""));
	if (!k.binary || !k.label || (k.kind == MARK_USDT ? !k.provider || !k.name : !k.symbol)) {
		snprintf(err, errlen, "%s: out of memory", opt);
		goto fail;
	}
	if (!*k.binary) {
		snprintf(err, errlen, "%s '%s': no BINARY", opt, spec);
		goto fail;
	}
	if (k.kind == MARK_USDT && (!word_ok(k.provider) || !word_ok(k.name))) {
		snprintf(err, errlen, "%s '%s': PROVIDER and NAME must be non-empty names", opt, spec);
		goto fail;
	}
	if (k.kind != MARK_USDT && !word_ok(k.symbol)) {
		snprintf(err, errlen, "%s '%s': SYMBOL must be a non-empty name", opt, spec);
		goto fail;
	}
	if (!label_ok(k.label)) {
		snprintf(err, errlen, "%s '%s': the label '%s' must be letters, digits, '_', '.' or '-'",
			 opt, spec, k.label);
		goto fail;
	}
	if (m->n >= UINT32_MAX) {
		snprintf(err, errlen, "%s: too many", opt);
		goto fail;
	}
	v = realloc(m->v, (m->n + 1) * sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "%s: out of memory", opt);
		goto fail;
	}
	k.start = start;
	m->v = v;
	m->v[m->n++] = k;
	return 0;
fail:
	mark_free(&k);
	return -1;
}

/* --- resolving ---------------------------------------------------------------- */

static const char *kind_name(enum mark_kind k)
{
	return k == MARK_UPROBE ? "uprobe" : k == MARK_URETPROBE ? "uretprobe" : "usdt";
}

/* What a spec as given looks like in messages: "--mark uprobe:nginx:foo". */
static void spec_as_given(const struct mark *k, char *out, size_t n)
{
	if (k->kind == MARK_USDT)
		snprintf(out, n, "%s usdt:%s:%s:%s", k->start ? "--start" : "--mark", k->binary,
			 k->provider, k->name);
	else
		snprintf(out, n, "%s %s:%s:%s", k->start ? "--start" : "--mark", kind_name(k->kind),
			 k->binary, k->symbol);
}

static int check_usdt(const struct mark *k, const char *given, char *err, size_t errlen)
{
	struct usdt_probe *v = NULL;
	size_t n = 0, i, len;
	int r = elf_usdt_list(k->path, &v, &n);

	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read %s as an ELF file: %s", given, k->path,
			 strerror(-r));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].provider, k->provider) && !strcmp(v[i].name, k->name)) {
			free(v);
			return 0;
		}
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: %s has no USDT probes (no .note.stapsdt notes)", given,
			 k->path);
	} else {
		len = (size_t)snprintf(err, errlen, "%s: no USDT probe %s:%s in %s; it has:", given,
				       k->provider, k->name, k->path);
		for (i = 0; i < n && len < errlen; i++)
			len += (size_t)snprintf(err + len, errlen - len, "%s %s:%s", i ? "," : "",
						v[i].provider, v[i].name);
	}
	free(v);
	return -1;
}

static int check_symbol(const struct mark *k, const char *given, char *err, size_t errlen)
{
	bool has_symtab = false;
	size_t ndyn = 0;
	int r = elf_has_function(k->path, k->symbol, &has_symtab, &ndyn);

	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read %s as an ELF file: %s", given, k->path,
			 strerror(-r));
		return -1;
	}
	if (r > 0)
		return 0;
	if (!has_symtab)
		snprintf(err, errlen, "%s: no function '%s' in %s: the binary is stripped (no .symtab; "
			 "only the %zu functions it exports are visible, as packaged builds such as "
			 "Debian's nginx are); use a build with symbols, or a USDT probe "
			 "(--mark usdt:BINARY:PROVIDER:NAME)", given, k->symbol, k->path, ndyn);
	else
		snprintf(err, errlen, "%s: no function '%s' in %s (its symbol table does not have it)",
			 given, k->symbol, k->path);
	return -1;
}

int marks_resolve(struct marks *m, char *err, size_t errlen)
{
	char path[PATH_MAX], given[PATH_MAX + 200];
	size_t i, len;
	int r;

	for (i = 0; i < marks_count(m); i++) {
		struct mark *k = &m->v[i];

		spec_as_given(k, given, sizeof(given));
		if (elf_find_binary(k->binary, path, sizeof(path)) < 0) {
			snprintf(err, errlen, "%s: no binary '%s': %s", given, k->binary,
				 strchr(k->binary, '/') ? "no such readable file" :
				 "not a program on PATH, nor a library in " LD_SO_CACHE);
			return -1;
		}
		free(k->path);
		k->path = strdup(path);
		if (!k->path) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		r = k->kind == MARK_USDT ? check_usdt(k, given, err, errlen) :
					   check_symbol(k, given, err, errlen);
		if (r < 0)
			return -1;
		len = strlen(path) + 32 + (k->kind == MARK_USDT ? strlen(k->provider) + strlen(k->name) :
								  strlen(k->symbol));
		free(k->spec);
		k->spec = malloc(len);
		if (!k->spec) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (k->kind == MARK_USDT)
			snprintf(k->spec, len, "usdt:%s:%s:%s", path, k->provider, k->name);
		else
			snprintf(k->spec, len, "%s:%s:%s", kind_name(k->kind), path, k->symbol);
	}
	return 0;
}

bool marks_uprobes_supported(const char *sysfs_dir)
{
	return access(sysfs_dir ? sysfs_dir : UPROBE_SYSFS, F_OK) == 0;
}

/* --- attaching ---------------------------------------------------------------- */

/* The modern object: libbpf attaches, each mark with its index as the cookie. */
static int attach_modern(struct boottrace_bpf *skel, struct marks *m)
{
	size_t i;
	int err;

	if (!m->links) {
		m->links = calloc(m->n, sizeof(*m->links));
		if (!m->links)
			return -ENOMEM;
	}
	for (i = 0; i < m->n; i++) {
		const struct mark *k = &m->v[i];
		__u64 cookie = i | (k->start ? MARK_COOKIE_START : 0);
		struct bpf_link *l;

		if (k->kind == MARK_USDT) {
			LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = cookie);

			l = bpf_program__attach_usdt(skel->progs.bt_mark_usdt, -1, k->path,
						     k->provider, k->name, &o);
		} else {
			LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = k->symbol,
				    .retprobe = k->kind == MARK_URETPROBE, .bpf_cookie = cookie);

			l = bpf_program__attach_uprobe_opts(skel->progs.bt_mark_uprobe, -1, k->path,
							    0, &o);
		}
		if (!l) {
			err = -errno;
			fprintf(stderr, "collector: cannot attach %s %s: %s%s\n",
				k->start ? "--start" : "--mark", k->spec ? k->spec : k->binary,
				strerror(-err), marks_uprobes_supported(NULL) ? "" :
				" (this kernel has no uprobes: " UPROBE_SYSFS " is missing)");
			return err;
		}
		m->links[i] = l;
	}
	if (marks_have_start(m))
		skel->bss->marks_start_armed = 1;
	return 0;
}

/*
 * The legacy and compat objects: copy i of the mark program on a uprobe event at each
 * site of mark i, placed by file offset as uprobe_events wants it.
 */
static int attach_legacy(struct backend *b, struct marks *m)
{
	struct usdt_site one, *sites;
	size_t i, j, n;
	int err;

	for (i = 0; i < m->n; i++) {
		const struct mark *k = &m->v[i];

		sites = &one;
		n = 1;
		one.semaphore = 0;
		if (k->kind == MARK_USDT)
			err = elf_usdt_sites(k->path, k->provider, k->name, &sites, &n);
		else
			err = elf_func_offset(k->path, k->symbol, &one.offset);
		if (err) {
			fprintf(stderr, "collector: cannot place %s %s in %s: %s\n",
				k->start ? "--start" : "--mark", k->spec, k->path,
				err == -ENOTUNIQ ? "functions of that name at two addresses" :
				err == -ENOENT ? "its address is in no loadable segment" : strerror(-err));
			return err;
		}
		for (j = 0, err = 0; j < n && !err; j++)
			err = backend_perf_attach_uprobe(b, (unsigned int)i, k->path, sites[j].offset,
							   k->kind == MARK_URETPROBE);
		if (sites != &one)
			free(sites);
		if (err) {
			fprintf(stderr, "collector: cannot attach %s %s\n", k->start ? "--start" : "--mark",
				k->spec);
			return err;
		}
	}
	return 0;
}

int marks_perf_check(const struct marks *m, const char *object, char *err, size_t errlen)
{
	char given[PATH_MAX + 200];
	struct usdt_site *sites;
	size_t i, j, n;
	int r;

	if (marks_count(m) > BT_LEGACY_MAX_MARKS) {
		snprintf(err, errlen, "%zu --mark and --start probes: the %s BPF object takes at most "
			 "%d (a copy of its mark program each: no attach cookie before kernel 5.15); "
			 "the modern object takes any number", marks_count(m), object, BT_LEGACY_MAX_MARKS);
		return -1;
	}
	for (i = 0; i < marks_count(m); i++) {
		const struct mark *k = &m->v[i];

		if (k->kind != MARK_USDT)
			continue;
		spec_as_given(k, given, sizeof(given));
		r = elf_usdt_sites(k->path, k->provider, k->name, &sites, &n);
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read its USDT notes in %s: %s", given, k->path,
				 strerror(-r));
			return -1;
		}
		for (j = 0; j < n && !sites[j].semaphore; j++)
			;
		free(sites);
		if (j < n) {
			snprintf(err, errlen, "%s: this USDT probe has a semaphore (the program runs it "
				 "only while a tracer counts the semaphore up), and the %s BPF object "
				 "attaches through uprobe_events, which cannot count it; "
				 "use the modern object (--object modern, a kernel with BTF), or a probe "
				 "without a semaphore", given, object);
			return -1;
		}
	}
	return 0;
}

int marks_attach(struct backend *b, struct marks *m)
{
	struct boottrace_bpf *skel;

	if (!marks_count(m))
		return 0;
	skel = backend_modern_skel(b);
	return skel ? attach_modern(skel, m) : attach_legacy(b, m);
}
