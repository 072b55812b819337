#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The runtime's CPU in each boot (issue 28): in client mode, the samples
# of the host tasks that worked for a boot are that boot's, and a busy
# stranger's are not. Known truths, 2 boots of `collector -c GLOB
# --profile=999 --runs 2 --until listen -- wrapburn 150 runc run ...`
# (tests/tools/wrapburn.c: the client burns 150 ms of CPU in
# wrapper_burn(), then execs runc run), while a stranger outside every
# container (tests/tools/burn, comm bt-stranger) spins all along:
#  - each boot's profile (analyze --profile) holds 150 ms (+-15%) of
#    wrapper_burn, under main (90%), and none of the stranger's functions;
#  - each boot's critical path has a running stretch in wrapburn annotated
#    with wrapper_burn first;
#  - the folded stacks put wrapburn's at the root `wrapburn`;
#  - in watch mode with --sched host (host rows all along), a runc run's
#    boot, from its cgroup's mkdir, holds the 50 ms (+-15%) of
#    wrapper_burn that runc's createRuntime hook (wrapburn 50 true) burns
#    on the host, not the client's 150 ms before the mkdir, nor the
#    stranger's samples.
. "$(dirname "$0")/lib.sh"
need_root
need_profile_checks
. "$(dirname "$0")/runtimes.sh"
need_runtime runc
have python3 "the profile's figures" || exit 77
start_runc

WRAP=$(realpath "$TOOLS/wrapburn")
[ -x "$WRAP" ] && [ -x "$TOOLS/burn" ] || fail "no $WRAP or $TOOLS/burn (make)"

# the stranger: busy before, during and after the boots
"$TOOLS/burn" -x 1000 -n bt-stranger > "$TMP/stranger.out" &
stranger=$!
cleanup_hooks+=("kill $stranger 2>/dev/null; wait $stranger 2>/dev/null")
for _ in $(seq 100); do [ -s "$TMP/stranger.out" ] && break; sleep 0.02; done

port=$(rt_free_port) || fail "no free port"
runc_bundle "$TMP/b" "$RT_PARENT/w" sh -c "httpd -f -p 127.0.0.1:$port & sleep 60; kill %1" ||
	fail "cannot write the bundle"
f=$TMP/w.tsv
"$COLLECTOR" -c "$RT_PARENT/*" --profile=999 --runs 2 --until listen -o "$f" -- \
	"$WRAP" 150 "${RUNC[@]}" run -b "$TMP/b" "bt-$$-w" > /dev/null 2> "$f.err" ||
	fail "collector exited $?: $(head -3 "$f.err")"
check_tsv "$f"
kill -0 "$stranger" 2>/dev/null || fail "the stranger is not running"
[ "$(rows "$f" sample | awk -F'\t' '$7 == "bt-stranger"' | wc -l)" -gt 0 ] ||
	fail "no sample rows of the stranger: it was not busy during the boots"

"$ANALYZE" --profile --top 100000 --format json "$f" > "$TMP/p.json" 2> "$TMP/p.err" || fail "analyze --profile: $(head -3 "$TMP/p.err")"
"$ANALYZE" --critical-path --format json "$f" > "$TMP/cp.json" 2> "$TMP/cp.err" ||
	fail "analyze --critical-path: $(head -3 "$TMP/cp.err")"
"$ANALYZE" --profile --format folded "$f" > "$TMP/p.folded" 2> "$TMP/f.err" || fail "analyze --format folded"
python3 - "$TMP/p.json" "$TMP/cp.json" "$TMP/p.folded" <<'PY' || fail "the truths above"
import json, sys
prof, cp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = 0
def no(msg):
    global bad
    print("FAIL: " + msg, file=sys.stderr)
    bad += 1
ctrs = prof["containers"]
if len(ctrs) != 2:
    no("%d boot profiles, not 2" % len(ctrs))
stranger = {"burn_long", "burn_short", "burn_all"}
for c in ctrs:
    fns = {f["function"]: f for f in c["functions"]}
    w = fns.get("wrapper_burn")
    ms = w["self_ns"] / 1e6 if w else 0
    print("# %s: wrapper_burn %.1f ms of %d samples" % (c["container"], ms, c["samples"]))
    if not 127.5 <= ms <= 172.5:
        no("%s: wrapper_burn %.1f ms, not 150 +-15%%" % (c["container"], ms))
    # under main (a sample at wrapper_burn's first instructions, before it
    # pushed its frame pointer, skips its caller: 90% at least, as burn's)
    under = fns.get("main", {}).get("total_samples", 0)
    if w and under < 0.9 * w["self_samples"]:
        no("%s: wrapper_burn %d samples, main on the stack of %d" % (c["container"], w["self_samples"], under))
    if stranger & set(fns):
        no("%s: the stranger's %s in the boot's profile" % (c["container"], sorted(stranger & set(fns))))
for c in cp["critical_path"]["containers"]:
    segs = [s for s in c["segments"] if s["comm"] == "wrapburn" and s["state"] == "running"
            and "wrapper_burn" in (s.get("profile") or "")]
    if not segs:
        no("%s: no running stretch of wrapburn annotated with wrapper_burn" % c["container"])
    else:
        s = max(segs, key=lambda s: s["dur"])
        print("# %s: wrapburn running %.1f ms %s" % (c["container"], s["dur"] / 1e6, s["profile"]))
roots = {l.split(";")[0] for l in open(sys.argv[3]) if "wrapper_burn" in l}
if roots != {"wrapburn"}:
    no("folded stacks of wrapper_burn under %s, not wrapburn" % sorted(roots))
sys.exit(1 if bad else 0)
PY
ok "2 boots: wrapper_burn 150 ms in each boot's profile and on its path, the stranger in neither"

# watch mode with --sched host: the host rows say who the runtime's tasks
# are. runc runs the bundle's createRuntime hook, wrapburn 50 true, on
# the host after the container's cgroup is made (the boot's start):
# wrapper_burn's 50 ms (+-15%) are in the boot, the client's 150 ms before
# the mkdir are not, nor the stranger's samples
port=$(rt_free_port) || fail "no free port"
runc_bundle "$TMP/b2" "$RT_PARENT/h" sh -c "$(httpd_cmd "$port")" || fail "cannot write the bundle"
python3 - "$TMP/b2/config.json" "$WRAP" <<'PY' || fail "cannot add the hook"
import json, sys
c = json.load(open(sys.argv[1]))
c["hooks"] = {"createRuntime": [{"path": sys.argv[2], "args": ["wrapburn", "50", "/bin/true"]}]}
json.dump(c, open(sys.argv[1], "w"))
PY
watch_start "$TMP/h.tsv" -c "$RT_PARENT/*" --sched host --profile=999
"$WRAP" 150 "${RUNC[@]}" run -b "$TMP/b2" "bt-$$-h" > /dev/null || fail "runc run failed"
watch_stop "$TMP/h.tsv"
"$ANALYZE" --profile --format folded "$TMP/h.tsv" > "$TMP/h.folded" 2>&1 || fail "analyze: $(head -3 "$TMP/h.folded")"
"$ANALYZE" --profile --top 100000 --format tsv "$TMP/h.tsv" > "$TMP/h.prof" 2>&1 || fail "analyze: $(head -3 "$TMP/h.prof")"
roots=$(awk '{ n[substr($0, 1, index($0, ";") - 1)] += $NF } END { for (r in n) printf "%s %d, ", r, n[r] }' "$TMP/h.folded")
ms=$(awk -F'\t' 'NR > 1 && $3 == "wrapper_burn" { printf "%.1f", $6 / 1e6 }' "$TMP/h.prof")
awk -v m="${ms:-0}" 'BEGIN { exit !(m >= 42.5 && m <= 57.5) }' ||
	fail "watch: wrapper_burn ${ms:-0} ms in the boot, not the hook's 50 +-15%: $roots"
grep -q '^bt-stranger;' "$TMP/h.folded" && fail "watch: the stranger's samples in the boot: $roots"
ok "watch --sched host: the hook's wrapper_burn $ms ms in the boot; by process: ${roots%, }"
cleanup_checked
