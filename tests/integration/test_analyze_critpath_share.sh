#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Who held the CPU of a runnable stretch on the critical path, a known
# truth: a SCHED_FIFO task outside the container (tests/tools/sched_probe
# hog, chrt -f, pinned with taskset) holds the CPU of the container's task
# (sched_probe hogged, pinned to the same CPU) for 100 ms just before it
# listens. With host rows (--sched host) the stretch of ~100 ms names the
# hog, bt-hog, with >= 90% of it in the text and the JSON, whoever ran
# last (a kworker often does: the holder= of the sched row); three runs,
# every one (a run whose hog never held the CPU is tried again). The legacy and compat objects write no host rows: the hog is
# not in the file, and the stretch says that >= 90% of it is unknown
# rather than giving a share to whoever ran last.
# Then the boot's own hog (sched_probe forkhog): a child it forks, which
# renames itself bt-fhog with prctl(PR_SET_NAME) once it runs, makes
# itself SCHED_FIFO and holds the boot's CPU 100 ms: named by its new name
# and its pid (not the boot's comm, which it had when it got the CPU),
# >= 90%, in every mode, two runs. In every run the shares of each
# runnable stretch sum to 100% at most.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

ms=1000000
# Do the shares of a runnable stretch of JSON file $1 ever sum over 100%?
over100() {
	python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["critical_path"]["containers"]:
    for s in c["segments"]:
        if sum(x["ns"] for x in s.get("cpu_shares", [])) > s["dur"]:
            print("over 100%:", s)
            sys.exit(1)
PY
}
cpu=$(($(nproc) - 1))
# three runs in which the hog did hold the CPU (a stretch of >= 90 ms);
# on a shared machine the workload itself fails now and then (once in
# about 20: the hog's task late, the hogged one never preempted), which
# says nothing of the analysis: such a run is tried again, 6 tries at most
run=0 good=0
while [ $good -lt 3 ]; do
	run=$((run + 1))
	[ $run -le 6 ] || fail "only $good of $((run - 1)) runs had the hog hold the CPU"
	f=$TMP/fifo$run
	mkfifo "$f"
	taskset -c $cpu chrt -f 10 "$TOOLS/sched_probe" hog "$f" > "$TMP/hog$run.out" & hog=$!
	cleanup_hooks+=("kill $hog 2>/dev/null")
	"$COLLECTOR" --sched host --until listen --name hg -o "$TMP/h$run.tsv" -- \
		taskset -c $cpu "$TOOLS/sched_probe" hogged "$f" > "$TMP/hd$run.out" 2> "$TMP/c$run.err" ||
		fail "collector exited $?: $(cat "$TMP/c$run.err")"
	wait $hog || fail "the hog exited $?"
	check_tsv "$TMP/h$run.tsv"
	t=$(sed -n 's/^hogged=//p' "$TMP/hd$run.out")
	"$ANALYZE" "$TMP/h$run.tsv" --critical-path --format tsv > "$TMP/p$run.tsv" || fail "analyze exited $?"
	"$ANALYZE" "$TMP/h$run.tsv" --critical-path --format json > "$TMP/p$run.json" || fail "json exited $?"
	# the stretch: the hogged task's runnable segment of >= 90 ms
	seg=$(awk -F'\t' -v t="$t" -v m=$ms '$4 == t && $10 == "runnable" && $8 >= 90 * m' "$TMP/p$run.tsv")
	# the hogged task ran on through the hog's 100 ms: the workload failed
	if ! grep -q . <<< "$seg" && awk -F'\t' -v t="$t" -v m=$ms '$4 == t && $10 == "running" && $8 >= 90 * m { f = 1 }
		END { exit !f }' "$TMP/p$run.tsv"; then
		echo "# run $run: the hog never held the CPU (the hogged task ran 90 ms on): again"
		continue
	fi
	[ "$(echo "$seg" | grep -c .)" -eq 1 ] || fail "run $run: not one runnable segment of >= 90 ms of $t: $(cat "$TMP/p$run.tsv")"
	det=$(echo "$seg" | cut -f9)
	share() { # the JSON's share of comm $1 in the stretch, or of the unknown rest
		python3 - "$TMP/p$run.json" "$t" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["critical_path"]["containers"]:
    for s in c["segments"]:
        if s["tid"] == int(sys.argv[2]) and s["state"] == "runnable" and s["dur"] >= 90e6:
            if sys.argv[3] == "-":
                print(0 if s["cpu_rest_known"] else s["cpu_unaccounted_ns"] / s["dur"])
            else:
                print(sum(x["share"] for x in s["cpu_shares"] if x["comm"] == sys.argv[3]))
PY
	}
	if perf_object; then
		# no host rows: the rest is said unknown, the hog never guessed
		[[ "$det" =~ unknown\ (9[0-9]|100)%\ \(no\ host\ rows ]] ||
			fail "run $run: the stretch does not say >= 90% unknown: $det"
		[[ "$det" =~ held\ by\ unknown ]] || fail "run $run: a share named without host rows: $det"
		awk -v s="$(share -)" 'BEGIN { exit !(s >= 0.9) }' ||
			fail "run $run: the JSON's unknown part is $(share -): $(cat "$TMP/p$run.json")"
	else
		h=$(sed -n 's/^hog=//p' "$TMP/hog$run.out")
		[[ "$det" =~ ^CPU\ $cpu\ held\ by\ bt-hog\ $h\ (9[0-9]|100)% ]] ||
			fail "run $run: the stretch does not name bt-hog $h >= 90%: $det"
		awk -v s="$(share bt-hog)" 'BEGIN { exit !(s >= 0.9) }' ||
			fail "run $run: the JSON's share of bt-hog is $(share bt-hog): $(cat "$TMP/p$run.json")"
	fi
	over100 "$TMP/p$run.json" || fail "run $run: shares over 100%"
	good=$((good + 1))
	ok "run $run: $(($(echo "$seg" | cut -f8) / ms)) ms runnable: $det"
done

# the boot's own hog, renamed after it got the CPU
run=0 good=0
while [ $good -lt 2 ]; do
	run=$((run + 1))
	[ $run -le 4 ] || fail "only $good of $((run - 1)) runs had the forked hog hold the CPU"
	"$COLLECTOR" --until listen --name fh -o "$TMP/f$run.tsv" -- \
		taskset -c $cpu "$TOOLS/sched_probe" forkhog > "$TMP/fo$run.out" 2> "$TMP/fc$run.err" ||
		fail "collector exited $?: $(cat "$TMP/fc$run.err")"
	check_tsv "$TMP/f$run.tsv"
	t=$(sed -n 's/^hogged=\([0-9]*\) .*/\1/p' "$TMP/fo$run.out")
	h=$(sed -n 's/.* hog=//p' "$TMP/fo$run.out")
	"$ANALYZE" "$TMP/f$run.tsv" --critical-path --format tsv > "$TMP/fp$run.tsv" || fail "analyze exited $?"
	"$ANALYZE" "$TMP/f$run.tsv" --critical-path --format json > "$TMP/fp$run.json" || fail "json exited $?"
	seg=$(awk -F'\t' -v t="$t" -v m=$ms '$4 == t && $10 == "runnable" && $8 >= 90 * m' "$TMP/fp$run.tsv")
	if ! grep -q . <<< "$seg"; then
		echo "# run $run: no runnable stretch of >= 90 ms (the hog ran elsewhere, or late): again"
		continue
	fi
	det=$(echo "$seg" | cut -f9)
	[[ "$det" =~ ^CPU\ $cpu\ held\ by\ bt-fhog\ $h\ (9[0-9]|100)% ]] ||
		fail "run $run: the stretch does not name bt-fhog $h >= 90%: $det"
	python3 - "$TMP/fp$run.json" "$t" "$h" <<'PY' || fail "run $run: the JSON's share: $(cat "$TMP/fp$run.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
ok = False
for c in doc["critical_path"]["containers"]:
    for s in c["segments"]:
        if s["tid"] == int(sys.argv[2]) and s["state"] == "runnable" and s["dur"] >= 90e6:
            x = s["cpu_shares"][0]
            ok = x["comm"] == "bt-fhog" and x["pid"] == int(sys.argv[3]) and x["share"] >= 0.9
sys.exit(not ok)
PY
	over100 "$TMP/fp$run.json" || fail "run $run: shares over 100%"
	good=$((good + 1))
	ok "forked hog, run $run: $(($(echo "$seg" | cut -f8) / ms)) ms runnable: $det"
done
