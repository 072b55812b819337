// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipe_probe DIR: the syscalls whose rows name a pipe (docs/tsv-format.md,
 * "Pipes"), each told apart in the TSV by its byte count, and on stdout
 * what the kernel says each pipe is, for tests/integration/test_collector_pipes.sh
 * to compare with the rows:
 *
 *   pipe NAME     pipe(2) (the syscall itself): NAME as readlink(2) of
 *                 /proc/self/fd/N shows both ends; write 1, read 1 on it
 *   pipe2 NAME    pipe2(2): writev 2, readv 2; write 3, then read 3
 *                 through a dup at fd 300 (beyond the first fd table);
 *                 a child writes 4 after 200 ms while we block in read 4
 *   fifo NAME     a FIFO DIR/fifo: NAME is fifo:[its st_ino]; write 5, read 5
 *
 * then pipe2 with bad flags (EINVAL: no pipe), read 6 of /dev/zero and
 * read of fd 999 (EBADF), which name none. Exit status 1 on any failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	exit(1);
}

/* readlink /proc/self/fd/@fd, which must be the same for @other */
static void print_link(const char *key, int fd, int other)
{
	char path[64], a[PATH_MAX], b[PATH_MAX];
	ssize_t n, m;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((n = readlink(path, a, sizeof(a) - 1)) < 0)
		fail("pipe_probe: readlink");
	a[n] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fd/%d", other);
	if ((m = readlink(path, b, sizeof(b) - 1)) < 0)
		fail("pipe_probe: readlink");
	b[m] = '\0';
	if (strcmp(a, b)) {
		fprintf(stderr, "pipe_probe: the ends differ: %s, %s\n", a, b);
		exit(1);
	}
	printf("%s %s\n", key, a);
}

static void io(ssize_t got, ssize_t want, const char *what)
{
	if (got != want)
		fail(what);
}

int main(int argc, char **argv)
{
	char buf[16] = "0123456789", path[PATH_MAX];
	struct iovec v = { buf, 2 };
	int a[2], b[2], fd, st;
	struct stat sb;
	pid_t child;

	if (argc != 2) {
		fprintf(stderr, "usage: pipe_probe <dir>\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (syscall(SYS_pipe, a) < 0)
		fail("pipe_probe: pipe");
	print_link("pipe", a[0], a[1]);
	io(write(a[1], buf, 1), 1, "pipe_probe: write 1");
	io(read(a[0], buf, 1), 1, "pipe_probe: read 1");

	if (syscall(SYS_pipe2, b, O_CLOEXEC) < 0)
		fail("pipe_probe: pipe2");
	print_link("pipe2", b[0], b[1]);
	io(writev(b[1], &v, 1), 2, "pipe_probe: writev 2");
	io(readv(b[0], &v, 1), 2, "pipe_probe: readv 2");
	if (dup2(b[0], 300) != 300)
		fail("pipe_probe: dup2");
	io(write(b[1], buf, 3), 3, "pipe_probe: write 3");
	io(read(300, buf, 3), 3, "pipe_probe: read 3");
	/* a read that blocks until a child writes: its row is written at its end */
	if ((child = fork()) < 0)
		fail("pipe_probe: fork");
	if (child == 0) {
		usleep(200000);
		_exit(write(b[1], buf, 4) == 4 ? 0 : 1);
	}
	io(read(b[0], buf, 4), 4, "pipe_probe: read 4");
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("pipe_probe: the writing child");

	snprintf(path, sizeof(path), "%s/fifo", argv[1]);
	if (mkfifo(path, 0600) < 0 && errno != EEXIST)
		fail("pipe_probe: mkfifo");
	/* O_RDWR: a FIFO opened for both ends does not wait for a peer (Linux) */
	if ((fd = open(path, O_RDWR)) < 0 || fstat(fd, &sb) < 0)
		fail("pipe_probe: the FIFO");
	printf("fifo fifo:[%ju]\n", (uintmax_t)sb.st_ino);
	io(write(fd, buf, 5), 5, "pipe_probe: write 5");
	io(read(fd, buf, 5), 5, "pipe_probe: read 5");

	if (syscall(SYS_pipe2, b, 0x7fff0000) == 0) {
		fprintf(stderr, "pipe_probe: pipe2 took bad flags\n");
		return 1;
	}
	if ((fd = open("/dev/zero", O_RDONLY)) < 0)
		fail("pipe_probe: /dev/zero");
	io(read(fd, buf, 6), 6, "pipe_probe: read 6");
	if (read(999, buf, 1) >= 0) {
		fprintf(stderr, "pipe_probe: fd 999 was open\n");
		return 1;
	}
	return 0;
}
