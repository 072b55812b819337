#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/vm/vmtest.sh: make vmtest, the kernel matrix (docs/vmtest.md). The
# integration tests below run on each kernel in each of their modes (the
# "# modes:" line of each test: cgroup, pidtree and legacy today, and any
# mode lib.sh learns later): on Debian's kernels booted under QEMU (TCG: no
# KVM needed) from an initramfs made from the build, all at once, and on the
# host's own kernel natively, meanwhile. Then the matrix kernel x mode, the
# output of each failed test, and one closing line "N passed, N failed,
# N skipped": one result per kernel x test x mode. A kernel that could not
# be fetched counts its tests as skipped (failed with CI=true, as any
# skip); a VM that died or timed out counts each test it did not report as
# failed.
#   VMTEST_KERNELS   which kernels (default "stock backports host"; stock
#                    and backports: tests/vm/kernels.sh)
#   VMTEST_TESTS     which integration tests (default: the set below)
#   VMTEST_TIMEOUT   seconds a VM may run before it is killed (default 300)
#   VMTEST_SMP       vCPUs a VM (default 1)
set -u
cd "$(dirname "$0")/../.." || exit 1
OUTPUT=${OUTPUT:-build}
export OUTPUT
vm=$OUTPUT/vm
kernels=${VMTEST_KERNELS:-stock backports host}
timeout=${VMTEST_TIMEOUT:-300}
smp=${VMTEST_SMP:-1}
ci=${CI:-}

# The tests that matter on another kernel: what the BPF side does there,
# in each mode and object.
#   count    every syscall of the container is a row, exactly, and none of
#            a process outside it (--syscalls filters in the kernel)
#   tree     a fork storm (1000 tasks, threads), a non-leader thread's
#            exec, orphans: every task attributed
#   spawn    start, exec, a child's fork and listen; socket addresses
#            (IPv4, IPv6) read in the kernel; --runs; stale cgroups
#   marks_bootsvc  uprobes, uretprobes and a USDT probe on that kernel,
#            filtered in the kernel
#   watch    watch mode: containers seen from their cgroup's mkdir
# Left out, and why: docs/vmtest.md.
default_tests="test_collector_count test_collector_tree test_collector_spawn
test_marks_bootsvc test_collector_watch"
tests=${VMTEST_TESTS:-$default_tests}

# The guest. -cpu qemu64,-cx16: Debian 12's QEMU (7.2) gets the flags
# wrong around cmpxchg16b under TCG, which the 6.12 kernel's slab
# allocator uses on its fast path (this_cpu_try_cmpxchg128): it died at
# boot with a #GP at random places (do_sync_core's iretq,
# kmem_cache_alloc) 6 times out of 6; without CX16 the kernel takes its
# fallback and boots every time. The command line: norandmaps: TCG translates code per virtual
# address, so with ASLR every exec translates ld.so, libc and bash again
# (measured: a fork+exec of /bin/true 43 ms -> 10 ms, the whole set 163 s
# -> 86 s on one kernel). mitigations=off, init_on_alloc=0: page-table
# isolation and the zeroing of every page allocated were most of what
# was left of the kernel's time. None changes what a BPF program may do:
# the verifier's Spectre sanitising is already off for root
# (bpf_bypass_spec_v1/v4: perfmon_capable()).
append="console=ttyS0 panic=-1 quiet norandmaps mitigations=off init_on_alloc=0"

die() { echo "vmtest: $*" >&2; exit 1; }
for c in qemu-system-x86_64 cpio; do
	command -v $c > /dev/null || die "no $c (make deps installs it)"
done
start=$(date +%s)
mkdir -p "$vm"
rm -f "$vm"/*.log "$vm"/*.rc "$vm"/*.why

# 1. the kernels (fetched once, kept under $vm/kernels)
declare -A release why
for k in $kernels; do
	if [ "$k" = host ]; then
		release[$k]=$(uname -r)
		continue
	fi
	if tests/vm/kernels.sh "$vm/kernels" "$k" 2> "$vm/$k.why"; then
		release[$k]=$(cat "$vm/kernels/$k/release")
	else
		cat "$vm/$k.why" >&2
		release[$k]=$k
		why[$k]="not fetched: $(tail -1 "$vm/$k.why")"
	fi
done

# 2. the initramfs, made anew each time from the build
printf 'VMTEST_CI=%q\nVMTEST_TESTS=%q\n' "$ci" "$(echo $tests)" > "$vm/vmtest.conf"
tests/vm/initramfs.sh "$vm/initramfs.cpio" "$vm/vmtest.conf" || die "cannot make the initramfs"

# 3. every kernel at once: the VMs, and the host natively
for k in $kernels; do
	[ -n "${why[$k]:-}" ] && continue
	if [ "$k" = host ]; then
		( CI=$ci TESTS_ONLY=$(echo $tests) tests/run.sh integration > "$vm/host.log" 2>&1
		  echo $? > "$vm/host.rc" ) &
		continue
	fi
	( timeout -k 5 "$timeout" qemu-system-x86_64 -accel tcg -cpu qemu64,-cx16 -m 1G \
		-smp "$smp" -nographic \
		-nic none -no-reboot -kernel "$vm/kernels/$k/vmlinuz" -initrd "$vm/initramfs.cpio" \
		-append "$append" < /dev/null > "$vm/$k.log" 2>&1
	  echo $? > "$vm/$k.rc" ) &
done
wait

# 4. the results: one per kernel x test x mode
expected=() # NAME or NAME[MODE], as tests/run.sh prints them
modes=()    # the matrix's columns, in the order the tests name them
for t in $tests; do
	f=tests/integration/$t.sh
	[ -f "$f" ] || die "no test $f"
	ms=$(sed -n 's/^# modes: //p' "$f")
	if [ -z "$ms" ]; then
		expected+=("$t")
		ms=auto
	else
		for m in $ms; do expected+=("$t[$m]"); done
	fi
	for m in $ms; do
		[[ " ${modes[*]} " == *" $m "* ]] || modes+=("$m")
	done
done
mode_of() { case $1 in *\[*\]) m=${1##*[}; echo "${m%]}" ;; *) echo auto ;; esac; }

passed=0 failed=0 skipped=0
declare -A cell_pass cell_all
failures=()
for k in $kernels; do
	log=$vm/$k.log
	if [ -z "${why[$k]:-}" ] && [ "$k" != host ]; then
		rc=$(cat "$vm/$k.rc" 2>/dev/null || echo '?')
		if ! tr -d '\r' < "$log" | grep -aq '^vmtest: end '; then
			if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
				why[$k]="timed out after ${timeout}s (VMTEST_TIMEOUT)"
			else
				why[$k]="the VM stopped before its end line (qemu exit $rc)"
			fi
			echo "vmtest: $k (${release[$k]}): ${why[$k]}; its log ends:"
			tr -d '\r' < "$log" | tail -15
		fi
	fi
	for e in "${expected[@]}"; do
		m=$(mode_of "$e")
		cell_all[$k,$m]=$(( ${cell_all[$k,$m]:-0} + 1 ))
		r=
		[ -f "$log" ] && r=$(tr -d '\r' < "$log" |
			awk -v n="$e" '$1 == "---" && ($3 == n || $3 == n ":") { print $2; exit }')
		if [ -z "$r" ] && [ ! -f "$log" ] && [ -n "${why[$k]:-}" ]; then
			r=SKIP # the kernel was not there
			[ "$ci" = true ] && r=FAIL
		fi
		case $r in
		PASS) passed=$((passed + 1)); cell_pass[$k,$m]=$(( ${cell_pass[$k,$m]:-0} + 1 )) ;;
		SKIP) skipped=$((skipped + 1)) ;;
		*) failed=$((failed + 1)); failures+=("$k $e") ;;
		esac
	done
done

# the output of each failed test, from its kernel's log
for f in "${failures[@]}"; do
	k=${f%% *} e=${f#* }
	echo "######## vmtest: FAIL $e on ${release[$k]} ($k)${why[$k]:+: ${why[$k]}}"
	[ -f "$vm/$k.log" ] && tr -d '\r' < "$vm/$k.log" |
		awk -v n="$e" '$1 == "===" && $2 == n { p = 1 } p { print } p && $1 == "---" { exit }' | tail -40
done

# the matrix
echo "######## vmtest: kernel x mode ($(( $(date +%s) - start ))s; logs in $vm/)"
printf '%-32s' kernel
for m in "${modes[@]}"; do printf ' %-10s' "$m"; done
echo
for k in $kernels; do
	printf '%-32s' "${release[$k]} ($k)"
	for m in "${modes[@]}"; do
		a=${cell_all[$k,$m]:-0} p=${cell_pass[$k,$m]:-0}
		if [ "$a" -eq 0 ]; then c=-
		elif [ "$p" -eq "$a" ]; then c="$p/$a ok"
		else c="$p/$a FAIL"
		fi
		printf ' %-10s' "$c"
	done
	[ -n "${why[$k]:-}" ] && printf ' %s' "${why[$k]}"
	echo
done
# the columns: lib.sh's BT_MODE cases, "auto" for a test without modes
sed -n 's/^\([a-z][a-z]*\)) mode_opts="\(.*\)" ;;$/  \1: collector \2/p' tests/integration/lib.sh
[[ " ${modes[*]} " == *" auto "* ]] && echo "  auto: collector without --mode or --object"
echo "  tests: $(echo $tests)"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
