#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The wings of collector/ and analyze/ include downwards only. Each tree's
# README holds its order in an `include-order` block, one rank a line, top
# first, of wings (run/) and top-level files (collector.h, idmap.*). A file
# may include the files of its own wing, the top-level files of its own
# line (and they its wing's), and the files of the lines below: nothing
# above, nor beside (read/ and stats/ on one line do not include each
# other); a file in no line, or an include of the other tree, fails too.
# Then the same check on a copy of the trees must fail where back-edges are
# planted (so that it cannot pass by finding nothing): kernel/ including
# collector.h, a sibling edge read/ -> stats/, analyze/ including
# collector/, a new top-level file no line names. Well under a second.
. "$(dirname "$0")/lib.sh"

# order TREE DIR: the README's include-order lines of DIR/TREE, "RANK ENTRY" each
order() {
	awk -v tree="$2" '/^```include-order/ { on = 1; next } on && /^```/ { exit }
		on && NF { r++; for (i = 1; i <= NF; i++) print r, $i }' "$1/$2/README.md"
}

# check_tree DIR: every include of DIR's collector/ and analyze/ sources
# against their orders; the violations on stdout, one a line; 0 when none
check_tree() {
	local dir=$1 tree bad=0
	for tree in collector analyze; do
		order "$dir" "$tree" > "$TMP/order.$tree"
		[ -s "$TMP/order.$tree" ] || { echo "$tree/README.md: no include-order block"; bad=1; continue; }
		(cd "$dir" && find "$tree" -name '*.[ch]' | sort) > "$TMP/files.$tree"
		(cd "$dir" && xargs grep -HE '^#[[:space:]]*include[[:space:]]+"(collector|analyze)/') \
			< "$TMP/files.$tree" > "$TMP/inc.$tree" || true
		awk -v tree="$tree" -v orderf="$TMP/order.$tree" '
			# unit_of(path): "RANK UNIT" of a file of the tree, "" when in no rank
			function unit_of(p,   rest, w, f, k) {
				rest = substr(p, length(tree) + 2)
				if (index(rest, "/")) {
					w = substr(rest, 1, index(rest, "/"))
					return (w in wing) ? wing[w] " " w : ""
				}
				for (k = 1; k <= nloose; k++)
					if (glob(rest, loose[k]))
						return looserank[k] " top" looserank[k]
				return ""
			}
			# a unit as the README names it: its wing, or the file itself
			function name(u, p) {
				return u ~ /^top/ ? substr(p, length(tree) + 2) : u
			}
			function glob(s, g,   re) {
				re = g; gsub(/\./, "\\.", re); gsub(/\*/, ".*", re)
				return s ~ ("^" re "$")
			}
			BEGIN {
				while ((getline line < orderf) > 0) {
					split(line, a, " ")
					if (a[2] ~ /\/$/) wing[a[2]] = a[1]
					else { loose[++nloose] = a[2]; looserank[nloose] = a[1] }
				}
			}
			FILENAME == "-" {
				# the tree'"'"'s files: each in a rank
				if (unit_of($0) == "") {
					printf "%s: in no rank of %s/README.md'"'"'s include-order\n", $0, tree
					bad = 1
				}
				next
			}
			{
				from = substr($0, 1, index($0, ":") - 1)
				to = $0; sub(/^[^"]*"/, "", to); sub(/".*/, "", to)
				if (index(to, tree "/") != 1) {
					printf "%s includes %s: the other tree\n", from, to
					bad = 1
					next
				}
				uf = unit_of(from); ut = unit_of(to)
				if (uf == "" || ut == "")
					next	# said above (or a file that does not exist)
				split(uf, f, " "); split(ut, t, " ")
				# down, within a wing, or between a line'"'"'s wing and its top-level files
				if (f[2] == t[2] || t[1] + 0 > f[1] + 0 ||
				    (t[1] == f[1] && (f[2] ~ /^top/ || t[2] ~ /^top/)))
					next
				printf "%s includes %s: %s, from rank %d (%s) to rank %d (%s)\n", from, to,
				       t[1] == f[1] ? "beside it" : "up", f[1], name(f[2], from),
				       t[1], name(t[2], to)
				bad = 1
			}
			END { exit bad }' - "$TMP/inc.$tree" < "$TMP/files.$tree" || bad=1
	done
	return $bad
}

# The tree as it is.
if ! check_tree . > "$TMP/out"; then
	fail "includes that run up (the order: collector/README.md, analyze/README.md):
$(cat "$TMP/out")"
fi
n=$(cat "$TMP/inc.collector" "$TMP/inc.analyze" | wc -l)
[ "$n" -ge 300 ] || fail "only $n includes of the trees seen: the check looks at nothing"
ok "collector/ and analyze/: $n includes, each down the README's order or within its wing"

# A copy with back-edges planted: each one is named.
copy=$TMP/copy
mkdir -p "$copy"
cp -r collector analyze "$copy/"
check_tree "$copy" > "$TMP/out" || fail "the unchanged copy fails: $(cat "$TMP/out")"
echo '#include "collector/collector.h"' >> "$copy/collector/kernel/proc.c"
echo '#include "analyze/stats/stats.h"' >> "$copy/analyze/read/reader.c"
echo '#include "collector/run/child.h"' >> "$copy/analyze/units.c"
touch "$copy/collector/newroom.c"
check_tree "$copy" > "$TMP/out" && fail "the planted back-edges pass the check"
for want in \
	'collector/kernel/proc.c includes collector/collector.h: up, from rank [0-9]+ \(kernel/\) to rank [0-9]+ \(collector.h\)' \
	'analyze/read/reader.c includes analyze/stats/stats.h: beside it, from rank ([0-9]+) \(read/\) to rank \1 \(stats/\)' \
	'analyze/units.c includes collector/run/child.h: the other tree' \
	'collector/newroom.c: in no rank'; do
	grep -Eq "^$want" "$TMP/out" || fail "the planted edge is not named ('$want'): $(cat "$TMP/out")"
done
[ "$(wc -l < "$TMP/out")" -eq 4 ] || fail "more than the 4 planted faults: $(cat "$TMP/out")"
ok "planted in a copy: kernel/ -> collector.h, read/ -> stats/, analyze -> collector, a file in no rank: each named, nothing else"
