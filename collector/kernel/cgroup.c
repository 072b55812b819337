// SPDX-License-Identifier: BSD-2-Clause
/*
 * cgroup v2 plumbing for the collector.
 *
 * libcgroup 2.0 (Debian 12) is built around v1 controllers: on a hybrid
 * host cgroup_get_subsys_mount_point() finds the v1 mounts but not the v2
 * one, and it has no notion of cgroup ids, cgroup.kill or cgroup.events.
 * So we use libcgroup only to describe the host (which v1 controllers are
 * mounted) and do the v2 work directly on cgroupfs: it is a few files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libcgroup.h>
#include <linux/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/kernel/cgroup.h"
#include "collector/kernel/proc.h"

int cgroup2_mount(char *out, size_t n)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64];
	int found = 0;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2") == 0) {
			snprintf(out, n, "%s", dir);
			found = 1;
			break;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

const char *cgroup_host_layout(const char *cg2)
{
	char *mp = NULL;
	int v1;

	/* libcgroup: is any v1 controller mounted? (hybrid or legacy host) */
	if (cgroup_init() != 0)
		return cg2 ? "unified" : "unknown";
	v1 = cgroup_get_subsys_mount_point("cpu", &mp) == 0 ||
	     cgroup_get_subsys_mount_point("memory", &mp) == 0;
	free(mp);
	if (v1)
		return cg2 ? "hybrid" : "legacy";
	return "unified";
}

int cgroup_id_of(const char *path, unsigned long long *id)
{
	__u64 buf[(sizeof(struct file_handle) + sizeof(__u64)) / sizeof(__u64) + 1];
	struct file_handle *fh = (struct file_handle *)buf;
	struct stat st;
	int mount_id;

	/*
	 * The id bpf_get_current_cgroup_id() returns is the kernfs node id,
	 * and cgroupfs file handles carry it (kernfs exports handles since
	 * 4.14): 64 bits, where before 5.5 the inode number is only its low
	 * half (the high half is a generation count).
	 */
	fh->handle_bytes = sizeof(__u64);
	if (name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0) == 0 &&
	    fh->handle_bytes == sizeof(__u64)) {
		memcpy(id, fh->f_handle, sizeof(__u64));
		return 0;
	}
	/* no handle: on 5.5+ the id is also the directory's inode number */
	if (stat(path, &st) < 0)
		return -errno;
	*id = st.st_ino;
	return 0;
}

int cgroup_parent_path(const char *path, char *out, size_t n)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	/* back to the last slash, then past the slashes before it */
	while (len > 0 && path[len - 1] != '/')
		len--;
	if (len == 0 || (len == 1 && (path[1] == '\0' || path[1] == '/')))
		return -1;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len + 1 > n)
		return -1;
	memcpy(out, path, len);
	out[len] = '\0';
	return 0;
}

int cgroup_write(const char *dir, const char *file, const char *value)
{
	char path[4096];
	int fd, err = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

int cgroup_signal(const char *dir, int sig)
{
	char path[4096], line[32];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		pid_t pid = (pid_t)atoi(line);

		if (pid > 0 && kill(pid, sig) == 0)
			n++;
	}
	fclose(f);
	return n;
}

void cgroup_kill(const char *dir, int sig)
{
	if (sig != SIGKILL || cgroup_write(dir, "cgroup.kill", "1") < 0)
		cgroup_signal(dir, sig);
}

int cgroup_populated(const char *dir)
{
	char path[4096], line[64];
	FILE *f;
	int populated = -1;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "populated ", 10) == 0)
			populated = atoi(line + 10);
	fclose(f);
	return populated;
}

/*
 * Remove the cgroup @path and every cgroup under it, depth first. Tasks
 * still in them (a container that outlived its collector) are killed
 * first: nobody traces them any more, and a boottrace cgroup is ours.
 */
static int remove_tree(const char *path, int depth)
{
	char child[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int i;

	if (depth > 32)
		return -1;
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
		remove_tree(child, depth + 1);
	}
	if (dir)
		closedir(dir);
	if (cgroup_populated(path) > 0)
		cgroup_kill(path, SIGKILL);
	/* a killed task leaves its cgroup soon, not at once */
	for (i = 0; i < 200 && rmdir(path) < 0 && errno == EBUSY; i++)
		usleep(5000);
	return access(path, F_OK) == 0 ? -1 : 0;
}


int cgroup_remove_tree(const char *path)
{
	return remove_tree(path, 0);
}

/*
 * A collector killed by SIGKILL leaves its boottrace.<pid> parent (and the
 * container directories in it, perhaps still running) behind. Remove those
 * whose collector is gone.
 */
void cgroup_remove_stale(const char *cg2)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir(cg2);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (!name_of_dead_collector(d->d_name, "boottrace."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", cg2, d->d_name);
		if (cgroup_remove_tree(path) == 0)
			fprintf(stderr, "collector: removed %s, left by a collector that was killed\n", path);
		else
			fprintf(stderr, "collector: cannot remove %s, left by a collector that was killed: %s\n",
				path, strerror(errno));
	}
	closedir(dir);
}
