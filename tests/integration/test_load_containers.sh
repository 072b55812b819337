#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Load: 1,000 small containers in watch mode, twice in the same collector
# run (first each cgroup removed after its wave, then all 1,000 alive at
# once, removed at the end). Each is a cgroup directory of the test's own, running a tiny init
# (tests/tools/listen_once: a few syscalls and a listen, on 127.0.0.1:0 or
# on an abstract unix socket whose name carries the container's name),
# started in waves of $LOAD_WAVE so that 2 cores cope, and removed after.
# Checked, per round: every container has one start, an exec of
# listen_once, a successful listen and one end; rows are never mixed
# (every pid's rows carry one container; a unix listen's socket name is its
# own container's); the trailer's events equal the rows and nothing is lost
# (or, if the trailer reports losses, at most that many rows are missing);
# both rounds give the same counts. The collector's peak RSS (VmHWM) stays
# bounded and does not grow from round 1 to round 2. The whole test takes
# well under 2 minutes. LOAD_CONTAINERS=N changes the count.
# modes: cgroup compat
. "$(dirname "$0")/lib.sh"
need_root
N=${LOAD_CONTAINERS:-1000}
W=${LOAD_WAVE:-40}
# RSS bounds (KiB): the ring buffer alone is 8 MiB; ASan adds its shadow
hwm_limit=$((96 * 1024)) growth_limit=$((8 * 1024))
ldd "$OUTPUT/collector" 2>/dev/null | grep -q libasan && hwm_limit=$((384 * 1024)) growth_limit=$((48 * 1024))
[ -x "$TOOLS/listen_once" ] || fail "no $TOOLS/listen_once (make all)"
make_cgparent
cg2=$(cgroup2_mount)
rel=${CGPARENT#"$cg2"}
out=$TMP/load.tsv
t0=$(date +%s)

"$COLLECTOR" --cgroup "$rel/*" -o "$out" 2> "$TMP/err" & col=$!
cleanup_hooks+=("kill -KILL $col 2>/dev/null")
for _ in $(seq 200); do grep -q '^ts_ns' "$out" 2>/dev/null && break; sleep 0.025; done
grep -q '^ts_ns' "$out" || fail "collector did not start: $(cat "$TMP/err")"

hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$col/status"; }

# round R [all]: N containers in waves, each removed once its wave is done;
# with "all", the N cgroups are made first (all alive at once) and removed
# at the end.
round() {
	local r=$1 all=${2:-} i j k kind pids
	if [ -n "$all" ]; then
		for ((j = 1; j <= N; j++)); do mkdir "$CGPARENT/c$j" || fail "round $r: mkdir c$j"; done
	fi
	for ((i = 1; i <= N; i += W)); do
		pids=()
		for ((j = i; j < i + W && j <= N; j++)); do
			kind=inet; ((j % 2)) && kind=unix
			[ -n "$all" ] || mkdir "$CGPARENT/c$j" || fail "round $r: mkdir c$j"
			sh -c "echo \$\$ > $CGPARENT/c$j/cgroup.procs && exec $TOOLS/listen_once $kind c$j" &
			pids+=($!)
		done
		for k in "${pids[@]}"; do wait "$k" || fail "round $r: a container init failed (exit $?)"; done
		[ -n "$all" ] && continue
		for ((j = i; j < i + W && j <= N; j++)); do
			rmdir "$CGPARENT/c$j" 2>/dev/null || { sleep 0.05; rmdir "$CGPARENT/c$j"; } ||
				fail "round $r: rmdir c$j"
		done
	done
	if [ -n "$all" ]; then
		for ((j = 1; j <= N; j++)); do rmdir "$CGPARENT/c$j" || fail "round $r: rmdir c$j"; done
	fi
	kill -0 $col 2>/dev/null || fail "round $r: the collector died: $(cat "$TMP/err")"
}

round 1
sleep 0.5
hwm1=$(hwm)
t1=$(date +%s)
echo "   round 1: $N containers in $((t1 - t0)) s, collector VmHWM $hwm1 KiB"
round 2 all
sleep 0.5
hwm2=$(hwm)
t2=$(date +%s)
echo "   round 2: $N containers in $((t2 - t1)) s, collector VmHWM $hwm2 KiB"
kill -INT $col; wait $col || fail "collector exited $? on SIGINT: $(cat "$TMP/err")"
"$TOOLS/tsv_fields" < "$out" || fail "a row without 12 fields"
trailer=$(tail -1 "$out")
[[ "$trailer" =~ ^#\ lost=([0-9]+)\ events=([0-9]+)$ ]] || fail "no trailer: $trailer"
lost=${BASH_REMATCH[1]} events=${BASH_REMATCH[2]}
nrows=$(awk '/^#/ { next } !h { h = 1; next } { n++ } END { print n + 0 }' "$out")
[ "$events" -eq "$nrows" ] || fail "the trailer says events=$events, the file has $nrows rows"
echo "   $nrows rows, $trailer"

# One pass over the rows. Container names: cJ in round 1, cJ#2 in round 2
# (a name made again in the same run, as test_collector_watch checks).
awk -F'\t' -v n="$N" -v lost="$lost" -v listen_once="$TOOLS/listen_once" '
/^#/ { next }
!h { h = 1; next }
{
	c = $2; r = (c ~ /#2$/) ? 2 : 1; base = c; sub(/#2$/, "", base)
	if (base !~ /^c[0-9]+$/) { printf "a row of an unknown container %s: %s\n", c, $0; bad++; next }
	rows[r]++
	if ($8 == "start") start[c]++
	else if ($8 == "end") end_[c]++
	else if ($8 == "exec" && $12 ~ ("/listen_once$")) exec_[c]++
	else if ($8 == "syscall" && $9 == "listen" && $10 == 0) {
		listen[c]++
		j = substr(base, 2) + 0
		if (j % 2) {	# unix: the socket name carries the container name
			split($12, p, "-")
			if ($12 !~ /^@boottrace-c[0-9]+-[0-9]+$/ || p[2] != base) { printf "%s: unix listen detail %s\n", c, $12; bad++ }
		} else if ($12 !~ /^127\.0\.0\.1:[0-9]+$/) { printf "%s: tcp listen detail %s\n", c, $12; bad++ }
	}
	if ($4 != "\\N" && $8 != "end" && $8 != "start") {
		# per round: pid_max may be 32768, pids come back in the next round
		k = r SUBSEP $4
		if (k in owner && owner[k] != c) { printf "pid %s in %s and in %s\n", $4, owner[k], c; bad++ }
		owner[k] = c
	}
}
END {
	for (r = 1; r <= 2; r++) {
		miss = 0
		for (j = 1; j <= n; j++) {
			c = "c" j (r == 2 ? "#2" : "")
			if (start[c] != 1) { if (++shown < 10) printf "%s: %d start rows\n", c, start[c]; miss++ }
			if (exec_[c] < 1) { if (++shown < 10) printf "%s: no exec of listen_once\n", c; miss++ }
			if (listen[c] < 1) { if (++shown < 10) printf "%s: no successful listen\n", c; miss++ }
			if (end_[c] != 1) { if (++shown < 10) printf "%s: %d end rows\n", c, end_[c]; miss++ }
		}
		printf "round %d: %d rows, %d containers with a missing row\n", r, rows[r], miss > "/dev/stderr"
		total_miss += miss
	}
	if (total_miss > lost) { printf "%d rows missing, the trailer says %d lost\n", total_miss, lost; bad++ }
	if (rows[1] != rows[2]) printf "rounds differ: %d rows, then %d (%.2f%%)\n", rows[1], rows[2], 100 * (rows[2] - rows[1]) / rows[1] > "/dev/stderr"
	d = rows[2] - rows[1]; if (d < 0) d = -d
	if (!lost && d > rows[1] / 50) { printf "round 2 has %d rows, round 1 %d: more than 2%% apart\n", rows[2], rows[1]; bad++ }
	exit bad > 0
}' "$out" > "$TMP/problems" || fail "$(head -20 "$TMP/problems")"
[ "$lost" -eq 0 ] || echo "   WARNING: the collector lost $lost events (ring buffer full?)"

[ "$hwm2" -lt "$hwm_limit" ] || fail "collector peak RSS $hwm2 KiB, limit $hwm_limit KiB"
[ $((hwm2 - hwm1)) -lt "$growth_limit" ] ||
	fail "collector peak RSS grew by $((hwm2 - hwm1)) KiB from round 1 to round 2 (leak per container?)"
[ $((t2 - t0)) -lt 120 ] || fail "the test took $((t2 - t0)) s, more than 2 minutes"
ok "2 x $N containers in $((t2 - t0)) s: start, exec, listen, end each, never mixed; VmHWM $hwm1 -> $hwm2 KiB"
