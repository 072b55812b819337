// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The floor of a syscall *row* for bench/collector.sh: bench/floor.bpf.c's
 * two tp_btf programs plus the three helper calls no row of a start time
 * and a duration can do without: the current task at entry (whose cgroup
 * says whether it is traced, and whose pid and comm the row names) and
 * the clock at entry and at exit. Nothing is filtered or written: the
 * results go to globals only so that the calls are not dropped. What the
 * collector costs above this is what its filter, its in-flight table and
 * its batches cost; what this costs above the empty floor is what the
 * clock reads (read_tsc() is an ordered RDTSC: an LFENCE, then the
 * counter) and the helper calls' returns (return thunks on CPUs with
 * SRSO or retbleed mitigations) cost on this host.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_row_enter, struct pt_regs *regs, long nr)
{
	bpf_get_current_task_btf();
	bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_row_exit, struct pt_regs *regs, long ret)
{
	bpf_ktime_get_ns();
	return 0;
}
