#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Every link and path in README.md, docs/*.md and the man pages is valid,
# and the README stays at 300 lines or fewer (tests/tools/doclinks.py says
# what it checks: links and their #anchors as GitHub makes them, the
# repository's paths in backquotes, in the text and in commands, other
# documents named, tests named, collector(8) and analyze(1), each option
# of a collector or analyze command line against that program's --help,
# and the files collector/README.md and analyze/README.md list). Then the checker on a copy of the documents with mistakes
# planted, one of each kind: each is found, named by its file and line,
# and nothing else; well-made links pass; a README of 301 lines does not.
# Needs no root; 4 runs of the checker.
. "$(dirname "$0")/lib.sh"
have python3 "the documents' links" || exit 77
[ -x "$COLLECTOR" ] && [ -x "$ANALYZE" ] || fail "no $COLLECTOR or $ANALYZE: make all first"
for p in collector analyze; do
	"$OUTPUT/$p" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u | sed "s/^/$p /"
done > "$TMP/options"
check() { python3 tests/tools/doclinks.py --options "$TMP/options" "$@"; }

check > "$TMP/out" 2> "$TMP/err" ||
	fail "the documents have broken links or paths:
$(cat "$TMP/out")"
ok "$(cat "$TMP/err")"

# a root of its own: the repository's files linked, README.md, docs/ and man/ copied
root=$TMP/root
mkdir "$root"
for f in * .[!.]*; do
	case $f in README.md|docs|man|collector|.git|build) continue ;; esac
	ln -s "$PWD/$f" "$root/$f"
done
mkdir "$root/collector"		# its files linked, its README copied
for f in collector/*; do
	[ "$f" = collector/README.md ] || ln -s "$PWD/$f" "$root/$f"
done
fresh() {
	rm -rf "$root/README.md" "$root/docs" "$root/man" && cp README.md "$root/" && cp -r docs man "$root/"
	cp collector/README.md "$root/collector/"
}
# plant DOC TEXT WANT [K]: TEXT appended to DOC in the copy, to be found as
# WANT at DOC:LINE, LINE the TEXT's Kth line (1); checked at once by check_planted
planted=()
plant() {
	local doc=$1 text=$2 want=$3 k=${4:-1} line
	line=$(( $(wc -l < "$root/$doc") + 1 + k ))
	printf '\n%s\n' "$text" >> "$root/$doc"
	planted+=("$doc:$line: $want")
}
fresh
plant docs/testing.md 'A [broken link](nosuch.md).' 'link to nosuch.md: no such file'
plant README.md 'The [format](docs/tsv-format.md#no-such-section).' \
	'link to docs/tsv-format.md#no-such-section: no heading #no-such-section in docs/tsv-format.md'
plant docs/profiles.md '![a picture](images/gone.png)' 'link to images/gone.png: no such file'
plant docs/costs.md 'Measured by `bench/nosuch.sh`.' 'path bench/nosuch.sh: no such file in the repository'
plant docs/fleet.md 'As collector/run/gone.c writes it.' 'path collector/run/gone.c: no such file in the repository'
plant docs/runtimes.md '`test_runtime_nosuch` checks it.' \
	'test test_runtime_nosuch: no tests/integration/test_runtime_nosuch.sh, tests/unit/test_runtime_nosuch.c'
plant docs/marks.md 'See docs/nosuch.md.' 'path docs/nosuch.md: no such file in the repository'
plant docs/analyze.md 'As analyze(3) says.' 'man page analyze(3): no man/analyze.3'
plant docs/testing.md "$(printf '```\nsudo tests/integration/nosuch.sh\n```')" \
	'path tests/integration/nosuch.sh: no such file in the repository' 2
plant collector/README.md "$(printf '```\nmain.c  x\nrun/\n  gone.c  a file the wing lost\n```')" \
	'run/gone.c: no such file in collector' 4
plant man/collector.8 'the format: \fIdocs/nosuch.md\fR' 'path docs/nosuch.md: no such file in the repository'
plant docs/profiles.md "$(printf '```\nsudo build/collector --profile=99 --nosuch -o x.tsv -- docker run --rm x\n```')" \
	'collector --nosuch: no such option (collector --help)' 2
plant docs/critical-path.md '`analyze --runs 3 boot.tsv` (a collector option)' \
	'analyze --runs: no such option (analyze --help)'
check --root "$root" > "$TMP/out" 2>&1 && fail "the planted mistakes passed"
for want in "${planted[@]}"; do
	grep -qxF "$want" "$TMP/out" || fail "planted, not found: '$want'; found: $(cat "$TMP/out")"
done
[ "$(grep -c '^[^ ]*:[0-9]*: ' "$TMP/out")" -eq "${#planted[@]}" ] || fail "more found than planted: $(cat "$TMP/out")"
ok "a broken link, anchor, image, path (backquoted, in the text, in a command), test name, man page and option: each found at its line"
# the same links well made pass: a heading's anchor, a glob, a placeholder, a program by its source
fresh
printf '\n%s\n' 'See [span rows](tsv-format.md#span-rows), `tests/integration/test_runtime_*`,
`fuzz/corpus/TARGET/*`, `collector/run/spawn.c:42`, `tests/tools/burn`, `test_spans[ruby]` and analyze(1).' \
	>> "$root/docs/testing.md"
check --root "$root" > "$TMP/out" 2>&1 || fail "well-made links reported: $(cat "$TMP/out")"
ok "well-made links, globs and placeholders pass"
# the README at 301 lines
seq 301 | sed 's/^/line /' > "$root/README.md"
check --root "$root" > "$TMP/out" 2>&1 && fail "a README of 301 lines passed"
grep -q '^README.md: 301 lines, more than 300' "$TMP/out" || fail "README of 301 lines: $(cat "$TMP/out")"
ok "a README of 301 lines is refused"
