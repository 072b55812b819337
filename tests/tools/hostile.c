// SPDX-License-Identifier: BSD-2-Clause
/*
 * hostile DIR: a process whose names hold bytes that break naive TSV
 * writers and readers (tabs, newlines, CR, backslashes, a literal \N,
 * quotes, backquotes, system("..."), $(...), invalid UTF-8, 255 bytes):
 *   1. sets its comm to "a\tb\nc\\d'e\"";
 *   2. opens (creating) files in DIR with such names, then, from DIR, one
 *      whose name is 255 bytes long (the longest a name can be; as a
 *      relative path it is also the longest path the collector keeps);
 *   3. binds and listens on an abstract unix socket whose name (after the
 *      leading NUL) holds such bytes, on a second one whose name holds
 *      NULs (inside, and at its end, as when a program passes
 *      sizeof(struct sockaddr_un) as the length), and on a unix socket
 *      file in DIR bound by a relative name that starts with '@';
 *   4. execs itself through a symlink DIR/<hostile name>, with a hostile
 *      argv[0]; the new image (argv[1] "--child") prints what it got.
 * Each name, as raw bytes, goes to stdout hex encoded, one "KIND HEX" a
 * line, so that a test can compare: comm, path (an open's path), unix and
 * unixnul (an abstract name, without its leading NUL), sockfile (a socket file's name,
 * relative), exec (the path exec'd), argv0 (as the new image got it),
 * comm2 (the new image's comm, as the kernel set it). Exit 1 with a
 * message when a call fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *const names[] = {
	"tab\there", "new\nline", "cr\rhere", "back\\slash", "quote\"s'q",
	"`touch pwned`", "\\N", "bad\xff\xfeutf8", "sys$(id)tem",
	"x\"; system(\"touch pwned1\"); \"",
};

static void hexn(const char *kind, const char *s, size_t n)
{
	size_t i;

	printf("%s ", kind);
	for (i = 0; i < n; i++)
		printf("%02x", (unsigned char)s[i]);
	printf("\n");
}

static void hex(const char *kind, const char *s)
{
	hexn(kind, s, strlen(s));
}

static void die(const char *what)
{
	fprintf(stderr, "hostile: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* bind @len bytes of @un and listen on it; the socket stays open */
static void bind_listen(const struct sockaddr_un *un, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	if (bind(fd, (const struct sockaddr *)un, len) < 0)
		die("bind");
	if (listen(fd, 1) < 0)
		die("listen");
}

/* The new image: say what argv[0] and the comm are, and exit. */
static int child(char **argv)
{
	char comm[17] = "";

	prctl(PR_GET_NAME, comm);
	hex("argv0", argv[0]);
	hex("comm2", comm);
	return 0;
}

int main(int argc, char **argv)
{
	/* abstract names: a NUL first, then hostile bytes, then the pid */
	static const char abstract[] = "\0ab\tc\nd\\e\\N\xff\xfe\"`$(id)`\r-";
	static const char abstract_nul[] = "\0nul\0inside\t-";
	const char *comm = "a\tb\nc\\d'e\"";
	const char *run = "run\t\n\\N\xff\r\"`$(id)`'";
	char argv0[] = "argv0\t\n\\N\xfe\x01\"; system(\"id\")";
	char dir[4096], path[4096 + 256], self[4096], longname[256];
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char *args[4];
	size_t i, n;
	ssize_t sn;
	int fd;

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(argv);
	if (argc != 2)
		return 2;
	if (!realpath(argv[1], dir)) /* we chdir to it later */
		die(argv[1]);

	/* 1. the comm */
	prctl(PR_SET_NAME, comm);
	hex("comm", comm);

	/* 2. files */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			die("open");
		close(fd);
		hex("path", path);
	}
	if (chdir(dir) < 0)
		die("chdir");
	for (i = 0; i < sizeof(longname) - 1; i++)
		longname[i] = "x\t\\N\xff\n\r\"`"[i % 9];
	longname[i] = '\0';
	fd = open(longname, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		die("open of a 255-byte name");
	close(fd);
	hex("path", longname);

	/* 3. unix sockets: abstract, and a file with a relative name */
	n = sizeof(abstract) - 1;
	memcpy(un.sun_path, abstract, n);
	n += (size_t)snprintf(un.sun_path + n, sizeof(un.sun_path) - n, "%d", (int)getpid());
	bind_listen(&un, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	hexn("unix", un.sun_path + 1, n - 1);
	memset(un.sun_path, 0, sizeof(un.sun_path));
	n = sizeof(abstract_nul) - 1;
	memcpy(un.sun_path, abstract_nul, n);
	n += (size_t)snprintf(un.sun_path + n, sizeof(un.sun_path) - n, "%d", (int)getpid());
	n += 3; /* NULs at the end */
	bind_listen(&un, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	hexn("unixnul", un.sun_path + 1, n - 1);
	memset(un.sun_path, 0, sizeof(un.sun_path));
	snprintf(un.sun_path, sizeof(un.sun_path), "@sock\t\\N\xff");
	bind_listen(&un, (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     strlen(un.sun_path) + 1));
	hex("sockfile", un.sun_path);

	/* 4. exec through a hostile path, with a hostile argv[0] */
	sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sn < 0)
		die("readlink /proc/self/exe");
	self[sn] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, run);
	if (symlink(self, path) < 0 && errno != EEXIST)
		die("symlink");
	hex("exec", path);
	fflush(stdout);
	args[0] = argv0;
	args[1] = "--child";
	args[2] = dir;
	args[3] = NULL;
	execv(path, args);
	die("execv");
}
