// SPDX-License-Identifier: BSD-2-Clause
/*
 * cmocka: collector/run/container_names.c: container names from cgroup
 * paths; collector/rows/names.c: the syscall table both ways, and socket
 * addresses as text; collector/kernel/proc.c's name_of_dead_collector().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector/kernel/proc.h"
#include "collector/rows/names.h"
#include "collector/run/container_names.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID12 "0123456789ab"

static void check_name(const char *path, const char *want)
{
	char out[128];
	char *r;

	memset(out, 'Z', sizeof(out));
	r = container_name_from_path(path, out, sizeof(out));
	assert_ptr_equal(r, out);
	assert_string_equal(out, want);
}

static void test_runtimes(void **state)
{
	(void)state;
	check_name("/system.slice/docker-" ID64 ".scope", "docker-" ID12);
	check_name("/docker/" ID64, "docker-" ID12);
	check_name("/machine.slice/libpod-" ID64 ".scope", "podman-" ID12);
	check_name("/kubepods.slice/kubepods-besteffort.slice/"
		   "kubepods-besteffort-pod1234.slice/cri-containerd-" ID64 ".scope",
		   "containerd-" ID12);
	check_name("/kubepods.slice/kubepods-pod1.slice/crio-" ID64 ".scope",
		   "crio-" ID12);
	/* without the .scope suffix too */
	check_name("/system.slice/docker-" ID64, "docker-" ID12);
	/* cgroupfs drivers: a bare 64-hex id under any parent */
	check_name("/p/" ID64, "docker-" ID12);
	check_name("/a/b/" ID64, "docker-" ID12);
	check_name("/x/docker/" ID12, "docker-" ID12);
	check_name("/libpod_parent/libpod-" ID64, "podman-" ID12);
	check_name("/p/libpod-" ID64, "podman-" ID12);
	check_name("/kubepods/burstable/pod0f4e6a1c-2b7d-4c8e-9a1b-3c5d7e9f1a2b/" ID64,
		   "containerd-" ID12);
	check_name("/kubepods/pod1/" ID64, "containerd-" ID12);
	check_name("/kubepods.slice/kubepods-burstable.slice/x/" ID64, "containerd-" ID12);
	check_name("/kubepodsx/pod1/" ID64, "docker-" ID12);
	/* exactly 12 hex digits is enough */
	check_name("/system.slice/docker-" ID12 ".scope", "docker-" ID12);
}

static void test_plain_names(void **state)
{
	(void)state;
	check_name("/system.slice/nginx.service", "nginx.service");
	check_name("/a/b/web-1", "web-1");
	check_name("/user.slice/user-1000.slice/session-2.scope", "session-2.scope");
	check_name("nginx.service", "nginx.service");
	check_name("/", "/");
}

static void test_runtime_or_not(void **state)
{
	char out[64] = "untouched";

	(void)state;
	assert_int_equal(container_runtime_name("/system.slice/nginx.service", out, sizeof(out)), 0);
	assert_int_equal(container_runtime_name("/docker", out, sizeof(out)), 0);
	assert_int_equal(container_runtime_name("/p/" ID12, out, sizeof(out)), 0);
	assert_string_equal(out, "untouched");
	assert_int_equal(container_runtime_name("/docker/" ID64, out, sizeof(out)), 1);
	assert_string_equal(out, "docker-" ID12);
}

static void test_not_a_runtime_id(void **state)
{
	(void)state;
	/* fewer than 12 hex digits: the basename as is */
	check_name("/system.slice/docker-abc123.scope", "docker-abc123.scope");
	check_name("/system.slice/docker-0123456789a.scope", "docker-0123456789a.scope");
	check_name("/docker/abc123", "abc123");
	/* hex followed by something other than .scope */
	check_name("/system.slice/docker-" ID64 ".mount", "docker-" ID64 ".mount");
	check_name("/system.slice/docker-" ID64 "x", "docker-" ID64 "x");
	check_name("/docker/" ID64 "x", ID64 "x");
	/* a short bare id counts under /docker only, exactly that directory */
	check_name("/notdocker/" ID12, ID12);
	check_name("/x/mydocker/" ID12, ID12);
	check_name("/" ID64 "0", ID64 "0");
	/* the prefix must start the basename */
	check_name("/x/mydocker-" ID64 ".scope", "mydocker-" ID64 ".scope");
}

static void test_truncation(void **state)
{
	char out[32];

	(void)state;
	memset(out, 'Z', sizeof(out));
	container_name_from_path("/system.slice/docker-" ID64 ".scope", out, 10);
	assert_string_equal(out, "docker-01");
	assert_int_equal(out[10], 'Z');

	memset(out, 'Z', sizeof(out));
	container_name_from_path("/system.slice/nginx.service", out, 6);
	assert_string_equal(out, "nginx");
	assert_int_equal(out[6], 'Z');

	memset(out, 'Z', sizeof(out));
	container_name_from_path("/docker/" ID64, out, 1);
	assert_int_equal(out[0], '\0');
	assert_int_equal(out[1], 'Z');

	memset(out, 'Z', sizeof(out));
	container_name_from_path("/docker/" ID64, out, 0);
	assert_int_equal(out[0], 'Z');
}

static void test_syscall_names(void **state)
{
	(void)state;
	assert_non_null(syscall_name(0));
	assert_string_equal(syscall_name(0), "read");
	assert_string_equal(syscall_name(39), "getpid");
	assert_string_equal(syscall_name(110), "getppid");
	assert_string_equal(syscall_name(257), "openat");
	assert_null(syscall_name(100000));
	assert_null(syscall_name(UINT32_MAX));
	assert_int_equal(syscall_nr("openat"), 257);
	assert_int_equal(syscall_nr("read"), 0);
	assert_int_equal(syscall_nr("nope"), -1);
	assert_int_equal(syscall_nr(""), -1);
}

static void test_syscall_round_trip(void **state)
{
	unsigned int i, named = 0;

	(void)state;
	for (i = 0; i < 4096; i++) {
		const char *n = syscall_name(i);

		if (!n)
			continue;
		named++;
		assert_true(n[0] != '\0');
		assert_int_equal(syscall_nr(n), (int)i);
	}
	assert_true(named > 300);
}

static size_t fmt_in4(const char *ip, unsigned short port, char *out, size_t n)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
	return sockaddr_format(&a, sizeof(a), out, n);
}

static void test_sockaddr_inet(void **state)
{
	char out[64];
	size_t n;

	(void)state;
	n = fmt_in4("127.0.0.1", 8080, out, sizeof(out));
	assert_string_equal(out, "127.0.0.1:8080");
	assert_int_equal(n, strlen("127.0.0.1:8080"));
	n = fmt_in4("255.255.255.255", 65535, out, sizeof(out));
	assert_string_equal(out, "255.255.255.255:65535");
	assert_int_equal(n, strlen(out));
	/* truncated: NUL-terminated, the length of what fits */
	memset(out, 'Z', sizeof(out));
	n = fmt_in4("127.0.0.1", 8080, out, 6);
	assert_string_equal(out, "127.0");
	assert_int_equal(n, 5);
	assert_int_equal(out[6], 'Z');
}

static void test_sockaddr_inet6(void **state)
{
	struct sockaddr_in6 a;
	char out[80];
	size_t n;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons(443);
	a.sin6_addr = in6addr_loopback;
	n = sockaddr_format(&a, sizeof(a), out, sizeof(out));
	assert_string_equal(out, "[::1]:443");
	assert_int_equal(n, strlen("[::1]:443"));

	assert_int_equal(inet_pton(AF_INET6, "2001:db8::8:800:200c:417a", &a.sin6_addr), 1);
	a.sin6_port = htons(53);
	n = sockaddr_format(&a, sizeof(a), out, sizeof(out));
	assert_string_equal(out, "[2001:db8::8:800:200c:417a]:53");
	assert_int_equal(n, strlen(out));
}

static void test_sockaddr_unix(void **state)
{
	struct sockaddr_un a;
	char out[128];
	size_t n, len, i;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	strcpy(a.sun_path, "/run/dbus/system_bus_socket");
	len = offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1;
	n = sockaddr_format(&a, len, out, sizeof(out));
	assert_string_equal(out, "/run/dbus/system_bus_socket");
	assert_int_equal(n, strlen(out));
	/* the full struct length: the path stops at its NUL */
	n = sockaddr_format(&a, sizeof(a), out, sizeof(out));
	assert_string_equal(out, "/run/dbus/system_bus_socket");
	assert_int_equal(n, strlen(out));
	/* a path without a NUL, bounded by len */
	len = offsetof(struct sockaddr_un, sun_path) + 4;
	n = sockaddr_format(&a, len, out, sizeof(out));
	assert_string_equal(out, "/run");
	assert_int_equal(n, 4);
	/* truncated to the output */
	memset(out, 'Z', sizeof(out));
	n = sockaddr_format(&a, sizeof(a), out, 5);
	assert_string_equal(out, "/run");
	assert_int_equal(n, 4);
	assert_int_equal(out[5], 'Z');
	/* a relative path: "./" in front, unless it starts with '.' */
	static const char *const rel[][2] = {
		{ "@x", "./@x" }, { "sock", "./sock" }, { "unix:unnamed", "./unix:unnamed" },
		{ "10.0.0.1:80", "./10.0.0.1:80" }, { "[::1]:1", "./[::1]:1" },
		{ "family=1", "./family=1" }, { ".hidden", ".hidden" }, { "../up", "../up" },
		{ "\\N\t", "./\\N\t" },
	};
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.sun_family = AF_UNIX;
		strcpy(a.sun_path, rel[i][0]);
		len = offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1;
		n = sockaddr_format(&a, len, out, sizeof(out));
		assert_string_equal(out, rel[i][1]);
		assert_int_equal(n, strlen(rel[i][1]));
	}
	/* the prefix counts in the output's size too */
	strcpy(a.sun_path, "@abc");
	memset(out, 'Z', sizeof(out));
	n = sockaddr_format(&a, sizeof(a), out, 4);
	assert_string_equal(out, "./@");
	assert_int_equal(n, 3);
	assert_int_equal(out[4], 'Z');
	n = sockaddr_format(&a, sizeof(a), out, 2);
	assert_string_equal(out, ".");
	assert_int_equal(n, 1);
	n = sockaddr_format(&a, sizeof(a), out, 1);
	assert_string_equal(out, "");
	assert_int_equal(n, 0);
	strcpy(a.sun_path, "/run/dbus/system_bus_socket");
	/* unnamed: only the family */
	n = sockaddr_format(&a, sizeof(sa_family_t), out, sizeof(out));
	assert_string_equal(out, "unix:unnamed");
	assert_int_equal(n, strlen("unix:unnamed"));
	/* truncated: the length is what was written, as for the others */
	memset(out, 'Z', sizeof(out));
	n = sockaddr_format(&a, sizeof(sa_family_t), out, 5);
	assert_string_equal(out, "unix");
	assert_int_equal(n, 4);
	assert_int_equal(out[5], 'Z');
}

static void test_sockaddr_unix_abstract(void **state)
{
	struct sockaddr_un a;
	char out[128];
	size_t n, len;

	(void)state;
	memset(&a, 'Q', sizeof(a));
	a.sun_family = AF_UNIX;
	a.sun_path[0] = '\0';
	memcpy(a.sun_path + 1, "name", 4);
	/* the length comes from len, not a NUL: the 'Q's after are not read */
	len = offsetof(struct sockaddr_un, sun_path) + 1 + 4;
	n = sockaddr_format(&a, len, out, sizeof(out));
	assert_int_equal(n, 5);
	assert_memory_equal(out, "@name", 5);
	assert_int_equal(out[5], '\0');
	/* embedded NULs are kept */
	memcpy(a.sun_path + 1, "a\0b", 3);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + 3;
	n = sockaddr_format(&a, len, out, sizeof(out));
	assert_int_equal(n, 4);
	assert_memory_equal(out, "@a\0b", 4);
	/* truncated to the output */
	memcpy(a.sun_path + 1, "name", 4);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + 4;
	memset(out, 'Z', sizeof(out));
	n = sockaddr_format(&a, len, out, 4);
	assert_int_equal(n, 3);
	assert_string_equal(out, "@na");
	assert_int_equal(out[4], 'Z');
	memset(out, 'Z', sizeof(out));
	n = sockaddr_format(&a, len, out, 2);
	assert_int_equal(n, 1);
	assert_string_equal(out, "@");
	assert_int_equal(out[2], 'Z');
	/* a one-byte output holds only the NUL */
	memset(out, 'Z', sizeof(out));
	n = sockaddr_format(&a, len, out, 1);
	assert_int_equal(n, 0);
	assert_int_equal(out[0], '\0');
	assert_int_equal(out[1], 'Z');
	assert_int_equal(out[2], 'Z');
}

static void test_sockaddr_other(void **state)
{
	unsigned char raw[32];
	sa_family_t fam = AF_NETLINK;
	char out[64];
	size_t n;

	(void)state;
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &fam, sizeof(fam));
	n = sockaddr_format(raw, sizeof(raw), out, sizeof(out));
	snprintf((char *)raw + 16, 16, "family=%u", (unsigned)AF_NETLINK);
	assert_string_equal(out, (char *)raw + 16);
	assert_int_equal(n, strlen(out));

	/* too short to hold a family */
	memset(out, 'Z', sizeof(out));
	assert_int_equal(sockaddr_format(raw, 1, out, sizeof(out)), 0);
	assert_int_equal(out[0], '\0');
	assert_int_equal(sockaddr_format(raw, 0, out, sizeof(out)), 0);
	assert_int_equal(out[0], '\0');
	/* no room at all: nothing written */
	memset(out, 'Z', sizeof(out));
	assert_int_equal(sockaddr_format(raw, sizeof(raw), out, 0), 0);
	assert_int_equal(out[0], 'Z');
}

/* A name made of a prefix and the pid of a process that is gone. */
static void test_pipe_format(void **state)
{
	char out[64];
	size_t n;

	(void)state;
	n = pipe_format(false, 112318, out, sizeof(out));
	assert_string_equal(out, "pipe:[112318]");
	assert_int_equal(n, strlen("pipe:[112318]"));
	n = pipe_format(true, 10963016, out, sizeof(out));
	assert_string_equal(out, "fifo:[10963016]");
	assert_int_equal(n, strlen(out));
	/* a FIFO's number is its file system's: any 64-bit value */
	n = pipe_format(true, 18446744073709551615ULL, out, sizeof(out));
	assert_string_equal(out, "fifo:[18446744073709551615]");
	assert_int_equal(n, strlen(out));
	n = pipe_format(false, 0, out, sizeof(out));
	assert_string_equal(out, "pipe:[0]");
	/* truncated: the length is what was written, NUL-terminated */
	memset(out, 'Z', sizeof(out));
	n = pipe_format(false, 123456, out, 8);
	assert_string_equal(out, "pipe:[1");
	assert_int_equal(n, 7);
	assert_int_equal(out[8], 'Z');
	n = pipe_format(false, 1, out, 1);
	assert_string_equal(out, "");
	assert_int_equal(n, 0);
	/* no room at all: nothing written */
	out[0] = 'Z';
	assert_int_equal(pipe_format(false, 1, out, 0), 0);
	assert_int_equal(out[0], 'Z');
}

static void test_name_of_dead_collector(void **state)
{
	char name[64];
	pid_t dead;

	(void)state;
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	snprintf(name, sizeof(name), "boottrace.%d", (int)dead);
	assert_true(name_of_dead_collector(name, "boottrace."));
	assert_false(name_of_dead_collector(name, "boottrace_"));
	snprintf(name, sizeof(name), "boottrace.%d", (int)getpid());
	assert_false(name_of_dead_collector(name, "boottrace."));	/* alive */
	snprintf(name, sizeof(name), "boottrace.%dx", (int)dead);
	assert_false(name_of_dead_collector(name, "boottrace."));	/* digits only */
	assert_false(name_of_dead_collector("boottrace.", "boottrace."));
	assert_false(name_of_dead_collector("boottrace.-1", "boottrace."));
	assert_false(name_of_dead_collector("boottrace.99999999999999999999", "boottrace."));
}


#define UID "0f4e6a1c-2b7d-4c8e-9a1b-3c5d7e9f1a2b"
#define UID_ "0f4e6a1c_2b7d_4c8e_9a1b_3c5d7e9f1a2b"

static void check_kube(const char *path, const char *qos, const char *uid, const char *rt,
		       const char *id, bool conmon)
{
	struct kube_path kp;

	assert_true(cgroup_path_kube(path, strlen(path), &kp));
	assert_true(kp.kubepods);
	assert_string_equal(kp.qos, qos);
	assert_string_equal(kp.pod_uid, uid);
	assert_string_equal(kp.runtime, rt);
	assert_string_equal(kp.id, id);
	assert_int_equal(kp.conmon, conmon);
}

/* The kubelet's layouts, both drivers (FLEET.md): QoS, pod uid, runtime, id. */
static void test_kube_paths(void **state)
{
	struct kube_path kp;

	(void)state;
	check_kube("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
		   ".slice/cri-containerd-" ID64 ".scope", "burstable", UID, "containerd", ID64, false);
	check_kube("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
		   ".slice/crio-" ID64 ".scope", "besteffort", UID, "crio", ID64, false);
	check_kube("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" ID64 ".scope",
		   "guaranteed", UID, "docker", ID64, false);
	check_kube("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
		   ".slice/crio-conmon-" ID64 ".scope", "burstable", UID, "", "", true);
	check_kube("/kubepods/burstable/pod" UID "/" ID64, "burstable", UID, "containerd", ID64,
		   false);
	check_kube("/kubepods/pod" UID "/" ID64, "guaranteed", UID, "containerd", ID64, false);
	check_kube("kubepods/besteffort/pod" UID "/crio-" ID64, "besteffort", UID, "crio", ID64,
		   false);
	/* the parents alone: under kubepods, no pod yet */
	check_kube("/kubepods/burstable", "burstable", "", "", "", false);
	check_kube("/kubepods.slice", "", "", "", "", false);
	/* a slice without kubepods.slice above it (a nested cgroup mount) */
	check_kube("/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-"
		   ID64 ".scope", "burstable", UID, "containerd", ID64, false);
	/* only n bytes count */
	assert_true(cgroup_path_kube("/kubepods/pod" UID "/" ID64, 9, &kp));
	assert_string_equal(kp.pod_uid, "");
	assert_false(cgroup_path_kube("/kubepodsX/pod1/" ID64, 20, &kp));
	assert_false(cgroup_path_kube("/system.slice/docker-" ID64 ".scope", 80, &kp));
	assert_false(kp.kubepods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_kube_paths),
		cmocka_unit_test(test_plain_names),
		cmocka_unit_test(test_runtime_or_not),
		cmocka_unit_test(test_not_a_runtime_id),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_syscall_names),
		cmocka_unit_test(test_syscall_round_trip),
		cmocka_unit_test(test_sockaddr_inet),
		cmocka_unit_test(test_sockaddr_inet6),
		cmocka_unit_test(test_sockaddr_unix),
		cmocka_unit_test(test_sockaddr_unix_abstract),
		cmocka_unit_test(test_sockaddr_other),
		cmocka_unit_test(test_pipe_format),
		cmocka_unit_test(test_name_of_dead_collector),
	};

	return cmocka_run_group_tests_name("collector_names", tests, NULL, NULL);
}
