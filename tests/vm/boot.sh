#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/vm/boot.sh VMLINUZ INITRAMFS OUT: boot one kernel under QEMU with
# make vmtest's initramfs (its /init runs the tests and powers off), the
# serial console in OUT.log, /usr/bin/time's "wall user system" seconds in
# OUT.time. Killed after VMTEST_TIMEOUT seconds (default 300): then, or
# when the VM stops without the init's end line, OUT.why says so (and
# tests/vm/matrix.sh counts each test it did not report as failed).
# VMTEST_SMP: vCPUs (default 1: two VMs at once fill two cores, and MTTCG
# with 2 vCPUs each cost 45 to 70% more CPU time for the same tests).
set -u
kernel=$1 initramfs=$2 out=$3
timeout=${VMTEST_TIMEOUT:-300}

# TCG: no KVM needed (and this machine's nested KVM cannot run QEMU).
# -cpu qemu64,-cx16: under Debian 12's QEMU (7.2), TCG, the 6.12 kernel
# died with a #GP at random places, at boot or soon after (do_sync_core's
# iretq with junk in the upper bits of the flags it pushed,
# kmem_cache_alloc), 8 boots out of 8. Without CX16 its slab allocator
# leaves cmpxchg16b (this_cpu_try_cmpxchg128) for its fallback, and the
# kernel has booted and run every time since (over 15 boots): TCG's
# cmpxchg16b, as far as we can tell.
# The command line:
#   norandmaps: TCG translates code per virtual address, so with ASLR every
#     exec translates ld.so, libc and bash again (measured: a fork+exec of
#     /bin/true 43 ms -> 16 ms);
#   mitigations=off, init_on_alloc=0: page-table isolation (a CR3 write, so
#     a full TLB flush in QEMU, at every kernel entry and exit) and the
#     zeroing of every page allocated were most of what was left of the
#     kernel's time (-> 10 ms; with norandmaps, the whole set on one kernel
#     163 s -> 86 s); transparent_hugepage=never: nor 2 MiB pages zeroed at
#     the first touch of a large mapping.
# None changes what a BPF program may do: the verifier's Spectre
# sanitising is off for root anyway (bpf_bypass_spec_v1/v4:
# perfmon_capable()).
append="console=ttyS0 panic=-1 quiet norandmaps mitigations=off init_on_alloc=0"
append="$append transparent_hugepage=never"

# (--foreground: in the process group tests/vm/vmtest.sh kills on an
# interrupt, not one of its own)
rm -f "$out.why"
/usr/bin/time -f '%e %U %S' -o "$out.time" timeout --foreground -k 5 "$timeout" \
	qemu-system-x86_64 -accel tcg -cpu qemu64,-cx16 -m 1G -smp "${VMTEST_SMP:-1}" \
	-nographic -nic none -no-reboot -kernel "$kernel" -initrd "$initramfs" \
	-append "$append" < /dev/null > "$out.log" 2>&1
rc=$?
if ! tr -d '\r' < "$out.log" | grep -aq '^vmtest: end '; then
	case $rc in
	124|137) echo "timed out after ${timeout}s (VMTEST_TIMEOUT)" ;;
	*) echo "the VM stopped before its end line (qemu exit $rc)" ;;
	esac > "$out.why"
fi
exit $rc
