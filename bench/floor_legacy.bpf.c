// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The legacy object's floor for bench/collector.sh: two empty programs on
 * the classic tracepoints raw_syscalls:sys_enter and sys_exit, the only
 * way kernel 4.15 has (raw tracepoints came in 4.17). What every syscall
 * on the host pays with the legacy object, before it does anything.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tracepoint/raw_syscalls/sys_enter")
int floor_legacy_enter(void *ctx)
{
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int floor_legacy_exit(void *ctx)
{
	return 0;
}
