// SPDX-License-Identifier: BSD-2-Clause
/* Which exec is a container's entrypoint: see entrypoint.h. */
#include <string.h>

#include "common/entrypoint.h"

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && memcmp(s, prefix, k) == 0;
}

/* /dev/fd/N, /proc/self/fd/N: an exec of an open file (a memfd) */
static bool fd_path(const char *s, size_t n)
{
	size_t k;

	if (starts(s, n, "/dev/fd/"))
		k = 8;
	else if (starts(s, n, "/proc/self/fd/"))
		k = 14;
	else
		return false;
	if (k == n)
		return false;
	for (; k < n; k++)
		if (s[k] < '0' || s[k] > '9')
			return false;
	return true;
}

bool entrypoint_is_runtime(const char *filename, size_t n)
{
	static const char *const runtimes[] = { "runc", "crun", "youki", "conmon" };
	const char *base = filename;
	size_t i, bn;

	if (fd_path(filename, n) || (n == 14 && memcmp(filename, "/proc/self/exe", 14) == 0))
		return true;
	for (i = n; i > 0; i--) {
		if (filename[i - 1] == '/') {
			base = filename + i;
			break;
		}
	}
	bn = n - (size_t)(base - filename);
	if (starts(base, bn, "containerd-shim"))
		return true;
	for (i = 0; i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (bn == strlen(runtimes[i]) && memcmp(base, runtimes[i], bn) == 0)
			return true;
	return false;
}
