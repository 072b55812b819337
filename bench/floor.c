// SPDX-License-Identifier: BSD-2-Clause
/*
 * floor OBJ: load and attach every program of the BPF object OBJ
 * (bench/floor.bpf.o), print "attached", hold until SIGINT or SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;

	if (argc != 2) {
		fprintf(stderr, "usage: floor OBJ.bpf.o\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load %s\n", argv[1]);
		return 1;
	}
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
