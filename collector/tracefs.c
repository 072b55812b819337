// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracefs `format` files. A format file reads:
 *
 *   name: sched_process_fork
 *   ID: 366
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...
 *   	field:__data_loc char[] parent_comm;	offset:8;	size:4;	signed:0;
 *
 *   print fmt: ...
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "collector/tracefs.h"

static const char *skip_space(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Copy [s, e) trimmed into @dst (NUL-terminated); -1 if it does not fit or is empty. */
static int copy_trimmed(char *dst, size_t n, const char *s, const char *e)
{
	s = skip_space(s, e);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s || (size_t)(e - s) >= n)
		return -1;
	memcpy(dst, s, (size_t)(e - s));
	dst[e - s] = '\0';
	return 0;
}

/* "unsigned long args[6]" -> type "unsigned long", name "args". */
static int parse_decl(struct tracefs_field *f, const char *s, const char *e)
{
	const char *name_end, *name;

	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	name_end = e;
	if (name_end > s && name_end[-1] == ']') {
		while (name_end > s && *name_end != '[')
			name_end--;
		if (*name_end != '[')
			return -1;
	}
	name = name_end;
	while (name > s && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == name_end || copy_trimmed(f->name, sizeof(f->name), name, name_end) < 0)
		return -1;
	if (copy_trimmed(f->type, sizeof(f->type), s, name) < 0)
		return -1;
	if (!strncmp(f->type, "__data_loc", 10))
		f->loc = TRACEFS_DATA_LOC;
	else if (!strncmp(f->type, "__rel_loc", 9))
		f->loc = TRACEFS_REL_LOC;
	else
		f->loc = TRACEFS_PLAIN;
	return 0;
}

/* The number after "@key:" in [s, e), up to its ';'. */
static int parse_attr(const char *s, const char *e, const char *key, long *val)
{
	size_t kl = strlen(key);
	const char *p;
	char num[32], *end;

	for (p = s; p + kl < e; p++) {
		if (strncmp(p, key, kl) || p[kl] != ':')
			continue;
		if (p > s && p[-1] != '\t' && p[-1] != ' ' && p[-1] != ';')
			continue;
		p += kl + 1;
		s = p;
		while (p < e && *p != ';')
			p++;
		if (p == e || copy_trimmed(num, sizeof(num), s, p) < 0)
			return -1;
		errno = 0;
		*val = strtol(num, &end, 10);
		return *end || errno ? -1 : 0;
	}
	return -1;
}

static int parse_field(struct tracefs_field *f, const char *s, const char *e)
{
	const char *semi;
	long off, size, sgn = 0;

	s = skip_space(s, e) + strlen("field:");
	for (semi = s; semi < e && *semi != ';'; semi++)
		;
	if (semi == e || parse_decl(f, s, semi) < 0)
		return -1;
	if (parse_attr(semi, e, "offset", &off) < 0 || parse_attr(semi, e, "size", &size) < 0 ||
	    off < 0 || off > 0xffff || size < 0 || size > 0xffff)
		return -1;
	parse_attr(semi, e, "signed", &sgn);	/* absent before 2.6.33 */
	f->offset = (unsigned int)off;
	f->size = (unsigned int)size;
	f->is_signed = sgn != 0;
	return 0;
}

int tracefs_parse_format(const char *text, struct tracefs_format *out, int *line)
{
	const char *s = text, *e, *p;
	int n = 0, have_id = 0;
	char num[32], *end;

	memset(out, 0, sizeof(*out));
	out->id = -1;
	for (; *s; s = *e ? e + 1 : e) {
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		n++;
		p = skip_space(s, e);
		if (e - p >= 10 && !strncmp(p, "print fmt:", 10))
			break;
		if (e - p >= 6 && !strncmp(p, "field:", 6)) {
			if (out->nfields == TRACEFS_MAX_FIELDS) {
				if (line)
					*line = n;
				return -E2BIG;
			}
			if (parse_field(&out->fields[out->nfields], p, e) < 0)
				goto bad;
			out->nfields++;
		} else if (e - p >= 3 && !strncmp(p, "ID:", 3)) {
			if (copy_trimmed(num, sizeof(num), p + 3, e) < 0)
				goto bad;
			errno = 0;
			out->id = strtol(num, &end, 10);
			if (*end || errno || out->id < 0)
				goto bad;
			have_id = 1;
		} else if (e - p >= 5 && !strncmp(p, "name:", 5)) {
			if (copy_trimmed(out->name, sizeof(out->name), p + 5, e) < 0)
				goto bad;
		}
	}
	if (!have_id || !out->nfields) {
		if (line)
			*line = 0;
		return -EINVAL;
	}
	return 0;
bad:
	if (line)
		*line = n;
	return -EINVAL;
}

const struct tracefs_field *tracefs_field(const struct tracefs_format *f, const char *name)
{
	int i;

	for (i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

/* A tracefs mount point from /proc/self/mounts: a standard one if any. */
static int find_mount(char *dir, size_t n)
{
	char line[4096], dev[256], mnt[2048], type[64];
	int found = 0;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %2047s %63s", dev, mnt, type) != 3 || strcmp(type, "tracefs"))
			continue;
		/* libbpf and tools look at these two; prefer them */
		if (!strcmp(mnt, "/sys/kernel/tracing") || !strcmp(mnt, "/sys/kernel/debug/tracing")) {
			snprintf(dir, n, "%s", mnt);
			found = 2;
			break;
		}
		if (!found) {
			snprintf(dir, n, "%s", mnt);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

int tracefs_dir(char *dir, size_t n)
{
	const char *where = "/sys/kernel/tracing";
	struct stat st;

	if (find_mount(dir, n))
		return 0;
	/* /sys/kernel/tracing exists since 4.1; older kernels only automount under debugfs */
	if (stat(where, &st) < 0) {
		int err = -errno;

		fprintf(stderr, "collector: no tracefs mounted and no %s to mount it on: %s\n",
			where, strerror(-err));
		return err;
	}
	if (mount("nodev", where, "tracefs", 0, NULL) < 0) {
		int err = -errno;

		fprintf(stderr, "collector: cannot mount tracefs at %s: %s\n", where, strerror(-err));
		return err;
	}
	snprintf(dir, n, "%s", where);
	return 0;
}

int tracefs_read_format(const char *dir, const char *event, struct tracefs_format *out)
{
	char path[4096], *buf = NULL;
	size_t len = 0, cap = 0, got;
	int err, line = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/format", dir, event);
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		if (err == -ENOENT)
			fprintf(stderr, "collector: tracepoint %s missing (no %s)\n", event, path);
		else
			fprintf(stderr, "collector: cannot open %s: %s\n", path, strerror(-err));
		return err;
	}
	/* tracefs files report size 0: read until EOF */
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap += 8192;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (err) {
		fprintf(stderr, "collector: cannot read %s: %s\n", path, strerror(-err));
		free(buf);
		return err;
	}
	buf[len] = '\0';
	err = tracefs_parse_format(buf, out, &line);
	free(buf);
	if (err)
		fprintf(stderr, "collector: %s:%d: cannot parse the tracepoint format\n", path, line);
	return err;
}
