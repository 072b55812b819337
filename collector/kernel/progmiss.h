/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Runs of the collector's BPF programs that the kernel skipped. A
 * tracepoint, kprobe or perf_event program does not run while another BPF
 * program runs on that CPU (bpf_prog_active: an interrupt's wake-up
 * inside a syscall's program, say), nor a tp_btf program inside itself;
 * the kernel drops the event and counts it per program
 * (bpf_prog_info.recursion_misses, 5.12+). Nothing else says so: what the
 * run would have written (a row, a wake-up's waker) is simply not there.
 * The collector reports the count at its end (main.c), as it reports what
 * the ring buffer lost.
 */
#ifndef COLLECTOR_PROGMISS_H
#define COLLECTOR_PROGMISS_H

struct bpf_object;

struct progmiss {
	unsigned long long total;	/* skipped runs, all programs */
	char worst[32];			/* the program with the most ("" when none) */
	unsigned long long worst_n;
};

/* The counts of @obj's loaded programs into @m (zeros on kernels that do not count). */
void progmiss_read(struct bpf_object *obj, struct progmiss *m);

#endif /* COLLECTOR_PROGMISS_H */
