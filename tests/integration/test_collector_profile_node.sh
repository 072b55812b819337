#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile names node's JS frames and modules with no flag to node
# (issue 34, item 2): tests/tools/node/main.js, a small http app whose
# module lib/burner.js burns 200 ms of the process's CPU time at its top
# level in burnCpu (spin below it), and writes the window it burned in.
# Checked:
#  - in that window, at least 90% of the main thread's samples name
#    burnCpu `burnCpu FILE:LINE` (LINE its `function` line) and the module
#    `<module> .../lib/burner.js`, at least 150 samples there;
#  - the same for a copy of burner.js at a hostile path (space, TAB, LF,
#    backslash, quote, é: V8 keeps it in a one-byte string), required first:
#    its module frame read back as the bytes of the path (escaped in the
#    TSV, whose rows keep their 12 fields);
#  - analyze --profile lists the module's loading under the functions,
#    its CPU at least 90% of the window's samples';
#  - node exits right after its boot (the server listens and closes), and
#    its frames are named all the same (read while it lived);
#  - each tier of V8's code is walked: the interpreter alone
#    (--max-opt=0), Sparkplug's baseline code (--always-sparkplug
#    --max-opt=1), and TurboFan's (--trace-opt says spin was optimized):
#    90% of each window's samples name burnCpu;
#  - the app's boot without the burn: at most 20% of its samples carry an
#    unnamed frame ([unknown], [lib+0xOFF]) in analyze's folded stacks;
#  - in a container of its own (pid and mount namespaces), as on the host.
# The compat and legacy objects read no JS frames (modern only).
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
need_root
need_profile_checks
NODE=$(command -v node || true)
APP=$(cd "$(dirname "$0")/../tools/node" && pwd)
[ -n "$NODE" ] || { [ "${CI:-}" = true ] &&
	fail "no node (scripts/install-deps.sh installs nodejs)"; skip "no node"; }
"$NODE" -e 'process.exit(process.versions.v8.split(".")[0] >= 11 ? 0 : 1)' ||
	skip "node $("$NODE" --version): V8 older than 11 (node 20's), whose layouts are not checked"
line_of() { grep -n "^function $1(" "$APP/lib/burner.js" | cut -d: -f1; }
SPIN=$(line_of spin)
BURN=$(line_of burnCpu)
# é in UTF-8: node makes it U+00E9, which V8 keeps in a one-byte (Latin-1) string
HDIR=$TMP/$(printf 'mod dir\tTAB\nLF\\back"q\xc3\xa9')
mkdir -p "$HDIR" && cp "$APP/lib/burner.js" "$HDIR/burner.js" || fail "cannot copy burner.js to a hostile path"
HMOD=$HDIR/burner.js

# share TSV WINDOW NAME: "N M", the window's samples of its thread, and those naming NAME
share() {
	local w
	read -r -a w <<< "$2"
	"${PC[@]}" --tid "${w[2]}" --from "${w[0]}" --to "${w[1]}" --name "$3" share "$1"
}

# want TAG TSV WINDOW NAME: at least 90% of the window's samples name NAME
want() {
	local n m
	read -r n m < <(share "$2" "$3" "$4")
	[ "$n" -ge "$5" ] || fail "$1: $n samples in the burn's window (under $5)"
	[ $((m * 10)) -ge $((n * 9)) ] || fail "$1: $m of $n samples in the window name '$4' (under 90%)"
	echo "$m/$n"
}

# node_run TAG [COLLECTOR-OPTION...] -- [NODE-OPTION...] -- [APP-ARG]: sets tsv, pid, wins
# (the app's windows: START END PID)
node_run() {
	local tag=$1 opts=() nopts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do nopts+=("$1"); shift; done
	shift
	tsv=$TMP/$tag.tsv
	"$COLLECTOR" --profile=999 "${opts[@]}" -o "$tsv" -- "$NODE" "${nopts[@]}" "$APP/main.js" "$@" \
		> "$TMP/$tag.out" 2> "$TMP/$tag.err" || fail "$tag: collector exited $?: $(tail -3 "$TMP/$tag.err")"
	check_tsv "$tsv"
	"${PC[@]}" check "$tsv" > /dev/null || fail "$tag: $("${PC[@]}" check "$tsv" | head -3)"
	# the pid as the host sees it (the app's own in a container: its exec row's)
	pid=$(rows "$tsv" exec | awk -F'\t' '$12 ~ /\/node$/ { print $4; exit }')
	[ -n "$pid" ] || fail "$tag: no exec row of node"
	mapfile -t wins < <(sed -n "s/^window \([0-9]*\) \([0-9]*\) .*/\1 \2 $pid/p" "$TMP/$tag.out")
	[ ${#wins[@]} -ge 1 ] || fail "$tag: the app wrote no window: $(head -3 "$TMP/$tag.out")"
}

# burn_checks TAG WINDOW MODULE: burnCpu, spin and the module named in the window
burn_checks() {
	local a b c
	a=$(want "$1" "$tsv" "$2" "burnCpu $3:$BURN" 150) || exit 1
	b=$(want "$1" "$tsv" "$2" "<module> $3" 150) || exit 1
	c=$(share "$tsv" "$2" "spin $3:$SPIN" | awk '{ print $2 "/" $1 }')
	echo "$a name burnCpu, $b the module, $c spin"
}

# A. no flag to node; the hostile copy first, then lib/burner.js; node exits right after
node_run host -- -- "$HDIR/burner.js"
[ ${#wins[@]} -eq 2 ] || fail "host: ${#wins[@]} windows, not 2: $(cat "$TMP/host.out")"
r=$(burn_checks hostile "${wins[0]}" "$HMOD") || exit 1
ok "host: hostile path: $r (window samples), the path read back byte for byte"
r=$(burn_checks host "${wins[1]}" "$APP/lib/burner.js") || exit 1
ok "host: lib/burner.js: $r"
# analyze --profile lists the module's loading: at least 90% of the window's samples' CPU
read -r n _ < <(share "$tsv" "${wins[1]}" "burnCpu")
"$ANALYZE" --profile --until end "$tsv" > "$TMP/host.profile" || fail "host: analyze --profile exited $?"
ms=$(awk -v f="$APP/lib/burner.js" '/^  modules loaded/ { m = 1; next }
	m && substr($0, length($0) - length(f) + 1) == f {
		v = $1 + 0; if ($1 ~ /[0-9]s$/) v *= 1000; if ($1 ~ /us$/) v /= 1000; print v; exit }' "$TMP/host.profile")
[ -n "$ms" ] || fail "host: analyze --profile lists no lib/burner.js module: $(grep -A4 '^  modules' "$TMP/host.profile")"
awk -v ms="$ms" -v n="$n" 'BEGIN { exit !(ms >= 0.9 * n * 1000 / 999) }' ||
	fail "host: analyze says loading lib/burner.js took $ms ms, under 90% of the window's $n samples"
ok "host: analyze --profile: loading lib/burner.js took $ms ms of CPU (the window: $n samples)"
read -r -a w <<< "${wins[1]}"
exit_ms=$(rows "$tsv" exit | awk -F'\t' -v p="${w[2]}" -v e="${w[1]}" '$4 == p { print int(($1 - e) / 1000000) }' | tail -1)
[ -n "$exit_ms" ] && [ "$exit_ms" -lt 2000 ] || fail "host: node did not exit right after its boot ($exit_ms ms)"
ok "host: node exited ${exit_ms} ms after the burn, its frames named all the same"

# B. each tier: the interpreter, Sparkplug, TurboFan
for t in "interp --max-opt=0" "baseline --always-sparkplug --max-opt=1" "turbofan --trace-opt"; do
	read -r -a f <<< "$t"
	BURN_MS=100 node_run "${f[0]}" -- "${f[@]:1}" --
	r=$(want "${f[0]}" "$tsv" "${wins[0]}" "burnCpu $APP/lib/burner.js:$BURN" 75) || exit 1
	if [ "${f[0]}" = turbofan ]; then
		grep -q 'completed optimizing .*JSFunction spin ' "$TMP/turbofan.out" ||
			fail "turbofan: node optimized no spin: $(grep -m3 optimiz "$TMP/turbofan.out")"
	fi
	ok "${f[0]}: $r samples name burnCpu"
done

# C. the boot without the burn: its unnamed share
BURN_MS=0 node_run boot -- --
"$ANALYZE" --profile --until end --format folded "$tsv" > "$TMP/boot.folded" ||
	fail "boot: analyze --format folded exited $?"
read -r all bad js < <(awk '{ n = $NF; all += n; $NF = ""; k = split($0, f, ";"); bad = 0; j = 0
	for (i = 1; i <= k; i++) {
		sub(/ $/, "", f[i])
		if (f[i] == "[unknown]" || f[i] ~ /^\[[^]]*\+0x[0-9a-f]+\](_\[k\])?$/) bad = 1
		if (f[i] ~ /^(<module> )?[^ ]* (node:|\/)/) j = 1
	}
	unnamed += bad * n; named += j * n }
	END { printf "%d %d %d\n", all, unnamed, named }' "$TMP/boot.folded")
[ "$all" -gt 0 ] && [ $((bad * 5)) -le "$all" ] || fail "boot: $bad of $all samples carry an unnamed frame (over 20%): $(
	awk '/\[unknown\]|\+0x[0-9a-f]+\]/' "$TMP/boot.folded" | sort -t' ' -k2 -n | tail -3)"
ok "boot: $bad of $all samples ($((bad * 100 / all))%) unnamed; $js with a JS frame"
cgroup_mode || exit 0

# D. in a container
BURN_MS=200 node_run container --unshare pid,mount -- --
r=$(burn_checks container "${wins[0]}" "$APP/lib/burner.js") || exit 1
ok "container: $r"
exit 0
