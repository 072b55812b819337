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
#    wrapper_burn, under main, and none of the stranger's functions;
#  - each boot's critical path has a running stretch in wrapburn annotated
#    with wrapper_burn first;
#  - the folded stacks put wrapburn's at the root `wrapburn`.
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
    if w and fns.get("main", {}).get("total_samples", 0) < w["self_samples"]:
        no("%s: wrapper_burn not under main" % c["container"])
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
cleanup_checked
