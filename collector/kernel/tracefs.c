// SPDX-License-Identifier: BSD-2-Clause
/*
 * tracefs: where it is mounted, tracepoint `format` files, and the uprobe
 * events of uprobe_events (the legacy object's marks). A format file reads:
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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/kernel/proc.h"
#include "collector/kernel/tracefs.h"

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

/* --- uprobe_events ------------------------------------------------------------ */

/* One command to @dir/uprobe_events; 0 or -errno. */
static int uprobe_events_write(const char *dir, const char *cmd)
{
	char path[4096];
	size_t len = strlen(cmd);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	/* O_APPEND, never O_TRUNC: truncating removes every uprobe event */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int tracefs_uprobe_add(const char *dir, const char *group, const char *event, const char *path,
		       unsigned long long offset, int retprobe)
{
	char cmd[4096 + 256], file[4096];
	const char *p;
	int err;

	for (p = path; *p; p++) {
		if (isspace((unsigned char)*p)) {
			fprintf(stderr, "collector: cannot make a uprobe event in %s: uprobe_events "
				"cannot name a path with blanks\n", path);
			return -EINVAL;
		}
	}
	if ((size_t)snprintf(cmd, sizeof(cmd), "%c:%s/%s %s:0x%llx\n", retprobe ? 'r' : 'p', group,
			     event, path, offset) >= sizeof(cmd)) {
		fprintf(stderr, "collector: cannot make a uprobe event in %s: path too long\n", path);
		return -ENAMETOOLONG;
	}
	/* the file missing, which a write's ENOENT (no such binary) is not */
	snprintf(file, sizeof(file), "%s/uprobe_events", dir);
	if (access(file, F_OK) < 0 && errno == ENOENT) {
		fprintf(stderr, "collector: this kernel has no uprobes (no uprobe_events in %s: "
			"CONFIG_UPROBE_EVENTS): --mark and --start need them\n", dir);
		return -ENOENT;
	}
	err = uprobe_events_write(dir, cmd);
	if (err)
		fprintf(stderr, "collector: cannot add the uprobe event %s/%s (%s:0x%llx) to %s: %s\n",
			group, event, path, offset, file, strerror(-err));
	return err;
}

int tracefs_uprobe_del(const char *dir, const char *group, const char *event, int wait_ms)
{
	struct timespec step = { 0, 20 * 1000 * 1000 };
	char cmd[2 * TRACEFS_NAME_MAX + 8];
	int err, waited;

	snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
	for (waited = 0;; waited += 20) {
		err = uprobe_events_write(dir, cmd);
		if (err != -EBUSY || waited >= wait_ms)
			return err;
		nanosleep(&step, NULL);
	}
}

long tracefs_event_id(const char *dir, const char *group, const char *event)
{
	char path[4096];
	long id = -1;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, group, event);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &id) != 1 || id < 0)
		err = -EINVAL;
	fclose(f);
	return err ? err : id;
}

int tracefs_uprobe_parse_line(const char *line, char *group, char *event)
{
	const char *g, *slash, *end;

	/* p:G/E, r:G/E; newer kernels also list "p:G/E PATH:0x... (ref)" forms */
	if ((line[0] != 'p' && line[0] != 'r') || line[1] != ':')
		return -1;
	g = line + 2;
	slash = strchr(g, '/');
	/* GROUP/EVENT is the first word: a '/' further on is the path's */
	if (!slash || slash == g || slash - g >= TRACEFS_NAME_MAX ||
	    (size_t)(slash - g) > strcspn(g, " \t\n"))
		return -1;
	end = slash + 1 + strcspn(slash + 1, " \t\n");
	if (end == slash + 1 || end - slash - 1 >= TRACEFS_NAME_MAX)
		return -1;
	memcpy(group, g, (size_t)(slash - g));
	group[slash - g] = '\0';
	memcpy(event, slash + 1, (size_t)(end - slash - 1));
	event[end - slash - 1] = '\0';
	return 0;
}

int tracefs_uprobe_remove_stale(const char *dir, const char *prefix)
{
	char path[4096], line[8192], group[TRACEFS_NAME_MAX], event[TRACEFS_NAME_MAX];
	char (*ev)[2][TRACEFS_NAME_MAX] = NULL, (*nev)[2][TRACEFS_NAME_MAX];
	size_t n = 0, i;
	int removed = 0, err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* the list first, then the removals: the file changes as they happen */
	while (fgets(line, sizeof(line), f)) {
		if (tracefs_uprobe_parse_line(line, group, event) < 0 || !name_of_dead_collector(group, prefix))
			continue;
		nev = realloc(ev, (n + 1) * sizeof(*ev));
		if (!nev)
			break;
		ev = nev;
		memcpy(ev[n][0], group, sizeof(group));
		memcpy(ev[n][1], event, sizeof(event));
		n++;
	}
	fclose(f);
	for (i = 0; i < n; i++) {
		/*
		 * The perf events of a process that was just killed can hold
		 * the event some hundreds of ms after its death (6.9+ frees a
		 * BPF perf link after an RCU tasks trace grace period): wait
		 * for that, a second at most; an event still in use after it
		 * is someone's (a collector in another pid namespace).
		 */
		err = tracefs_uprobe_del(dir, ev[i][0], ev[i][1], 1000);
		if (err == 0) {
			removed++;
			ev[i][1][0] = '\0';	/* done: counted for the message below */
		} else if (err != -ENOENT && err != -EBUSY) {
			/* -ENOENT: another collector removed it meanwhile; -EBUSY: in use */
			fprintf(stderr, "collector: cannot remove the uprobe event %s/%s, left by a "
				"collector that was killed: %s\n", ev[i][0], ev[i][1], strerror(-err));
		}
	}
	/* one line per group, at its first removed event */
	for (i = 0; i < n; i++) {
		size_t j;
		int first = ev[i][1][0] == '\0';

		for (j = 0; j < i && first; j++)
			first = !(ev[j][1][0] == '\0' && !strcmp(ev[j][0], ev[i][0]));
		if (first)
			fprintf(stderr, "collector: removed the uprobe events of %s, left by a "
				"collector that was killed\n", ev[i][0]);
	}
	free(ev);
	return removed;
}
