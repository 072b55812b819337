#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Debug info where users have it (issue 28): analyze asks the debuginfod
# servers of DEBUGINFOD_URLS for what it finds nowhere here. Known truths,
# with a local `debuginfod` (Debian's elfutils server: -F scans a
# directory of ELF files; 0.188 has no listen address option, so it
# listens on every interface, on a free port) serving the debug file of a
# stripped copy of tests/tools/burn (200 ms in burn_long, 100 ms in
# burn_short):
#  - without DEBUGINFOD_URLS the copy's functions are unnamed, and
#    --profile's text ends by naming the module left unnamed, sburn, with
#    its share of the samples (json: "unnamed", its path, no package);
#  - with it, burn_long and burn_short are named, 2:1 (+-15%), and sburn
#    is no longer said to be unnamed;
#  - the copy gone from this machine, the binary itself comes from the
#    server (its build id), and its functions are named 2:1 again.
# The client's cache is the test's (DEBUGINFOD_CACHE_PATH), the server's
# database too; the server is stopped at the end.
. "$(dirname "$0")/lib.sh"
need_root
have debuginfod "a local debuginfod server (scripts/install-deps.sh)" || exit 77
have python3 "the server's port" || exit 77

# the stripped copy, its debug file in the directory the server serves
mkdir -p "$TMP/srv"
cp "$TOOLS/burn" "$TMP/sburn"
objcopy --only-keep-debug "$TMP/sburn" "$TMP/srv/sburn.debug" || fail "objcopy failed"
objcopy --strip-all "$TMP/sburn" || fail "objcopy --strip-all failed"
id=$(readelf -n "$TMP/sburn" | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || fail "no build id in $TMP/sburn"

out=$TMP/s.tsv
"$COLLECTOR" --profile=999 -o "$out" -- "$TMP/sburn" -p "$TMP/port" > /dev/null 2>&1 ||
	fail "collector exited $?"
check_tsv "$out"

# ratio FILE: burn_long/burn_short self samples of analyze --profile's tsv FILE, or fail
ratio() {
	awk -F'\t' 'NR > 1 && $3 == "burn_long" { l = $5 } NR > 1 && $3 == "burn_short" { s = $5 }
		END { if (!s || l / s < 1.7 || l / s > 2.3) exit 1; printf "%d:%d", l, s }' "$1"
}

# 1. no DEBUGINFOD_URLS: unnamed, and said so
"$ANALYZE" --profile --top 1000 --format tsv "$out" > "$TMP/p0" || fail "analyze exited $?"
grep -qE $'\tburn_(long|short)\t' "$TMP/p0" && fail "burn_long named without the server"
"$ANALYZE" --profile "$out" > "$TMP/t0" 2>&1 || fail "analyze exited $?"
grep -qE '^  sburn: [0-9.]+% of samples unnamed' "$TMP/t0" ||
	fail "the footer does not name sburn: $(tail -5 "$TMP/t0")"
"$ANALYZE" --profile --format json "$out" > "$TMP/j0" || fail "analyze --format json exited $?"
python3 - "$TMP/j0" "$TMP/sburn" <<'PY' || fail "json's unnamed: $(cat "$TMP/j0" | tail -5)"
import json, sys
u = json.load(open(sys.argv[1]))["unnamed"]
sys.exit(not (u and u[0]["module"] == "sburn" and u[0]["path"] == sys.argv[2] and u[0]["package"] is None
              and u[0]["samples"] > 200))
PY
ok "without DEBUGINFOD_URLS: unnamed, said: $(grep -E '^  sburn: ' "$TMP/t0")"

# 2. the server
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -d "$TMP/db.sqlite" -p "$port" -t 0 -g 0 "$TMP/srv" > "$TMP/srv.log" 2>&1 &
srv=$!
cleanup_hooks+=("kill $srv 2>/dev/null; wait $srv 2>/dev/null")
url=http://127.0.0.1:$port
for _ in $(seq 100); do
	curl -sf -o /dev/null "$url/buildid/$id/debuginfo" && break
	sleep 0.1
done
curl -sf -o /dev/null "$url/buildid/$id/debuginfo" ||
	fail "the server does not serve $id after 10 s: $(tail -5 "$TMP/srv.log")"

export DEBUGINFOD_CACHE_PATH=$TMP/cache DEBUGINFOD_URLS=$url
"$ANALYZE" --profile --top 1000 --format tsv "$out" > "$TMP/p1" || fail "analyze exited $?"
r=$(ratio "$TMP/p1") || fail "through $url: burn_long:burn_short not 2:1 +-15%: $(grep burn_ "$TMP/p1")"
"$ANALYZE" --profile "$out" > "$TMP/t1" 2>&1 || fail "analyze exited $?"
grep -qE '^  sburn: ' "$TMP/t1" && fail "sburn said unnamed with its debug file: $(tail -5 "$TMP/t1")"
ok "through a local debuginfod: burn_long:burn_short $r"

# 3. the binary gone from here: the server's copy, by build id
cp "$TMP/sburn" "$TMP/srv/sburn"
mv "$TMP/sburn" "$TMP/sburn.away"
kill -USR1 "$srv"	# rescan now
for _ in $(seq 100); do
	curl -sf -o /dev/null "$url/buildid/$id/executable" && break
	sleep 0.1
done
"$ANALYZE" --profile --top 1000 --format tsv "$out" > "$TMP/p2" || fail "analyze exited $?"
r=$(ratio "$TMP/p2") || fail "the binary from $url: not 2:1: $(grep burn_ "$TMP/p2")"
# named from the cache's copy (libdebuginfod calls it "executable")
awk -F'\t' '$3 == "burn_long" && $4 == "executable" { f = 1 } END { exit !f }' "$TMP/p2" ||
	fail "burn_long not from the server's binary: $(grep burn_long "$TMP/p2")"
ok "the binary itself from the server: burn_long:burn_short $r"

kill "$srv" && wait "$srv" 2>/dev/null
unset DEBUGINFOD_URLS
ok "the server stopped"
