#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile's user frames when the code at an address changes: the
# sampling program remembers each code region's build id by address space
# (bpf/buildids.bpf.h), and an unmap or a mapping over the region must end
# what it remembered. The known truth, tests/tools/remap: three threads of
# one process, one after the other, each spinning 150 ms of its CPU time
# in the code at spin_a's address; the first in libspin_a.so's pages, the
# second in libspin_b.so's text mapped over them (MAP_FIXED), the third in
# libspin_a.so's text mapped there again (munmap, then mmap at that
# address). The same code at the same offsets, two build ids (each
# library's one function on a stack is its spin): each thread's samples
# (999 Hz, frame pointers) name the file that ran, within 15% of its
# thread's CPU time, and none the other. Under QEMU's TCG (make vmtest, on
# 6.1 and 6.12) the CPU clock's hrtimer fires late and unevenly: there, a
# third of that at least. readelf and awk only (the VMs have no python).
# modes: cgroup pidtree compat
. "$(dirname "$0")/lib.sh"
need_root
have readelf "the build ids" || skip "needs readelf (binutils) to read the build ids"
for l in a b; do
	[ -e "$TOOLS/libspin_$l.so" ] || fail "no $TOOLS/libspin_$l.so: make first"
	eval "bid_$l=$(readelf -n "$TOOLS/libspin_$l.so" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')"
done
# shellcheck disable=SC2154 # (set by the eval above)
[ ${#bid_a} -eq 40 ] && [ ${#bid_b} -eq 40 ] && [ "$bid_a" != "$bid_b" ] ||
	fail "libspin_a.so's and libspin_b.so's build ids: '$bid_a' '$bid_b'"

"$COLLECTOR" --profile=999 --profile-unwind=fp -o "$TMP/r.tsv" -- "$TOOLS/remap" "$TOOLS" \
	> "$TMP/r.out" 2> "$TMP/r.err" || fail "collector exited $?: $(cat "$TMP/r.err")"
check_tsv "$TMP/r.tsv"
# samples BID TID: TID's samples whose stack holds a frame of the file of build id BID
samples() {
	awk -F'\t' -v bid="$1" -v tid="$2" '
	/^#/ || $1 == "ts_ns" { next }
	$8 == "stack" { has[$9] = index(" " $12, " b:" bid "+") > 0; next }
	$8 == "sample" && $5 == tid && has[$9] { n++ }
	END { print n + 0 }' "$TMP/r.tsv"
}
for p in 1 2 3; do
	read -r tid cpu < <(sed -n "s/^phase$p tid=\([0-9]*\) cpu_ns=\([0-9]*\)$/\1 \2/p" "$TMP/r.out")
	[ -n "$tid" ] || fail "remap printed no phase $p: $(cat "$TMP/r.out" "$TMP/r.err")"
	if [ $p = 2 ]; then ran=b other=a; else ran=a other=b; fi
	want=$((cpu / 1001001))
	bid=bid_$ran; got=$(samples "${!bid}" "$tid")
	bid=bid_$other; wrong=$(samples "${!bid}" "$tid")
	[ "$wrong" -eq 0 ] ||
		fail "phase $p: $wrong samples in libspin_$other.so, $got in libspin_$ran.so: the code that ran was libspin_$ran.so's"
	if under_tcg; then lo=33; else lo=85; fi
	[ "$((got * 100))" -ge "$((want * lo))" ] && [ "$((got * 100))" -le "$((want * 115))" ] ||
		fail "phase $p: $got samples in libspin_$ran.so for $((cpu / 1000000)) ms of CPU ($want expected)"
	ok "phase $p: $got samples in libspin_$ran.so for $((cpu / 1000000)) ms of CPU, none in libspin_$other.so"
done
