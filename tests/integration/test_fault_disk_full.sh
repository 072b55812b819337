#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Output on a full small tmpfs, filled at a random point (sizes 8..200 KiB,
# and a disk already full before the first byte): the collector exits
# non-zero with a message that names the file and the error, stops the
# container, leaves no cgroup, and what it wrote is valid complete rows — a
# prefix of a TSV: version line, metadata, header, rows of 12 fields, the
# last one ending with LF (never a row cut in the middle: a reader must not
# mistake it for a complete row). Spawn mode in every mode, watch mode in
# cgroup mode. FAULT_SEED=N replays one sequence of sizes.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
seed=${FAULT_SEED:-$$}
RANDOM=$seed
echo "# FAULT_SEED=$seed"
cg2=$(cgroup2_mount)
mnt=$TMP/small
mkdir "$mnt"
cleanup_hooks+=("umount $mnt 2>/dev/null")

# check_prefix FILE WHAT: complete lines only, each a valid part of a TSV
check_prefix() {
	local f=$1 what=$2 size
	size=$(stat -c %s "$f" 2>/dev/null || echo 0)
	if [ "$size" -eq 0 ]; then
		echo "   $what: nothing written"
		return 0
	fi
	[ "$(tail -c 1 "$f" | od -An -tx1 | tr -d ' ')" = 0a ] ||
		fail "$what: the file ($size bytes) ends in the middle of a line: '$(tail -c 80 "$f" | tr '\t\n' '  ')'"
	[ "$(head -1 "$f")" = "# boottrace-tsv 1" ] || fail "$what: no version line"
	awk 'NR > 1 && !/^#/ { exit $0 == "ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail" ? 0 : 1 }' "$f" ||
		fail "$what: the first line after the metadata is not the header"
	"$TOOLS/tsv_fields" < "$f" || fail "$what: a row without 12 fields"
	echo "   $what: $size bytes, $(grep -vc '^#' "$f") lines after the metadata, all whole"
}

run_full() { # run_full KIB WHAT COLLECTOR-ARGS...: collector onto a KIB tmpfs ($cpid)
	local kib=$1 what=$2 rc _
	shift 2
	mount -t tmpfs -o size=${kib}k tmpfs "$mnt" || fail "cannot mount a ${kib}k tmpfs"
	if [ "${PREFILL:-}" ]; then head -c $((kib * 1024)) /dev/zero > "$mnt/filler" 2>/dev/null; fi
	"$COLLECTOR" -o "$mnt/full.tsv" "$@" 2> "$TMP/err" & cpid=$!
	for _ in $(seq 1200); do kill -0 $cpid 2>/dev/null || break; sleep 0.05; done
	kill -0 $cpid 2>/dev/null && { kill -KILL $cpid; fail "$what: collector still running 60 s after the disk filled"; }
	wait $cpid; rc=$?
	[ $rc -ne 0 ] || fail "$what: exit 0 on a full disk"
	[ $rc -lt 128 ] || fail "$what: collector killed by signal $((rc - 128))"
	grep -q "$mnt/full.tsv" "$TMP/err" || fail "$what: the message does not name the file: $(cat "$TMP/err")"
	grep -q "No space left on device" "$TMP/err" || fail "$what: the message does not say why: $(cat "$TMP/err")"
	check_prefix "$mnt/full.tsv" "$what (exit $rc)"
	umount "$mnt" || fail "cannot umount $mnt"
}

# --- spawn mode ---------------------------------------------------------------
for i in 1 2 3 4; do
	kib=$((8 + RANDOM % 192))
	run_full $kib "spawn, ${kib} KiB" -- "$TOOLS/getppid_loop" 2000000
	[ -e "$cg2/boottrace.$cpid" ] && fail "spawn, ${kib} KiB: $cg2/boottrace.$cpid left behind"
done
PREFILL=1 run_full 64 "spawn, disk full before the start" -- "$TOOLS/getppid_loop" 1000
ok "spawn: full disk at random points: exit non-zero, named, whole rows only"

# --- watch mode ---------------------------------------------------------------
case $BT_MODE in pidtree | legacy) exit 0 ;; esac
make_cgparent
rel=${CGPARENT#"$cg2"}
for i in 1 2 3; do
	kib=$((8 + RANDOM % 192))
	d=$CGPARENT/w$i
	# the container starts once the collector is attached (its header written,
	# or it has already stopped), and runs until the collector gives up
	( for _ in $(seq 200); do
		grep -q '^ts_ns' "$mnt/full.tsv" 2>/dev/null && break
		[ -e "$TMP/stop" ] && exit 0
		sleep 0.025
	  done
	  mkdir "$d" && sh -c "echo \$\$ > $d/cgroup.procs && exec $TOOLS/getppid_loop 3000000" ) 2>/dev/null &
	ctr=$!
	run_full $kib "watch, ${kib} KiB" --cgroup "$rel/*"
	[ -f "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill"
	wait $ctr 2>/dev/null
	for _ in $(seq 100); do rmdir "$d" 2>/dev/null && break; sleep 0.02; done
done
ok "watch: full disk at random points: exit non-zero, named, whole rows only"
