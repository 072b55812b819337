#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/vm/vmtest.sh: make vmtest, the kernel matrix (docs/vmtest.md). The
# integration tests below run on each kernel in each of their modes (the
# "# modes:" line of each test: a mode lib.sh learns joins by itself): on
# Debian's kernels under QEMU, booted from an initramfs made from the build,
# all at once, and on the host's own kernel natively, meanwhile. Then
# tests/vm/matrix.sh prints the matrix kernel x mode and one closing line
# "N passed, N failed, N skipped", one result per kernel x test x mode.
#   VMTEST_KERNELS   which kernels (default "stock backports host"; stock
#                    and backports: tests/vm/kernels.sh; host: natively)
#   VMTEST_TESTS     which integration tests (default: the set below)
#   VMTEST_TIMEOUT   seconds a VM may run (default 300: tests/vm/boot.sh)
# The pieces: kernels.sh fetches the kernels, initramfs.sh packs the build
# with init (the VM's /init), boot.sh runs one VM, matrix.sh counts.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUTPUT=${OUTPUT:-build}
export OUTPUT
vm=$OUTPUT/vm
kernels=${VMTEST_KERNELS:-stock backports host}

# The tests that matter on another kernel: what the BPF side does there,
# in each mode and object.
#   count    every syscall of the container is a row, exactly, and none of
#            a process outside it (--syscalls filters in the kernel)
#   tree     a fork storm (1000 tasks, threads), a non-leader thread's
#            exec, orphans: every task attributed
#   spawn    start, exec, a child's fork and listen; socket addresses
#            (IPv4, IPv6) read in the kernel, a listener's port chosen by
#            the kernel (legacy, compat: found in /proc); --runs; stale
#            cgroups
#   watch    watch mode: containers seen from their cgroup's mkdir
#   nsinit   an exec's pid in its namespace (task->thread_pid, CO-RE)
#   pipes    the file behind an fd (files->fdt, CO-RE; bpf_rdonly_cast from
#            6.2, helper reads before: 6.1 takes the other path)
#   profile_kernel  --profile: perf events of the CPU clock, a
#            perf_event program, stacks with build ids (BPF_F_USER_BUILD_ID)
# NAME:MODE,...: those modes only. tree's forks are pidtree's to follow
# (cgroup mode has the task's cgroup id); nsinit and pipes are the modern
# object's (the others write \N), the same code in both its modes.
# profile_kernel runs in the modern object's two modes: the sampling
# program is the same code in both, but pidtree's lookups before its
# walkers took 6.1's verifier past 1,000,000 instructions once (the
# JVM's walker inlined), and only the pidtree run saw it.
# Left out, and why: docs/vmtest.md (test_marks_bootsvc, for time: it
# would add a third).
tests=${VMTEST_TESTS:-test_collector_count test_collector_tree:pidtree,legacy
test_collector_spawn test_collector_watch test_collector_nsinit:cgroup test_collector_pipes:cgroup
test_collector_sched test_analyze_critpath_sched test_collector_profile_kernel:cgroup,pidtree
test_collector_profile_remap:cgroup,pidtree}
# shellcheck disable=SC2086 # (split into names, joined on one line)
tests=$(printf "%s " $tests) tests=${tests% }

die() { echo "vmtest: $*" >&2; exit 1; }
for t in $tests; do
	[ -f "tests/integration/${t%%:*}.sh" ] || die "no test tests/integration/${t%%:*}.sh (VMTEST_TESTS)"
done
for c in qemu-system-x86_64 cpio /usr/bin/time; do
	command -v $c > /dev/null || die "no $c (make deps installs it)"
done
start=$(date +%s)
mkdir -p "$vm"
for k in $kernels; do rm -f "$vm/$k".{log,why,time,release}; done

# 1. the kernels, fetched once into $vm/kernels
for k in $kernels; do
	if [ "$k" = host ]; then
		uname -r > "$vm/$k.release"
		continue
	fi
	# (the lock: tests/stages.sh fetches them meanwhile, before the tests)
	flock "$vm/kernels.lock" tests/vm/kernels.sh "$vm/kernels" "$k" 2>&1 | tee "$vm/$k.err" >&2
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		cp "$vm/kernels/$k/release" "$vm/$k.release"
	else
		echo "not fetched: $(tail -1 "$vm/$k.err" | sed "s/^vmtest: //")" > "$vm/$k.why"
	fi
	rm -f "$vm/$k.err"
done

# 2. the initramfs, made anew each time from the build
printf 'VMTEST_CI=%q\nVMTEST_TESTS=%q\n' "${CI:-}" "$tests" > "$vm/vmtest.conf"
tests/vm/initramfs.sh "$vm/initramfs.cpio" "$vm/vmtest.conf" || die "cannot make the initramfs"

# 3. every kernel at once, each in a session of its own that an interrupt
# ends whole (a background job ignores SIGINT)
pids=()
stop() {
	local p
	for p in "${pids[@]}"; do kill -TERM -- -"$p" 2> /dev/null; done
	wait
	exit 130
}
trap stop INT TERM
for k in $kernels; do
	[ -s "$vm/$k.why" ] && continue
	if [ "$k" = host ]; then
		TESTS_ONLY=$tests setsid /usr/bin/time -f '%e %U %S' -o "$vm/$k.time" \
			tests/run.sh integration > "$vm/$k.log" 2>&1 &
	else
		setsid tests/vm/boot.sh "$vm/kernels/$k/vmlinuz" "$vm/initramfs.cpio" "$vm/$k" &
	fi
	pids+=($!)
done
wait
trap - INT TERM
echo "vmtest: $(($(date +%s) - start)) s, logs in $vm/"

# 4. the results
# shellcheck disable=SC2086 # (a list of names)
tests/vm/matrix.sh "$vm" "$tests" $kernels
