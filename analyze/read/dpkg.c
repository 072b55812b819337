// SPDX-License-Identifier: BSD-2-Clause
/* The package that installed a file, from dpkg's database (dpkg.h). */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/read/dpkg.h"

/* A path's forms as dpkg may list them: as given, resolved, /usr merged or not. */
#define FORMS 4

/* @path with "/usr" removed from its front (/usr/lib/x -> /lib/x), or added. */
static char *usrmerge(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/lib32/", "/libx32/", "/bin/",
					    "/sbin/" };
	size_t i;
	char *s;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i]);

		if (strncmp(path, "/usr", 4) == 0 && strncmp(path + 4, dirs[i], n) == 0)
			return strdup(path + 4);
		if (strncmp(path, dirs[i], n) == 0) {
			s = malloc(strlen(path) + 5);
			if (s)
				sprintf(s, "/usr%s", path);
			return s;
		}
	}
	return NULL;
}

/* The forms of @path into @f (FORMS, NULL where none). -1 out of memory. */
static int forms_of(const char *path, char **f)
{
	char real[PATH_MAX];

	memset(f, 0, FORMS * sizeof(*f));
	if (!(f[0] = strdup(path)))
		return -1;
	f[1] = usrmerge(path);
	if (realpath(path, real) && strcmp(real, path) != 0) {
		if (!(f[2] = strdup(real)))
			return -1;
		f[3] = usrmerge(real);
	}
	return 0;
}

/* @name, a .list file's name, as a package name into @out: PKG[:ARCH].list -> PKG. */
static bool list_name(const char *name, char *out, size_t sz)
{
	size_t n = strlen(name);
	const char *colon;

	if (n <= 5 || strcmp(name + n - 5, ".list") != 0)
		return false;
	n -= 5;
	colon = memchr(name, ':', n);
	if (colon)
		n = (size_t)(colon - name);
	if (!n || n >= sz)
		return false;
	memcpy(out, name, n);
	out[n] = '\0';
	return true;
}

int dpkg_owners(const char *infodir, const char *const *paths, size_t n, char **pkgs)
{
	char **forms = calloc(n ? n * FORMS : 1, sizeof(*forms));
	char *line = NULL, pkg[256], file[PATH_MAX];
	size_t cap = 0, i, left = n;
	struct dirent *de;
	DIR *d = NULL;
	int rc = -1;

	for (i = 0; i < n; i++)
		pkgs[i] = NULL;
	if (!forms)
		return -1;
	for (i = 0; i < n; i++)
		if (forms_of(paths[i], forms + i * FORMS) < 0)
			goto out;
	rc = 0;
	d = opendir(infodir);
	while (d && left && (de = readdir(d))) {
		FILE *f;
		ssize_t len;

		if (!list_name(de->d_name, pkg, sizeof(pkg)) ||
		    snprintf(file, sizeof(file), "%s/%s", infodir, de->d_name) >= (int)sizeof(file) ||
		    !(f = fopen(file, "re")))
			continue;
		while (left && (len = getline(&line, &cap, f)) > 0) {
			if (line[len - 1] == '\n')
				line[--len] = '\0';
			for (i = 0; i < n * FORMS; i++) {
				if (!forms[i] || pkgs[i / FORMS] || strcmp(forms[i], line) != 0)
					continue;
				if (!(pkgs[i / FORMS] = strdup(pkg))) {
					rc = -1;
					left = 0;
					break;
				}
				left--;
			}
		}
		fclose(f);
	}
	if (d)
		closedir(d);
out:
	for (i = 0; i < n * FORMS; i++)
		free(forms[i]);
	free(forms);
	free(line);
	return rc;
}

void dpkg_debug_package(const char *pkg, char *out, size_t sz)
{
	/* glibc builds its own debug package, and no -dbgsym */
	if (strcmp(pkg, "libc6") == 0 || strcmp(pkg, "libc-bin") == 0)
		snprintf(out, sz, "libc6-dbg");
	else
		snprintf(out, sz, "%s-dbgsym", pkg);
}
