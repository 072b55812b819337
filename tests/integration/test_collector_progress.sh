#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The --runs progress line (issue 22): on a terminal (tmux, 200x20),
# `collector --runs 5 --until listen -- webapp --warmup-ms 300` shows
#   run k/5 · exec X ms listen Y ms · p50 listen Z ms · ETA W s
# rewritten in place, whose figures are the analyzer's for the same TSV
# (run k-1's phases; the p50 of runs 1..k-1), with listen >= the 300 ms
# the server waits before it listens; "run 1/5 · T s" before a run has
# ended; and at the end no progress text left on the screen, only the
# runs' messages. Client mode (a client that makes its container's cgroup
# itself) shows the same. With stderr a pipe or a file: no progress text
# and no \r at all.
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

# check_lines NAME TSV N CONTAINER...: the progress lines seen on the
# screen of NAME, for N runs whose containers are CONTAINER... in order.
check_lines() {
	local name=$1 tsv=$2 n=$3 k line re got want seen=0
	shift 3
	local ctrs=("$@")
	[ "${#ctrs[@]}" -eq "$n" ] || fail "$name: ${#ctrs[@]} containers in the TSV, not $n: ${ctrs[*]}"
	grep -Eq "^run 1/$n $SEP [0-9]+\.[0-9] s$" "$TMP/$name.seen" ||
		fail "$name: no 'run 1/$n $SEP T s' line before the first run ended: $(grep -E '^run ' "$TMP/$name.seen" | sort -u | head -3)"
	re="^run ([0-9]+)/$n $SEP exec ([0-9.]+ ms) listen ([0-9.]+) ms $SEP p50 listen ([0-9.]+) ms $SEP ETA [0-9]+ s$"
	# every progress line is the whole line (nothing of another left on it)
	got=$(grep -E "^run [0-9]+/$n " "$TMP/$name.seen" | sort -u | grep -Ev "$re|^run 1/$n $SEP [0-9]+\.[0-9] s$")
	[ -z "$got" ] || fail "$name: progress lines not as expected: $got"
	while read -r line; do
		[[ $line =~ $re ]] || continue
		k=${BASH_REMATCH[1]}
		[ "$k" -ge 2 ] && [ "$k" -le "$n" ] || fail "$name: '$line': no such run"
		# run k-1's phases, the p50 of runs 1..k-1: the analyzer's
		want="exec $(ms "$(phase "$tsv" exec min "${ctrs[k - 2]}")") listen $(ms "$(phase "$tsv" listen min "${ctrs[k - 2]}")")"
		want="$want $SEP p50 listen $(ms "$(phase "$tsv" listen p50 "${ctrs[@]:0:k-1}")")"
		[[ $line == "run $k/$n $SEP $want $SEP ETA "* ]] ||
			fail "$name: '$line', but the analyzer says '$want' (runs 1..$((k - 1)): ${ctrs[*]:0:k-1})"
		awk -v l="${BASH_REMATCH[3]}" -v w=$WARMUP_MS 'BEGIN { exit !(l >= w) }' ||
			fail "$name: '$line': listen below the server's $WARMUP_MS ms warm-up"
		seen=$((seen | 1 << k))
	done < <(grep -E "^run " "$TMP/$name.seen" | sort -u)
	for k in $(seq 2 "$n"); do
		[ $((seen >> k & 1)) = 1 ] || fail "$name: no line for run $k/$n seen (each lasts > $WARMUP_MS ms)"
	done
	# at the end: no progress text left, the runs' messages whole
	grep -Eq "run [0-9]+/$n|ETA" "$TMP/$name.screen" && fail "$name: progress left on the screen: $(cat "$TMP/$name.screen")"
	[ "$(grep -cE "^collector: .* exited with status 0$" "$TMP/$name.screen")" -eq "$n" ] ||
		fail "$name: not $n whole 'exited' messages on the final screen: $(cat "$TMP/$name.screen")"
}

# Spawn mode.
on_terminal spawn "$COLL" --runs 5 --until listen --name web -o "$TMP/spawn.tsv" -- \
	"$WEBAPP" --warmup-ms $WARMUP_MS
[ "$rc" = 0 ] || fail "spawn: collector exited $rc: $(cat "$TMP/spawn.screen")"
check_tsv "$TMP/spawn.tsv"
check_lines spawn "$TMP/spawn.tsv" 5 web-1 web-2 web-3 web-4 web-5
ok "spawn --runs 5 on a terminal: the analyzer's exec, listen and p50 listen of the runs so far, ETA; gone at the end"

# Client mode: the client makes its container (a cgroup matching -c) and
# execs the server in it; its start is the client's spawn.
make_cgparent
rel=${CGPARENT#"$(cgroup2_mount)"}
on_terminal client "$COLL" -c "$rel/*" --runs 3 --until listen -o "$TMP/client.tsv" -- \
	/bin/sh -c 'd=$0/c-$$; mkdir "$d" && echo $$ > "$d/cgroup.procs" && exec "$1" --warmup-ms "$2"' \
	"$CGPARENT" "$WEBAPP" $WARMUP_MS
[ "$rc" = 0 ] || fail "client: collector exited $rc: $(cat "$TMP/client.screen")"
check_tsv "$TMP/client.tsv"
mapfile -t ctrs < <(rows "$TMP/client.tsv" start client | cut -f2)
check_lines client "$TMP/client.tsv" 3 "${ctrs[@]}"
ok "client mode --runs 3 on a terminal: the same line, from the client's spawn"

# Not a terminal: nothing of it.
"$COLL" --runs 3 --until listen --name web -o "$TMP/pipe.tsv" -- "$WEBAPP" --warmup-ms 50 2>&1 > /dev/null |
	cat > "$TMP/pipe.err"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "collector with stderr to a pipe exited $rc"
"$COLL" --runs 3 --until listen --name web -o "$TMP/file.tsv" -- "$WEBAPP" --warmup-ms 50 2> "$TMP/file.err" ||
	fail "collector with stderr to a file exited $?"
for f in pipe file; do
	check_tsv "$TMP/$f.tsv"
	grep -q $'\r' "$TMP/$f.err" && fail "stderr to a $f has a CR: $(cat -A "$TMP/$f.err")"
	grep -Eq "run [0-9]|ETA|$SEP" "$TMP/$f.err" && fail "stderr to a $f has progress text: $(cat "$TMP/$f.err")"
	[ "$(grep -cE '^collector: web-[1-3] exited with status 0$' "$TMP/$f.err")" -eq 3 ] ||
		fail "stderr to a $f: not the 3 runs' messages: $(cat "$TMP/$f.err")"
done
ok "stderr to a pipe or a file: no progress line, no CR"
