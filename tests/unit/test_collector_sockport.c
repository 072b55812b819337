// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/rows/sockport.c. Lines of /proc/net/tcp and tcp6 as the
 * kernel prints them (x86-64: words in little-endian order), and hostile
 * or cut ones; then the lookup itself on this process's own sockets,
 * against getsockname(): bound to port 0, autobound, in a thread, and
 * what it must not find (a socket that does not listen, a closed fd,
 * another file, a unix socket, a process that is gone, a bind address
 * the socket does not have).
 */
#include <setjmp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/rows/sockport.h"

#define TAIL " 00000000:00000000 00:00000000 00000000     0        0 "
#define V4_LISTEN "   0: 0100007F:1F90 00000000:0000 0A" TAIL "12345 1 0000000000000000 100 0 0 10 0\n"
#define V4_ESTAB "   3: 0100007F:1F90 0100007F:D431 01" TAIL "777 1 0000000000000000 20 4 30 10 -1\n"
#define V6_LOOP "   0: 00000000000000000000000001000000:B80F " \
	"00000000000000000000000000000000:0000 0A" TAIL "131729 1 00000000a243366d 100 0 0 10 0\n"
#define V6_MAPPED "  12: 0000000000000000FFFF00000100007F:0050 " \
	"00000000000000000000000000000000:0000 0A" TAIL "99 1 0000000000000000 100 0 0 10 0"

static void test_parse_v4(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	unsigned long long ino;
	unsigned int st;
	char ip[INET_ADDRSTRLEN];

	(void)state;
	assert_int_equal(sockport_parse_line(V4_LISTEN, AF_INET, &ss, &st, &ino), 0);
	assert_int_equal(a->sin_family, AF_INET);
	assert_int_equal(ntohs(a->sin_port), 8080);
	assert_string_equal(inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip)), "127.0.0.1");
	assert_int_equal(st, SOCKPORT_LISTEN);
	assert_int_equal(ino, 12345);
	/* a connection: its local address, state 1 (TCP_ESTABLISHED) */
	assert_int_equal(sockport_parse_line(V4_ESTAB, AF_INET, &ss, &st, &ino), 0);
	assert_int_equal(st, 1);
	assert_int_equal(ino, 777);
	/* the wildcard address, lower-case hex */
	assert_int_equal(sockport_parse_line("0: 00000000:abcd 00000000:0000 0a" TAIL "5",
					     AF_INET, &ss, &st, &ino), 0);
	assert_int_equal(a->sin_addr.s_addr, htonl(INADDR_ANY));
	assert_int_equal(ntohs(a->sin_port), 0xabcd);
}

static void test_parse_v6(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
	unsigned long long ino;
	unsigned int st;
	char ip[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(sockport_parse_line(V6_LOOP, AF_INET6, &ss, &st, &ino), 0);
	assert_int_equal(a->sin6_family, AF_INET6);
	assert_int_equal(ntohs(a->sin6_port), 0xB80F);
	assert_string_equal(inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip)), "::1");
	assert_int_equal(st, SOCKPORT_LISTEN);
	assert_int_equal(ino, 131729);
	/* no newline at the end */
	assert_int_equal(sockport_parse_line(V6_MAPPED, AF_INET6, &ss, &st, &ino), 0);
	assert_string_equal(inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip)), "::ffff:127.0.0.1");
	assert_int_equal(ntohs(a->sin6_port), 80);
	assert_int_equal(ino, 99);
}

static void test_parse_hostile(void **state)
{
	static const char *const v4_bad[] = {
		"",
		"   \n",
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n",
		"   0: 0100007F:1F90 00000000:0000 0A" TAIL "\n",			/* no inode */
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000\n",		/* cut */
		"   0: 0100007F:1F90 00000000:0000 0A" TAIL "123x 1\n",		/* inode junk */
		"   0: 0100007F:1F90 00000000:0000 0A" TAIL "-1 1\n",
		"   0: 0100007F:1F90 00000000:0000 0A" TAIL "99999999999999999999999 1\n",
		"   0: 0100007G:1F90 00000000:0000 0A" TAIL "1\n",		/* not hex */
		"   0: 0100007F:1F9 00000000:0000 0A" TAIL "1\n",		/* short port */
		"   0: 0100007F:1F900 00000000:0000 0A" TAIL "1\n",		/* long port */
		"   0: 100007F:1F90 00000000:0000 0A" TAIL "1\n",		/* short address */
		"   0: 0100007F-1F90 00000000:0000 0A" TAIL "1\n",
		"   0: 0100007F:1F90 00000000 0A" TAIL "1\n",			/* remote cut */
		"   0: 0100007F:1F90 00000000:0000 A" TAIL "1\n",		/* state */
		"   0: 0100007F:1F90 00000000:0000 0AA" TAIL "1\n",
		"   0 0100007F:1F90 00000000:0000 0A" TAIL "1\n",		/* slot */
		"   x: 0100007F:1F90 00000000:0000 0A" TAIL "1\n",
		V6_LOOP,							/* the other family */
	};
	struct sockaddr_storage ss;
	unsigned long long ino = 42;
	unsigned int st = 42;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v4_bad) / sizeof(v4_bad[0]); i++) {
		memset(&ss, 0x5a, sizeof(ss));
		if (sockport_parse_line(v4_bad[i], AF_INET, &ss, &st, &ino) != -EINVAL)
			fail_msg("accepted: '%s'", v4_bad[i]);
		/* nothing written on failure */
		assert_int_equal(ino, 42);
		assert_int_equal(st, 42);
		assert_int_equal(((unsigned char *)&ss)[0], 0x5a);
	}
	assert_int_equal(sockport_parse_line(V4_LISTEN, AF_INET6, &ss, &st, &ino), -EINVAL);
	assert_int_equal(sockport_parse_line(V4_LISTEN, AF_UNIX, &ss, &st, &ino), -EINVAL);
	/* an IPv6 address one digit short */
	assert_int_equal(sockport_parse_line("0: 0000000000000000000000000100000:0050 "
					     "00000000000000000000000000000000:0000 0A" TAIL "1",
					     AF_INET6, &ss, &st, &ino), -EINVAL);
}

static void test_socket_ino(void **state)
{
	unsigned long long ino = 0;

	(void)state;
	assert_int_equal(sockport_socket_ino("socket:[131729]", &ino), 0);
	assert_int_equal(ino, 131729);
	assert_int_equal(sockport_socket_ino("pipe:[131729]", &ino), -ENOTSOCK);
	assert_int_equal(sockport_socket_ino("socket:[]", &ino), -ENOTSOCK);
	assert_int_equal(sockport_socket_ino("socket:[12a]", &ino), -ENOTSOCK);
	assert_int_equal(sockport_socket_ino("socket:[123", &ino), -ENOTSOCK);
	assert_int_equal(sockport_socket_ino("socket:[99999999999999999999999]", &ino), -ENOTSOCK);
	assert_int_equal(sockport_socket_ino("/dev/null", &ino), -ENOTSOCK);
	assert_int_equal(ino, 131729);
}

/* A TCP socket of @family bound to loopback port 0 (@bind) or not, listening if @listen. */
static int tcp_socket(int family, int bind_it, int listen_it)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind_it && bind(fd, family == AF_INET ? (struct sockaddr *)&in : (struct sockaddr *)&in6,
			    family == AF_INET ? sizeof(in) : sizeof(in6)) < 0) {
		close(fd);
		return -1;
	}
	if (listen_it && listen(fd, 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* getsockname() of @fd. */
static void local_of(int fd, struct sockaddr_storage *ss, socklen_t *n)
{
	*n = sizeof(*ss);
	memset(ss, 0, sizeof(*ss));
	assert_int_equal(getsockname(fd, (struct sockaddr *)ss, n), 0);
}

/* The lookup finds what getsockname() says, for a listener of @family (bound or not). */
static void lookup_matches(int family, int bind_it)
{
	struct sockaddr_storage want, got;
	socklen_t n;
	int fd = tcp_socket(family, bind_it, 1);

	if (fd < 0 && family == AF_INET6 && errno == EAFNOSUPPORT)
		return;	/* a kernel without IPv6: nothing to compare */
	assert_true(fd >= 0);
	local_of(fd, &want, &n);
	assert_int_not_equal(((struct sockaddr_in *)&want)->sin_port, 0);
	memset(&got, 0, sizeof(got));
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd, AF_UNSPEC, &got), (int)n);
	assert_memory_equal(&got, &want, n);
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd, family, &got), (int)n);
	/* the other family's file has no such listener */
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd,
					 family == AF_INET ? AF_INET6 : AF_INET, &got), -ENOENT);
	close(fd);
	/* closed: gone */
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd, AF_UNSPEC, &got), -ENOENT);
}

static void test_lookup(void **state)
{
	(void)state;
	lookup_matches(AF_INET, 1);
	lookup_matches(AF_INET6, 1);
	/* autobind: listen() without bind() */
	lookup_matches(AF_INET, 0);
	lookup_matches(AF_INET6, 0);
}

static void *thread_lookup(void *arg)
{
	struct sockaddr_storage got;
	int fd = *(int *)arg;
	static int ret;

	ret = sockport_lookup(getpid(), gettid(), fd, AF_INET, &got);
	return &ret;
}

/* A listener looked up as one of its threads sees it (a worker thread's listen). */
static void test_lookup_thread(void **state)
{
	pthread_t t;
	void *ret;
	int fd = tcp_socket(AF_INET, 1, 1);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pthread_create(&t, NULL, thread_lookup, &fd), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_int_equal(*(int *)ret, (int)sizeof(struct sockaddr_in));
	close(fd);
}

static void test_lookup_none(void **state)
{
	struct sockaddr_storage got;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd, status;
	pid_t child;

	(void)state;
	/* bound, not listening */
	fd = tcp_socket(AF_INET, 1, 0);
	assert_true(fd >= 0);
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd, AF_UNSPEC, &got), -ENOENT);
	close(fd);
	/* not a socket */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd, AF_UNSPEC, &got), -ENOENT);
	close(fd);
	/* a listening unix socket (abstract: leaves no file) */
	snprintf(un.sun_path + 1, sizeof(un.sun_path) - 1, "boottrace-sockport-%d", (int)getpid());
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(sockport_lookup(getpid(), gettid(), fd, AF_UNSPEC, &got), -ENOENT);
	close(fd);
	/* a process that is gone, whose listener was fd 3 or so */
	fd = tcp_socket(AF_INET, 1, 1);
	assert_true(fd >= 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(sockport_lookup(child, child, fd, AF_UNSPEC, &got), -ENOENT);
	/* a tid that is not the process's */
	assert_int_equal(sockport_lookup(getpid(), child, fd, AF_UNSPEC, &got), -ENOENT);
	close(fd);
}

static void test_listen_addr(void **state)
{
	struct sockaddr_in bound = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 bound6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "/x" };
	struct sockaddr_storage want, got;
	socklen_t n;
	int fd = tcp_socket(AF_INET, 1, 1), fd6;

	(void)state;
	assert_true(fd >= 0);
	local_of(fd, &want, &n);
	/* bound to port 0: the port found */
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound, sizeof(bound), &got), n);
	assert_memory_equal(&got, &want, n);
	/* nothing bound known (autobind, another process's bind): the listener's address */
	memset(&got, 0, sizeof(got));
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, NULL, 0, &got), n);
	assert_memory_equal(&got, &want, n);
	/* bound to another address: the fd holds another socket now */
	bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound, sizeof(bound), &got), 0);
	/* IPv6 bound, the fd an IPv4 listener: not it */
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound6, sizeof(bound6), &got), 0);
	/* a port given: nothing to find */
	bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bound.sin_port = htons(80);
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound, sizeof(bound), &got), 0);
	/* not IPv4 or IPv6, or cut */
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &un, sizeof(un), &got), 0);
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound, 1, &got), 0);
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound, sizeof(bound) - 1,
					      &got), 0);
	close(fd);
	/* closed: port 0 stays */
	bound.sin_port = 0;
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd, &bound, sizeof(bound), &got), 0);

	fd6 = tcp_socket(AF_INET6, 1, 1);
	if (fd6 < 0 && errno == EAFNOSUPPORT)
		return;
	assert_true(fd6 >= 0);
	local_of(fd6, &want, &n);
	bound6.sin6_scope_id = 0;
	assert_int_equal(sockport_listen_addr(getpid(), gettid(), fd6, &bound6, sizeof(bound6), &got), n);
	assert_memory_equal(&got, &want, n);
	close(fd6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_v4),
		cmocka_unit_test(test_parse_v6),
		cmocka_unit_test(test_parse_hostile),
		cmocka_unit_test(test_socket_ino),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup_thread),
		cmocka_unit_test(test_lookup_none),
		cmocka_unit_test(test_listen_addr),
	};

	return cmocka_run_group_tests_name("collector_sockport", tests, NULL, NULL);
}
