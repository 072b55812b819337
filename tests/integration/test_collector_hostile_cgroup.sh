#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Hostile cgroup names, end to end: container names made of tabs, CR,
# backslashes, a literal \N, quotes, backquotes, system("..."), $(...),
# control bytes, invalid UTF-8 and 255 bytes. Every row keeps 12 fields,
# the container column unescapes to the directory's name, and
# `analyze --plot` runs nothing of it. (cgroup names cannot hold LF or /.)
. "$(dirname "$0")/lib.sh"
need_root
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}

hostile_names
"$COLLECTOR" --cgroup "$rel/*" -o "$TMP/h.tsv" & col=$!
cleanup_hooks+=("kill $col 2>/dev/null")
for _ in $(seq 100); do grep -q '^ts_ns' "$TMP/h.tsv" 2>/dev/null && break; sleep 0.05; done
i=0
for n in "${names[@]}"; do
	mkdir "$CGPARENT/$n" || fail "cannot mkdir a cgroup named $(printf %q "$n")"
	CG="$CGPARENT/$n" sh -c 'echo $$ > "$CG/cgroup.procs" && exec "$0" 25' "$TOOLS/getppid_loop" ||
		fail "container $i did not run"
	i=$((i + 1))
done
sleep 0.3
kill -INT $col; wait $col || fail "collector exited $?"
check_tsv "$TMP/h.tsv"

hex() { printf %s "$1" | od -An -v -tx1 | tr -d ' \n'; }
got=$("$TOOLS/tsv_fields" 1 7 < "$TMP/h.tsv" | awk -F'\t' -v s="$(hex start)" '$2 == s { print $1 }' | sort)
want=$(for n in "${names[@]}"; do hex "$n"; echo; done | sort)
[ "$got" = "$want" ] || fail "container names do not unescape to the cgroup names:
got  $got
want $want"
for n in "${names[@]}"; do
	c=$("$TOOLS/tsv_fields" 1 8 < "$TMP/h.tsv" | awk -F'\t' -v c="$(hex "$n")" -v g="$(hex getppid)" '$1 == c && $2 == g' | wc -l)
	[ "$c" -eq 25 ] || fail "container $(printf %q "$n"): $c getppid rows, not 25"
done
ok "hostile cgroup names: 12 fields, names round-trip, 25 rows each"

mkdir "$TMP/plots"
an=$(realpath "$ANALYZE")
(cd "$TMP/plots" && "$an" --plot out "$TMP/h.tsv" > /dev/null 2>&1) || fail "analyze --plot exited $?"
ls "$TMP"/plots/out/*.gp > /dev/null || fail "no gnuplot scripts written"
found=$(find "$TMP" / -xdev -maxdepth 3 -name 'pwned*' 2>/dev/null | head -3)
[ -z "$found" ] || fail "a name was executed: $found"
ok "analyze --plot on them executes nothing"
