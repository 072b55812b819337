// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A BPF object that would not load on 4.15, once for each reason
 * tests/tools/bpfcheck must name (tests/integration/test_legacy_object.sh
 * checks it does): a ring buffer map (5.8), a global variable (5.2), a
 * loop (5.3), a helper newer than id 57, a BPF-to-BPF call (4.16), a
 * CO-RE read (no kernel BTF), a map key taken from a map value (5.2) and
 * a tp_btf program (5.5). Built with the legacy object's flags; never
 * loaded.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} bad_ringbuf SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} bad_hash SEC(".maps");

__u64 bad_counter;

/* A local type CO-RE relocates against the kernel's task_struct. */
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

static __noinline int bad_subprog(int x)
{
	return x * 3 + (int)bpf_get_prandom_u32();
}

SEC("tracepoint/syscalls/sys_enter_getpid")
int bad_prog(void *ctx)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	__u64 v = bpf_ktime_get_boot_ns();	/* helper 125 */
	int i, n = (int)(v & 15), pid;

#pragma clang loop unroll(disable)
	for (i = 0; i < n; i++)
		v += bpf_get_prandom_u32();
	pid = BPF_CORE_READ(t, pid);
	bad_counter += v + bad_subprog(pid);
	bpf_ringbuf_output(&bad_ringbuf, &v, sizeof(v), 0);
	return 0;
}

/* apart: bpfcheck follows values only through loop-free programs */
SEC("tracepoint/syscalls/sys_enter_getppid")
int bad_key_prog(void *ctx)
{
	__u32 zero = 0, *k = bpf_map_lookup_elem(&bad_hash, &zero);

	if (k)
		bpf_map_delete_elem(&bad_hash, k);	/* the key is in a map value */
	return 0;
}

SEC("tp_btf/sched_process_exit")
int bad_btf_prog(void *ctx)
{
	bad_counter++;
	return 0;
}
