// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The floor for bench/collector.sh: two empty programs on sys_enter and
 * sys_exit, attached the way the collector's are (tp_btf). What every
 * syscall on the host pays for any tracer of this kind, before filtering.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs *regs, long nr)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
