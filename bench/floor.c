// SPDX-License-Identifier: BSD-2-Clause
/*
 * floor OBJ [CGROUP]: load and attach every program of the BPF object OBJ
 * (bench/floor.bpf.o and the other bounds), print "attached", hold until
 * SIGINT or SIGTERM. With CGROUP (a cgroup v2 directory), an object with a
 * `filter` map (bench/compat_cgroup.bpf.c) traces the tasks of that cgroup:
 * its id goes in its slot, as the compat object's collector writes it.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/boottrace.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* @cgroup's id in @obj's filter; 0 or -1 after a message. */
static int trace_cgroup(struct bpf_object *obj, const char *cgroup)
{
	struct bpf_map *filter = bpf_object__find_map_by_name(obj, "filter");
	struct stat st;
	__u64 id;
	__u32 slot;

	/* on 5.5+ a cgroup's id is its directory's inode number */
	if (!filter || stat(cgroup, &st) < 0) {
		fprintf(stderr, "floor: no filter map, or no cgroup %s\n", cgroup);
		return -1;
	}
	id = st.st_ino;
	slot = (__u32)BT_FILTER_SLOT(id);
	return bpf_map__update_elem(filter, &slot, sizeof(slot), &id, sizeof(id), BPF_ANY) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: floor OBJ.bpf.o [CGROUP]\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load %s\n", argv[1]);
		return 1;
	}
	if (argc == 3 && trace_cgroup(obj, argv[2]) < 0)
		return 1;
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__attach(prog)) {
			fprintf(stderr, "floor: cannot attach %s\n", bpf_program__name(prog));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
