#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The README's first command, `make demo`, as a newcomer runs it: as root,
# from the top of the checkout, on a fresh host -- no container runtime
# running, no /docker or /libpod_parent cgroup in any hierarchy (empty ones
# an earlier runtime left are removed first), so that the demo's dockerd
# makes /docker itself: the case where its cleanup failed and `make demo`
# with it (issue 22). Then:
#   - it exits 0;
#   - every report it names ("demo: [WHAT ]report in DIR/: FILE...", and
#     each DIR/FILE in its output) is there and not empty, and so is each
#     report demo.sh makes; each plot page's images are PNGs; the trace is
#     JSON with the 10 webapp boots;
#   - the numbers are the demo's: 10 boots of webapp, of bootsvc, of nginx
#     and 10 docker containers (each its own docker-<12 hex>, started by
#     the client and then by its cgroup), no event lost; each phase at
#     least what the sample makes it (webapp's worker warms up 30 ms before
#     it listens, bootsvc's 20 ms; bootsvc is ready after it listens, nginx
#     listens after ngx_init_cycle);
#   - it leaves nothing (tests/integration/leftovers.sh): no cgroup, mount,
#     process of its own (dockerd, containerd, shims, nginx, collector), no
#     runtime state directory (/run/docker, /run/containerd,
#     /var/lib/containers), no daemon directory under its TMPDIR.
# Its reports go to $TMP/out (DEMO_OUT), the daemon's state under $TMP/tmp
# (TMPDIR): the checkout's demo-out stays as it was. Not in make test-asan:
# `make demo` builds $(OUTPUT) as the Makefile does, without the sanitizers.
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/lib.sh
need_root
runs=10
out=$TMP/out

# --- a fresh host -------------------------------------------------------------
daemons=$(lo_daemons)
[ -z "$daemons" ] || fail "a container runtime runs ($(echo $daemons)): the demo starts a dockerd of its own on a fresh host; stop it first"
for m in $(awk '$3 == "cgroup2" || $3 == "cgroup" { print $2 }' /proc/self/mounts); do
	for c in docker libpod_parent; do
		[ -d "$m/$c" ] || continue
		find "$m/$c" -depth -type d -exec rmdir {} + 2> /dev/null
		[ -d "$m/$c" ] && fail "$m/$c is busy ($(find "$m/$c" -name cgroup.procs -exec cat {} + 2> /dev/null | wc -l) tasks): another runtime's containers; the demo needs a fresh host"
		echo "# removed $m/$c, empty, an earlier runtime's"
	done
done
state_before=
for p in /run/docker /run/containerd /var/lib/containers; do
	[ -e "$p" ] && state_before="$state_before $p"
done
demo_out() { [ -e demo-out ] && find demo-out -printf '%p %s %T@\n' | sort; }
out_before=$(demo_out)

# --- make demo ----------------------------------------------------------------
mkdir "$TMP/tmp" || fail "mkdir $TMP/tmp"
leftovers_begin "$TMP/lo" || fail "cannot snapshot the host"
leftovers_own "$TMP/tmp"
t0=$(date +%s%N)
# as from a shell (not as a sub-make of make test's)
DEMO_OUT=$out TMPDIR=$TMP/tmp env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make demo \
	> "$TMP/demo.log" 2>&1 < /dev/null
rc=$?
took=$((($(date +%s%N) - t0) / 1000000))
rmdir "$TMP/tmp" 2> /dev/null	# what is left in it leftovers_end shows
left=$(leftovers_end "$TMP/lo")
if [ $rc -ne 0 ] || [ -n "$left" ]; then
	tail -40 "$TMP/demo.log" | sed 's/^/  demo: /' >&2
	[ -z "$left" ] || echo "left behind: $(echo "$left" | tr '\n' ';')" >&2
	fail "make demo exited $rc after $((took / 1000)) s$([ -z "$left" ] || echo ", and left things behind")"
fi
ok "make demo exited 0 in $((took / 1000)).$((took % 1000 / 100)) s, from a fresh host"

for m in $(awk '$3 == "cgroup2" || $3 == "cgroup" { print $2 }' /proc/self/mounts); do
	for c in docker libpod_parent; do [ -d "$m/$c" ] && fail "cgroup $m/$c left behind"; done
done
for p in /run/docker /run/containerd /var/lib/containers; do
	case " $state_before " in *" $p "*) continue ;; esac
	[ -e "$p" ] && fail "$p left behind"
done
[ "$(demo_out)" = "$out_before" ] || fail "the checkout's demo-out changed: DEMO_OUT was not used"
rtdir=$(sed -n 's/^demo: dockerd .* started with its own state in \([^ ]*\) .*/\1/p' "$TMP/demo.log")
[[ $rtdir == "$TMP/tmp/"* ]] || fail "dockerd's state in '$rtdir', not under TMPDIR $TMP/tmp"
ok "nothing left: no cgroup, mount, process, runtime state ($rtdir gone), demo-out untouched"

# --- the reports ----------------------------------------------------------------
# named: the words after "report in $out/: ", and every $out/FILE in the output
named=$(awk -v p="report in $out/: " 'index($0, "demo: ") == 1 && (i = index($0, p)) {
		n = split(substr($0, i + length(p)), w, " "); for (j = 1; j <= n; j++) print w[j] }
	{ for (j = 1; j <= NF; j++) if (index($j, p2) == 1) { f = substr($j, length(p2) + 1); sub(/[):;,.]+$/, "", f); print f } }' \
	p2="$out/" "$TMP/demo.log" | grep . | sort -u)
want="boot.tsv phases.txt hist.txt syscalls.txt phases.tsv critical-path.txt boot.trace.json
plots/index.html plots/*.png bootsvc.tsv bootsvc-phases.txt nginx.tsv nginx-phases.txt
nginx-plots/index.html docker.tsv docker-phases.txt docker-hist.txt docker-critical-path.txt
docker-plots/index.html"
for w in $want; do
	echo "$named" | grep -qxF -- "$w" || fail "the demo does not name $w among its reports (named: $(echo $named))"
done
n=0
for w in $named; do
	set -- "$out"/$w
	[ -e "$1" ] || fail "$w, named by the demo, is not there"
	for f in "$@"; do
		[ -s "$f" ] || fail "$f is empty"
		n=$((n + 1))
	done
done
ok "the $n reports the demo names are there, none empty"

for d in plots nginx-plots docker-plots; do
	imgs=$(grep -o '<img src="[^"]*"' "$out/$d/index.html" | sed 's/.*src="//; s/"$//')
	[ "$(echo "$imgs" | wc -w)" -ge 5 ] || fail "$d/index.html shows $(echo "$imgs" | wc -w) images"
	for i in $imgs; do
		[ "$(head -c 4 "$out/$d/$i" 2> /dev/null | od -An -c | tr -d ' ')" = '211PNG' ] || fail "$d/$i is not a PNG"
	done
done
python3 - "$out/boot.trace.json" "$runs" <<'EOF' || fail "boot.trace.json: not the trace of $runs webapp boots"
import json, sys
t = json.load(open(sys.argv[1]))
names = sorted(e["args"]["name"] for e in t["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name")
want = sorted("webapp-%d" % i for i in range(1, int(sys.argv[2]) + 1))
sys.exit(0 if names == want else "process names %s" % names)
EOF
ok "plot pages show PNGs; boot.trace.json is JSON with webapp-1..$runs"

# --- the numbers ----------------------------------------------------------------
# phase FILE PHASE COLUMN: a column (count, min, ...; ns) of analyze --format tsv
phase() {
	awk -F'\t' -v p="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i }
		$1 == p { print $(k[c]) }' "$1.phases"
}
for t in boot bootsvc nginx docker; do
	check_tsv "$out/$t.tsv"
	"$ANALYZE" --format tsv "$out/$t.tsv" > "$out/$t.tsv.phases" || fail "analyze $t.tsv exited $?"
done
for x in "boot exec listen" "bootsvc exec config listen ready" "nginx exec init_cycle listen" "docker exec listen"; do
	set -- $x
	f=$1
	shift
	for p in "$@"; do
		[ "$(phase "$out/$f.tsv" "$p" count)" = "$runs" ] || fail "$f.tsv: $(phase "$out/$f.tsv" "$p" count) boots with a $p phase, not $runs"
	done
done
[ "$(awk '$1 == "exec" || $1 == "listen" { print $2 }' "$out/phases.txt" | tr '\n' ' ')" = "$runs $runs " ] ||
	fail "phases.txt is not $runs boots of exec and listen: $(cat "$out/phases.txt")"
[ "$(rows "$out/boot.tsv" start | cut -f2 | sort -V | tr '\n' ' ')" = "$(seq -f 'webapp-%g' -s ' ' "$runs") " ] ||
	fail "boot.tsv's containers: $(rows "$out/boot.tsv" start | cut -f2 | tr '\n' ' ')"
for f in critical-path docker-critical-path; do
	grep -q "^top of the critical paths to listen across $runs containers" "$out/$f.txt" ||
		fail "$f.txt does not sum up $runs containers"
done
[ "$(phase "$out/boot.tsv" listen min)" -ge 30000000 ] || fail "webapp listened $(phase "$out/boot.tsv" listen min) ns after its start, before its 30 ms warm-up"
[ "$(phase "$out/bootsvc.tsv" listen min)" -ge 20000000 ] || fail "bootsvc listened before its 20 ms warm-up"
[ "$(phase "$out/bootsvc.tsv" ready min)" -ge "$(phase "$out/bootsvc.tsv" listen min)" ] || fail "bootsvc ready before it listened"
[ "$(phase "$out/nginx.tsv" listen min)" -ge "$(phase "$out/nginx.tsv" init_cycle min)" ] || fail "nginx listened before ngx_init_cycle"
bad=$(rows "$out/docker.tsv" start | awk -F'\t' '{ n[$2]++; h[$2] = h[$2] " " $9 }
	END { for (c in n) if (c !~ /^docker-[0-9a-f]+$/ || length(c) != 19 || n[c] != 2 ||
		(h[c] != " client mkdir" && h[c] != " mkdir client")) print c ":" h[c] }')
[ -z "$bad" ] || fail "docker.tsv: containers not started by the client then their cgroup: $bad"
[ "$(rows "$out/docker.tsv" start | cut -f2 | sort -u | wc -l)" -eq "$runs" ] || fail "docker.tsv: not $runs containers"
ok "$runs boots each of webapp, bootsvc, nginx and docker (each its own docker-<12 hex>), no event lost, phases in their order"
