#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The --runs progress line (issues 22, 36): on a terminal (tmux, 200x20),
# `collector --runs 5 --until listen -- SERVER` where SERVER says
# "server: up" on stderr, then execs `webapp --warmup-ms 300`, prints as
# each run ends one whole line
#   run k/5 · exec X ms listen Y ms · p50 listen Z ms · ETA W s
# (the last without ETA), whose figures are the analyzer's for the same
# TSV (run k's phases; the p50 of runs 1..k), with listen >= the 300 ms
# the server waits before it listens. The server's own line and the
# progress lines never share a line of the screen (the line used to be
# redrawn in place, and the server's output ran into it); every line of
# the final screen is one or the other, in order: each run's server line
# before its progress line. No message for the collector's own stop of
# each boot. Client mode (a client that makes its container's cgroup
# itself) shows the same. With stderr a pipe or a file: no progress text,
# no \r, and nothing at all from a clean run.
. "$(dirname "$0")/lib.sh"
need_root
have tmux "the progress line on a terminal" || exit 77

COLL=$(realpath "$COLLECTOR")
WEBAPP=$(realpath "$OUTPUT/samples/webapp")
SEP=$(printf '\xc2\xb7')
WARMUP_MS=300

# A tmux server of the test's own (its socket in $TMP). The command runs
# as a job of a script that writes its pid and exit status (tmux 3.3 may
# leave a dead pane's process unreaped, without its status); at exit a
# collector still running gets SIGINT (it removes its cgroups), then the
# server goes.
tm() { LC_ALL=C.UTF-8 tmux -u -S "$TMP/tmux.sock" -f /dev/null "$@"; }
tm_stop() {
	tm has-session -t p 2>/dev/null || return 0
	if [ -s "$TMP/term.pid" ] && [ ! -s "$TMP/term.rc" ]; then
		kill -INT "$(cat "$TMP/term.pid")" 2>/dev/null
		for _ in $(seq 100); do [ -s "$TMP/term.rc" ] && break; sleep 0.1; done
	fi
	tm kill-server 2>/dev/null
}
cleanup_hooks+=("tm_stop")

# on_terminal NAME COMMAND...: COMMAND alone in a 200x20 terminal; its
# screen every 0.1 s appended to $TMP/NAME.seen until it exits (60 s at
# most), the last one in $TMP/NAME.screen, its exit status in $rc.
on_terminal() {
	local name=$1
	shift
	rm -f "$TMP/term.pid" "$TMP/term.rc"
	{
		echo '#!/bin/bash'
		printf '%q ' "$@"
		printf '&
echo $! > %q
wait $!
echo $? > %q
exec sleep 600
' \
			"$TMP/term.pid" "$TMP/term.rc"
	} > "$TMP/term.sh"
	chmod +x "$TMP/term.sh"
	tm new-session -d -s p -x 200 -y 20 "$TMP/term.sh" || fail "tmux cannot start"
	: > "$TMP/$name.seen"
	for _ in $(seq 600); do
		tm capture-pane -p -t p >> "$TMP/$name.seen"
		[ -s "$TMP/term.rc" ] && break
		sleep 0.1
	done
	[ -s "$TMP/term.rc" ] || fail "$name: still running after 60 s"
	rc=$(cat "$TMP/term.rc")
	tm capture-pane -p -t p > "$TMP/$name.screen"
	tm kill-server
}

# ms NS: a phase as the line writes it
ms() {
	awk -v v="$1" 'BEGIN { a = v < 0 ? -v : v
		if (a < 1e6) printf "%.2f ms", v / 1e6; else printf "%.1f ms", v / 1e6 }'
}

# phase TSV PHASE COLUMN CONTAINER...: the analyzer's COLUMN (min, p50)
# of PHASE over those containers of TSV (a file of their rows only)
phase() {
	local f=$1 ph=$2 col=$3 sub=$TMP/sub.tsv
	shift 3
	awk -F'\t' -v set=" $* " '/^#/ || $1 == "ts_ns" || index(set, " " $2 " ")' "$f" > "$sub"
	"$ANALYZE" --format tsv "$sub" | awk -F'\t' -v p="$ph" -v c="$col" '
		NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i } $1 == p { print $k[c] }'
}

# check_lines NAME TSV N CONTAINER...: the final screen of NAME, for N runs
# whose containers are CONTAINER... in order.
check_lines() {
	local name=$1 tsv=$2 n=$3 k=0 line re want servers=0
	shift 3
	local ctrs=("$@")
	[ "${#ctrs[@]}" -eq "$n" ] || fail "$name: ${#ctrs[@]} containers in the TSV, not $n: ${ctrs[*]}"
	re="^run ([0-9]+)/$n $SEP exec ([0-9.]+ ms) listen ([0-9.]+) ms $SEP p50 listen ([0-9.]+) ms( $SEP ETA [0-9]+ s)?$"
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		if [ "$line" = "server: up" ]; then
			servers=$((servers + 1))
			[ "$servers" = $((k + 1)) ] || fail "$name: a server line out of order (run $k): $(cat "$TMP/$name.screen")"
			continue
		fi
		[[ $line =~ $KERNEL_NOTES ]] && continue
		# anything else is a whole progress line: nothing of the server's in it
		[[ $line =~ $re ]] || fail "$name: a line neither the server's nor a whole progress line: '$line'"
		k=$((k + 1))
		[ "${BASH_REMATCH[1]}" = "$k" ] || fail "$name: '$line' where run $k's line was due"
		[ "$servers" = "$k" ] || fail "$name: run $k's line before its server's"
		# the last one has no ETA: nothing left to wait for
		if [ "$k" = "$n" ]; then
			[ -z "${BASH_REMATCH[5]}" ] || fail "$name: the last run's line has an ETA: '$line'"
		else
			[ -n "${BASH_REMATCH[5]}" ] || fail "$name: run $k's line has no ETA: '$line'"
		fi
		# run k's own phases, the p50 of runs 1..k: the analyzer's
		want="exec $(ms "$(phase "$tsv" exec min "${ctrs[k - 1]}")") listen $(ms "$(phase "$tsv" listen min "${ctrs[k - 1]}")")"
		want="$want $SEP p50 listen $(ms "$(phase "$tsv" listen p50 "${ctrs[@]:0:k}")")"
		[[ $line == "run $k/$n $SEP $want"* ]] ||
			fail "$name: '$line', but the analyzer says '$want' (runs 1..$k: ${ctrs[*]:0:k})"
		awk -v l="${BASH_REMATCH[3]}" -v w=$WARMUP_MS 'BEGIN { exit !(l >= w) }' ||
			fail "$name: '$line': listen below the server's $WARMUP_MS ms warm-up"
	done < "$TMP/$name.screen"
	if [ "$k" != "$n" ] || [ "$servers" != "$n" ]; then
		fail "$name: $k progress lines and $servers server lines, not $n each: $(cat "$TMP/$name.screen")"
	fi
}

# Spawn mode: the server says so on stderr, then execs webapp.
on_terminal spawn "$COLL" --runs 5 --until listen --name web -o "$TMP/spawn.tsv" -- \
	/bin/sh -c 'echo "server: up" >&2; exec "$0" --warmup-ms "$1"' "$WEBAPP" $WARMUP_MS
[ "$rc" = 0 ] || fail "spawn: collector exited $rc: $(cat "$TMP/spawn.screen")"
check_tsv "$TMP/spawn.tsv"
check_lines spawn "$TMP/spawn.tsv" 5 web-1 web-2 web-3 web-4 web-5
ok "spawn --runs 5 on a terminal: a whole line as each run ends, the analyzer's figures, the server's own lines apart"

# Client mode: the client makes its container (a cgroup matching -c) and
# execs the server in it; its start is the client's spawn.
make_cgparent
rel=${CGPARENT#"$(cgroup2_mount)"}
on_terminal client "$COLL" -c "$rel/*" --runs 3 --until listen -o "$TMP/client.tsv" -- \
	/bin/sh -c 'd=$0/c-$$; mkdir "$d" && echo $$ > "$d/cgroup.procs" && echo "server: up" >&2 &&
		exec "$1" --warmup-ms "$2"' "$CGPARENT" "$WEBAPP" $WARMUP_MS
[ "$rc" = 0 ] || fail "client: collector exited $rc: $(cat "$TMP/client.screen")"
check_tsv "$TMP/client.tsv"
mapfile -t ctrs < <(rows "$TMP/client.tsv" start client | cut -f2)
check_lines client "$TMP/client.tsv" 3 "${ctrs[@]}"
ok "client mode --runs 3 on a terminal: the same lines, from the client's spawn"

# Not a terminal: nothing of it.
"$COLL" --runs 3 --until listen --name web -o "$TMP/pipe.tsv" -- "$WEBAPP" --warmup-ms 50 2>&1 > /dev/null |
	cat > "$TMP/pipe.err"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "collector with stderr to a pipe exited $rc"
"$COLL" --runs 3 --until listen --name web -o "$TMP/file.tsv" -- "$WEBAPP" --warmup-ms 50 2> "$TMP/file.err" ||
	fail "collector with stderr to a file exited $?"
for f in pipe file; do
	check_tsv "$TMP/$f.tsv"
	[ -z "$(without_kernel_notes "$TMP/$f.err")" ] || fail "stderr to a $f is not empty after clean runs: $(cat -A "$TMP/$f.err")"
done
ok "stderr to a pipe or a file: no progress line, nothing said of clean runs"
