/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * BPF features by the kernel release that first had them, for bpfcheck:
 * helper ids, map types, program types and attach kinds (as libbpf's
 * section names say them), and what the verifier came to allow. From the
 * kernel's own history: the commit that brought each, as listed in
 * bcc's docs/kernel-versions.md and checked against the order of
 * include/uapi/linux/bpf.h (see helper_since()).
 *
 * A version is KV(major, minor); KV_NEVER for what no kernel loads,
 * KV_UNKNOWN for what these tables do not know.
 */
#ifndef BPFCHECK_KERNEL_FEATURES_H
#define BPFCHECK_KERNEL_FEATURES_H

#include <stddef.h>
#include <string.h>

#define KV(major, minor) ((unsigned int)(major) * 256 + (unsigned int)(minor))
#define KV_MAJOR(v) ((v) / 256)
#define KV_MINOR(v) ((v) % 256)
#define KV_NEVER 0xfffe
#define KV_UNKNOWN 0xffff

/*
 * The oldest kernel bpfcheck reasons about, the project's oldest target:
 * what it checks of the verifier (no loops, stack-only map arguments,
 * 4096 instructions) is 4.15's; a floor below it would be unproven.
 */
#define KV_OLDEST KV(4, 15)

/*
 * Helpers. Their ids are given in the order they were merged (the
 * ___BPF_FUNC_MAPPER list of include/uapi/linux/bpf.h only grows at its
 * end), so each release added one range of ids: the table holds the
 * first id of each range, with the release and the commit of that first
 * helper. bcc's list has a few dates that break the order (ids 120-121,
 * 123-124, 126-129, 135); the order wins: a release ships a prefix of
 * the ids.
 */
static const struct helper_range {
	int first;
	unsigned int since;
	const char *commit;		/* of helper `first` */
} helper_ranges[] = {
	{ 1, KV(3, 19), "d0003ec01c66" },	/* map_lookup_elem */
	{ 4, KV(4, 1), "2541517c32be" },	/* probe_read */
	{ 12, KV(4, 2), "04fd61ab36ec" },	/* tail_call */
	{ 17, KV(4, 3), "8d20aabe1c76" },	/* get_cgroup_classid */
	{ 23, KV(4, 4), "27b29f63058d" },	/* redirect */
	{ 26, KV(4, 5), "05c74e5e53f6" },	/* skb_load_bytes */
	{ 27, KV(4, 6), "d5a3b1f69186" },	/* get_stackid */
	{ 31, KV(4, 8), "6578171a7ff0" },	/* skb_change_proto */
	{ 37, KV(4, 9), "60d20f9195b2" },	/* current_task_under_cgroup */
	{ 42, KV(4, 10), "2d0e30c30f84" },	/* get_numa_node_id */
	{ 45, KV(4, 11), "a5e8c07059d0" },	/* probe_read_str */
	{ 46, KV(4, 12), "91b8270f2a4d" },	/* get_socket_cookie */
	{ 48, KV(4, 13), "ded092cd73c2" },	/* set_hash */
	{ 51, KV(4, 14), "97f91a7cf04f" },	/* redirect_map */
	{ 54, KV(4, 15), "de8f3a83b0a0" },	/* xdp_adjust_meta; 57 getsockopt, cd86d1fd2102 */
	{ 58, KV(4, 16), "9802d86585db" },	/* override_return */
	{ 60, KV(4, 17), "4f738adba30a" },	/* msg_redirect_map */
	{ 65, KV(4, 18), "b32cc5b9a346" },	/* xdp_adjust_tail; 80 get_current_cgroup_id, bf6fa2c893c5 */
	{ 81, KV(4, 19), "cd3394317653" },	/* get_local_storage */
	{ 84, KV(4, 20), "6acc9b432e67" },	/* sk_lookup_tcp */
	{ 91, KV(5, 0), "7246d8ed4dcc" },	/* msg_pop_data */
	{ 93, KV(5, 1), "d83525ca62cf" },	/* spin_lock */
	{ 99, KV(5, 2), "edbf8c01de5a" },	/* skc_lookup_tcp */
	{ 109, KV(5, 3), "8b401f9ed244" },	/* send_signal; 5.4 added none */
	{ 111, KV(5, 5), "a7658e1a4164" },	/* skb_output; 113 probe_read_kernel, 6ae08ae3dea2 */
	{ 119, KV(5, 6), "fff7b64355ea" },	/* read_branch_records */
	{ 122, KV(5, 7), "f318903c0bf4" },	/* get_netns_cookie */
	{ 125, KV(5, 8), "71d19214776e" },	/* ktime_get_boot_ns; 130 ringbuf_output, 457f44363a88 */
	{ 136, KV(5, 9), "af7ec1383361" },	/* skc_to_tcp6_sock */
	{ 142, KV(5, 10), "0813a841566f" },	/* load_hdr_opt */
	{ 156, KV(5, 11), "4cf1bc1f1045" },	/* task_storage_get; 158 get_current_task_btf, 3ca1032ab7ab */
	{ 163, KV(5, 12), "34b2021cc616" },	/* check_mtu */
	{ 164, KV(5, 13), "69c087ba6225" },	/* for_each_map_elem */
	{ 166, KV(5, 14), "79a7f8bdb159" },	/* sys_bpf */
	{ 169, KV(5, 15), "b00628b1c7d5" },	/* timer_init; 174 get_attach_cookie, 7adfc6c9b315;
						   175 task_pt_regs, dd6e10fbd9fb */
	{ 176, KV(5, 16), "856c02dbce4f" },	/* get_branch_snapshot */
	{ 180, KV(5, 17), "7c7e3d31e785" },	/* find_vma */
	{ 186, KV(5, 18), "b44123b4a3dc" },	/* get_retval */
	{ 194, KV(5, 19), "c0a5a21c25f3" },	/* kptr_xchg */
	{ 204, KV(6, 0), "33bf9885040c" },	/* tcp_raw_gen_syncookie_ipv4 */
	{ 208, KV(6, 1), "c8996c98f703" },	/* ktime_get_tai_ns */
	{ 210, KV(6, 2), "c4bcfb38a95e" },	/* cgrp_storage_get */
};
/* The last id the table knows (211, cgrp_storage_delete, 6.2); later ones are KV_UNKNOWN. */
#define HELPER_LAST_KNOWN 211

/* The release that brought helper @id, or KV_UNKNOWN. */
static inline unsigned int helper_since(int id)
{
	size_t i, n = sizeof(helper_ranges) / sizeof(helper_ranges[0]);

	if (id < 1 || id > HELPER_LAST_KNOWN)
		return KV_UNKNOWN;
	for (i = n; i-- > 0;)
		if (id >= helper_ranges[i].first)
			return helper_ranges[i].since;
	return KV_UNKNOWN;
}

/* Map types (enum bpf_map_type), by value. */
static const struct map_type {
	const char *name;
	unsigned int since;
} map_types[] = {
	[1] = { "hash", KV(3, 19) },		[2] = { "array", KV(3, 19) },
	[3] = { "prog_array", KV(4, 2) },	[4] = { "perf_event_array", KV(4, 3) },
	[5] = { "percpu_hash", KV(4, 6) },	[6] = { "percpu_array", KV(4, 6) },
	[7] = { "stack_trace", KV(4, 6) },	[8] = { "cgroup_array", KV(4, 8) },
	[9] = { "lru_hash", KV(4, 10) },	[10] = { "lru_percpu_hash", KV(4, 10) },
	[11] = { "lpm_trie", KV(4, 11) },	[12] = { "array_of_maps", KV(4, 12) },
	[13] = { "hash_of_maps", KV(4, 12) },	[14] = { "devmap", KV(4, 14) },
	[15] = { "sockmap", KV(4, 14) },	[16] = { "cpumap", KV(4, 15) },
	[17] = { "xskmap", KV(4, 18) },		[18] = { "sockhash", KV(4, 18) },
	[19] = { "cgroup_storage", KV(4, 19) },	[20] = { "reuseport_sockarray", KV(4, 19) },
	[21] = { "percpu_cgroup_storage", KV(4, 20) }, [22] = { "queue", KV(4, 20) },
	[23] = { "stack", KV(4, 20) },		[24] = { "sk_storage", KV(5, 2) },
	[25] = { "devmap_hash", KV(5, 4) },	[26] = { "struct_ops", KV(5, 6) },
	[27] = { "ringbuf", KV(5, 8) },		[28] = { "inode_storage", KV(5, 10) },
	[29] = { "task_storage", KV(5, 11) },	[30] = { "bloom_filter", KV(5, 16) },
	[31] = { "user_ringbuf", KV(6, 1) },	[32] = { "cgrp_storage", KV(6, 2) },
	[33] = { "arena", KV(6, 9) },
};

/*
 * Program types and attach kinds, by libbpf's section names: a name ending
 * in '/' is a prefix, one ending in '*' a prefix without it ("bind4",
 * "bind6"); else the name alone or followed by '/'. More specific names
 * come first ("xdp/devmap" before "xdp"). What is not here is unknown.
 */
static const struct sec_kind {
	const char *name, *what;
	unsigned int since;
} sec_kinds[] = {
	{ "tp_btf/", "BTF-typed tracepoints (tracing programs, f1b9509c2fb0)", KV(5, 5) },
	{ "fentry.s/", "sleepable fentry (1e6c62a88215)", KV(5, 10) },
	{ "fexit.s/", "sleepable fexit (1e6c62a88215)", KV(5, 10) },
	{ "fentry/", "fentry (the BPF trampoline, fec56f5890d9)", KV(5, 5) },
	{ "fexit/", "fexit (the BPF trampoline)", KV(5, 5) },
	{ "fmod_ret/", "fmod_ret", KV(5, 7) }, { "freplace/", "freplace (extension programs)", KV(5, 6) },
	{ "raw_tp.w/", "writable raw tracepoints (9df1c28bb752)", KV(5, 2) },
	{ "raw_tracepoint.w/", "writable raw tracepoints (9df1c28bb752)", KV(5, 2) },
	{ "raw_tp/", "raw tracepoints (c4f6699dfcb8)", KV(4, 17) },
	{ "raw_tracepoint/", "raw tracepoints (c4f6699dfcb8)", KV(4, 17) },
	{ "tracepoint/", "tracepoints (98b5c2c65c29)", KV(4, 7) }, { "tp/", "tracepoints (98b5c2c65c29)", KV(4, 7) },
	{ "kprobe.multi", "multi-kprobes", KV(5, 18) }, { "kretprobe.multi", "multi-kprobes", KV(5, 18) },
	{ "uprobe.multi", "multi-uprobes", KV(6, 6) }, { "uretprobe.multi", "multi-uprobes", KV(6, 6) },
	{ "kprobe/", "kprobes (2541517c32be)", KV(4, 1) }, { "kretprobe/", "kretprobes (2541517c32be)", KV(4, 1) },
	{ "ksyscall/", "kprobes on syscalls", KV(4, 1) }, { "kretsyscall/", "kretprobes on syscalls", KV(4, 1) },
	/* uprobes: kprobe programs on uprobe events (04a22fae4cbc); libbpf attaches by the PMU or tracefs */
	{ "uprobe", "uprobes (04a22fae4cbc)", KV(4, 3) }, { "uretprobe", "uretprobes (04a22fae4cbc)", KV(4, 3) },
	{ "usdt", "USDT probes (uprobes)", KV(4, 3) },
	{ "perf_event", "perf event programs (0515e5999a46)", KV(4, 9) },
	{ "socket", "socket filters", KV(3, 19) }, { "sk_reuseport", "sk_reuseport", KV(4, 19) },
	{ "xdp.frags", "XDP with fragments", KV(5, 18) }, { "xdp/devmap", "devmap XDP", KV(5, 8) },
	{ "xdp/cpumap", "cpumap XDP", KV(5, 9) }, { "xdp", "XDP (6a773a15a1e8)", KV(4, 8) },
	{ "tcx/", "tcx", KV(6, 6) }, { "netkit/", "netkit", KV(6, 7) },
	{ "classifier", "tc classifiers", KV(4, 1) }, { "tc", "tc classifiers", KV(4, 1) },
	{ "action", "tc actions", KV(4, 1) },
	{ "lwt_seg6local", "seg6local LWT", KV(4, 18) }, { "lwt_in", "LWT", KV(4, 10) },
	{ "lwt_out", "LWT", KV(4, 10) }, { "lwt_xmit", "LWT", KV(4, 10) },
	{ "cgroup_skb/", "cgroup socket filters", KV(4, 10) }, { "cgroup/skb", "cgroup socket filters", KV(4, 10) },
	{ "cgroup/sock_release", "cgroup sock_release", KV(5, 9) },
	{ "cgroup/sock_create", "cgroup sock programs", KV(4, 10) }, { "cgroup/sock", "cgroup sock programs", KV(4, 10) },
	{ "cgroup/post_bind*", "cgroup post_bind", KV(4, 17) }, { "cgroup/bind*", "cgroup bind", KV(4, 17) },
	{ "cgroup/connect4", "cgroup connect", KV(4, 17) }, { "cgroup/connect6", "cgroup connect", KV(4, 17) },
	{ "cgroup/sendmsg*", "cgroup sendmsg", KV(4, 18) }, { "cgroup/recvmsg*", "cgroup recvmsg", KV(5, 2) },
	{ "cgroup/getpeername*", "cgroup getpeername", KV(5, 8) },
	{ "cgroup/getsockname*", "cgroup getsockname", KV(5, 8) }, { "cgroup/dev", "cgroup device programs", KV(4, 15) },
	{ "cgroup/sysctl", "cgroup sysctl", KV(5, 2) }, { "cgroup/getsockopt", "cgroup sockopt", KV(5, 3) },
	{ "cgroup/setsockopt", "cgroup sockopt", KV(5, 3) },
	{ "sockops", "sock_ops", KV(4, 13) }, { "sk_skb", "sk_skb", KV(4, 14) }, { "sk_msg", "sk_msg", KV(4, 17) },
	{ "lirc_mode2", "lirc_mode2", KV(4, 18) }, { "flow_dissector", "flow dissectors", KV(4, 20) },
	{ "struct_ops", "struct_ops", KV(5, 6) }, { "lsm.s/", "sleepable LSM programs (1e6c62a88215)", KV(5, 10) },
	{ "lsm/", "LSM programs (fc611f47f218)", KV(5, 7) }, { "iter/", "iterators (180139dca8b3)", KV(5, 8) },
	{ "sk_lookup", "sk_lookup", KV(5, 9) }, { "syscall", "syscall programs", KV(5, 14) },
	{ "netfilter", "netfilter programs", KV(6, 4) },
};

/* The kind of program section @name, or NULL when the table does not know it. */
static inline const struct sec_kind *sec_kind_of(const char *name)
{
	size_t i, n;

	for (i = 0; i < sizeof(sec_kinds) / sizeof(sec_kinds[0]); i++) {
		const char *k = sec_kinds[i].name;

		n = strlen(k);
		if (k[n - 1] == '*')
			n--;
		if (strncmp(name, k, n))
			continue;
		if (k[n] == '*' || k[n - 1] == '/' || name[n] == '\0' || name[n] == '/')
			return &sec_kinds[i];
	}
	return NULL;
}

/* What the verifier came to allow, and what else a program may need. */
#define KV_BPF_CALLS	KV(4, 16)	/* BPF-to-BPF calls, cc8b0b92a169 */
#define KV_MAP_VALUE_ARGS KV(4, 18)	/* map values as map helper keys/values, d71962f3e627 */
#define KV_JMP32	KV(5, 1)	/* cpu v3's jmp32, 092ed0968bb6 */
#define KV_GLOBAL_DATA	KV(5, 2)	/* .data .rodata .bss (and so libbpf's .kconfig), d8eca5bbb2be */
#define KV_1M_INSNS	KV(5, 2)	/* more than 4096 instructions, c04c0d2b968a */
#define KV_LOOPS	KV(5, 3)	/* bounded loops, 2589726d12a1 */
#define KV_KERNEL_BTF	KV(5, 4)	/* /sys/kernel/btf/vmlinux, where libbpf looks for CO-RE, 341dfcf8d78e */
#define KV_BTF_ID	KV(5, 10)	/* typed __ksym, 4976b718c355 */
#define KV_ATOMICS	KV(5, 12)	/* fetching and other atomics, 5ffa25502b5a */
#define KV_KFUNCS	KV(5, 13)	/* kernel function calls, e6ac2450d6de */
#define KV_CALLBACKS	KV(5, 13)	/* function addresses (callbacks), 69c087ba6225 */
#define KV_CPU_V4	KV(6, 6)	/* sign extension, sdiv, bswap, 1f9a1ea821ff */

#endif /* BPFCHECK_KERNEL_FEATURES_H */
