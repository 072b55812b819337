// SPDX-License-Identifier: BSD-2-Clause
/* /proc readers: see proc.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/kernel/proc.h"

pid_t proc_stat_ppid(const char *stat)
{
	/* skip comm: to the last ')', then " S PPID" */
	const char *p = strrchr(stat, ')');
	char *end;
	long v;

	if (!p || strlen(p) < 5)
		return -1;
	v = strtol(p + 4, &end, 10);
	if (end == p + 4 || v < 0 || v > INT_MAX)
		return -1;
	return (pid_t)v;
}

/*
 * /proc/@pid/@file into @buf (@n bytes, NUL-terminated: one read, which a
 * /proc file answers whole up to @n - 1 bytes). Its length, or -errno.
 */
static ssize_t proc_read(pid_t pid, const char *file, char *buf, size_t n)
{
	char path[64];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, n - 1);
	if (len < 0)
		len = -errno;
	close(fd);
	buf[len > 0 ? len : 0] = '\0';
	return len;
}

pid_t proc_ppid(pid_t pid)
{
	char buf[512];

	if (proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	return proc_stat_ppid(buf);
}

int proc_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], line[256];
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && got != 3) {
		if (!strncmp(line, "Tgid:", 5)) {
			*tgid = (pid_t)strtol(line + 5, NULL, 10);
			got |= 1;
		} else if (!strncmp(line, "PPid:", 5)) {
			*ppid = (pid_t)strtol(line + 5, NULL, 10);
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

ssize_t proc_cmdline(pid_t pid, char *out, size_t n)
{
	ssize_t len, i;

	if (n == 0 || (len = proc_read(pid, "cmdline", out, n)) <= 0)
		return -1;
	while (len > 0 && out[len - 1] == '\0')
		len--;
	for (i = 0; i < len; i++)
		if (out[i] == '\0')
			out[i] = ' ';
	out[len] = '\0';
	return len;
}

ssize_t proc_comm(pid_t pid, char *out, size_t n)
{
	ssize_t len = proc_read(pid, "comm", out, n);

	if (len > 0 && out[len - 1] == '\n')
		out[--len] = '\0';
	return len;
}

int proc_cgroup2_path(pid_t pid, char *out, size_t n)
{
	char text[PATH_MAX + 4096];
	ssize_t len = proc_read(pid, "cgroup", text, sizeof(text));
	const char *line;

	if (len < 0)
		return (int)len;
	for (line = text; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		if (strncmp(line, "0::", 3) == 0) {
			snprintf(out, n, "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
			return 0;
		}
	}
	return -ENOENT;
}

int cgroup_file_pick(const char *text, char *out, size_t n)
{
	static const char *const prefer[] = { "0::", ":name=systemd:", ":pids:" };
	size_t i;

	for (i = 0; i < sizeof(prefer) / sizeof(prefer[0]); i++) {
		const char *line = text;

		while (line && *line) {
			const char *end = strchr(line, '\n'), *p;
			size_t len = end ? (size_t)(end - line) : strlen(line);

			/* "0::/path" starts the line; "4:pids:/path" has a number first */
			p = i == 0 ? (strncmp(line, prefer[i], 3) == 0 ? line : NULL) :
				     memmem(line, len, prefer[i], strlen(prefer[i]));
			if (p) {
				const char *path = p + strlen(prefer[i]);
				size_t plen = len - (size_t)(path - line);

				if (!(i == 0 && plen == 1 && path[0] == '/')) {
					snprintf(out, n, "%.*s", (int)plen, path);
					return 0;
				}
			}
			line = end ? end + 1 : NULL;
		}
	}
	return -ENOENT;
}

int proc_runtime_cgroup(pid_t pid, char *out, size_t n)
{
	char text[4096];
	ssize_t len = proc_read(pid, "cgroup", text, sizeof(text));

	if (len < 0)
		return (int)len;
	return cgroup_file_pick(text, out, n);
}

size_t descendants_of(pid_t root, const pid_t *pids, const pid_t *ppids, size_t n, pid_t *out)
{
	size_t nin = 1, i, j;
	int changed;

	out[0] = root;
	/* a fixpoint over the parent links */
	do {
		changed = 0;
		for (i = 0; i < n; i++) {
			int is_in = 0, parent_in = 0;

			for (j = 0; j < nin; j++) {
				is_in |= out[j] == pids[i];
				parent_in |= out[j] == ppids[i];
			}
			if (!is_in && parent_in) {
				out[nin++] = pids[i];
				changed = 1;
			}
		}
	} while (changed);
	return nin;
}

int proc_descendants(pid_t root, pid_t **out, size_t *nout)
{
	pid_t *pids = NULL, *ppids = NULL, *in = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	int err = 0;
	DIR *proc = opendir("/proc");

	if (!proc)
		return -errno;
	while ((d = readdir(proc))) {
		pid_t pid = (pid_t)strtol(d->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			pid_t *np = realloc(pids, ncap * sizeof(*np)), *npp;

			if (!np) {
				err = -ENOMEM;
				break;
			}
			pids = np;
			npp = realloc(ppids, ncap * sizeof(*npp));
			if (!npp) {
				err = -ENOMEM;
				break;
			}
			ppids = npp;
			cap = ncap;
		}
		pids[n] = pid;
		ppids[n++] = proc_ppid(pid);
	}
	closedir(proc);
	if (!err && !(in = calloc(n + 1, sizeof(*in))))
		err = -ENOMEM;
	if (!err) {
		*nout = descendants_of(root, pids, ppids, n, in);
		*out = in;
	}
	free(pids);
	free(ppids);
	return err;
}

int proc_stat_usage(const char *stat, struct proc_usage *u)
{
	unsigned long long v[22];
	const char *p = strrchr(stat, ')');
	char *end;
	int i;

	/* after comm: field 3 (state) is a letter, fields 4.. numbers; 24 (rss) is the last we read */
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	p += 4;
	for (i = 4; i <= 24; i++) {
		long long s;

		errno = 0;
		s = strtoll(p, &end, 10);
		if (errno || end == p || (*end != ' ' && *end != '\n' && *end != '\0'))
			return -1;
		v[i - 4] = (unsigned long long)s;
		p = end;
	}
	u->utime = v[14 - 4];
	u->stime = v[15 - 4];
	u->starttime = v[22 - 4];
	u->vsize = v[23 - 4];
	u->rss = v[24 - 4];
	return 0;
}

int proc_self_usage(struct proc_usage *u)
{
	char buf[1024];
	struct dirent *d;
	DIR *fds;
	FILE *f;
	char line[256];

	if (proc_read(getpid(), "stat", buf, sizeof(buf)) <= 0 || proc_stat_usage(buf, u) < 0)
		return -1;
	u->fds = -1;
	fds = opendir("/proc/self/fd");
	if (fds) {
		/* every entry but . and .. and the directory's own fd */
		for (u->fds = -1; (d = readdir(fds));)
			u->fds += d->d_name[0] != '.';
		closedir(fds);
	}
	u->btime = 0;
	f = fopen("/proc/stat", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "btime ", 6) == 0)
			u->btime = strtoull(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return 0;
}

bool name_of_dead_collector(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return false;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	if (*end || errno || pid <= 0 || pid > INT_MAX)
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}
