#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --plot: real PNGs of sensible size, and hostile names (gnuplot's
# system(), backquotes, quotes, newlines) that must execute nothing.
set -u
OUTPUT=${OUTPUT:-build}
A=$(realpath "$OUTPUT/analyze")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v gnuplot > /dev/null; then
	echo "gnuplot is not installed (apt-get install gnuplot-nox)"
	exit 77
fi

check_pngs() { # dir, then expected base names
	local d=$1 f size; shift
	for f in "$@"; do
		if [ ! -f "$d/$f.png" ]; then echo "FAIL: no $d/$f.png"; fail=1; continue; fi
		if [ "$(head -c 4 "$d/$f.png" | od -An -tx1 | tr -d ' ')" != 89504e47 ]; then
			echo "FAIL: $f.png is not a PNG"; fail=1
		fi
		size=$(stat -c %s "$d/$f.png")
		if [ "$size" -le 5120 ]; then echo "FAIL: $f.png is only $size bytes"; fail=1; fi
		[ -f "$d/$f.gp" ] || { echo "FAIL: no $f.gp"; fail=1; }
	done
}

"$A" samples/boot-small.tsv --plot "$tmp/report" > /dev/null || { echo "FAIL: --plot exit $?"; fail=1; }
check_pngs "$tmp/report" hist-exec hist-listen hist-mark-2 cdf timeline syscalls bootchart
# the scripts re-run by hand, as the docs say
(cd "$tmp/report" && rm -f ./*.png && gnuplot ./*.gp) || { echo "FAIL: re-running gnuplot"; fail=1; }
check_pngs "$tmp/report" cdf timeline

# Hostile strings, as the collector would write them (escaped where the
# contract says so: TAB, LF, backslash).
{
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	i=0
	for name in 'x"; system("touch pwned"); "' '`touch pwned2`' "it's'); system('touch pwned3" \
		'a\nb\\n`touch pwned4`' '@pwned5 $(touch pwned6) ${x}' 'é{\\x}^_&#x'; do
		i=$((i + 1))
		b=$((i * 1000000000))
		printf '%d\t%s\t\\N\t%d\t%d\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n' $b "$name" $i $i
		printf '%d\t%s\t\\N\t%d\t%d\t1\t`touch pwned7`\texec\t\\N\t\\N\t\\N\t/bin/%s\n' $((b + 5000000 * i)) "$name" $i $i "$name"
		printf '%d\t%s\t\\N\t%d\t%d\t1\tsh\tsyscall\t%s\t0\t%d\t\\N\n' $((b + 6000000 * i)) "$name" $i $i "$name" $((1000 * i))
		printf '%d\t%s\t\\N\t%d\t%d\t1\tsh\tsyscall\tlisten\t0\t100\t\\N\n' $((b + 9000000 * i)) "$name" $i $i
		printf '%d\t%s\t\\N\t%d\t%d\t1\tsh\tmark\t%s\t\\N\t\\N\t\\N\n' $((b + 9500000 * i)) "$name" $i $i "$name"
	done
	printf '# lost=0 events=30\n'
} > "$tmp/hostile.tsv"
mkdir "$tmp/run"
(cd "$tmp/run" && "$A" "$tmp/hostile.tsv" --plot out > /dev/null) || { echo "FAIL: hostile --plot exit $?"; fail=1; }
found=$(find "$tmp" "$PWD" "$HOME" / -maxdepth 3 -xdev -name 'pwned*' 2>/dev/null | head -5)
if [ -n "$found" ]; then
	echo "FAIL: a hostile name executed: $found"; fail=1
fi
check_pngs "$tmp/run/out" cdf timeline syscalls hist-exec hist-listen bootchart
# Outside single-quoted strings the scripts hold only our own syntax, and
# every quoted string holds only whitelisted bytes.
if sed "s/'[^']*'//g" "$tmp/run/out"/*.gp | grep -n '`\|system\|pwned\|"'; then
	echo "FAIL: hostile text outside quotes in a script"; fail=1
fi
if grep -o "'[^']*'" "$tmp/run/out"/*.gp | cut -d: -f2- | grep -v "^'[A-Za-z0-9 ._:/+=,()#?-]*'$"; then
	echo "FAIL: a quoted string with bytes off the whitelist"; fail=1
fi
if grep -q '[`$@{}]' "$tmp/run/out"/*.dat; then
	echo "FAIL: unsanitized bytes in a data file"; grep -n '[`$@{}]' "$tmp/run/out"/*.dat; fail=1
fi

# A boot of 150 tasks: the chart keeps the path's and the long-lived ones,
# at most 60 rows, says how many it hid, and stays within its size.
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	printf '1000000\tmany\t\\N\t100\t100\t1\trt\tstart\tspawn\t\\N\t\\N\t\\N\n'
	printf '1000500\tmany\t\\N\t100\t100\t1\tsh\texec\t\\N\t\\N\t\\N\t/bin/sh\n'
	for i in $(seq 1 150); do
		t=$((1000000 + i * 100000))
		printf '%d\tmany\t\\N\t100\t100\t1\tsh\tsyscall\tclone\t%d\t1000\t\\N\n' $t $((100 + i))
		printf '%d\tmany\t\\N\t%d\t%d\t100\tsh\tfork\tprocess\t\\N\t\\N\t\\N\n' $((t + 500)) $((100 + i)) $((100 + i))
		# every third one lives 5 ms (over 1% of the boot), the others 50 us
		d=50000; [ $((i % 3)) = 0 ] && d=5000000
		printf '%d\tmany\t\\N\t%d\t%d\t100\tjob\tsyscall\tnanosleep\t0\t%d\t\\N\n' $((t + 1000)) $((100 + i)) $((100 + i)) $d
		printf '%d\tmany\t\\N\t%d\t%d\t100\tjob\texit\t\\N\t0\t\\N\t\\N\n' $((t + 1000 + d)) $((100 + i)) $((100 + i))
	done
	printf '%d\tmany\t\\N\t100\t100\t1\tsh\tsyscall\tlisten\t0\t1000\t0.0.0.0:80\n' 20000000
	printf '# lost=0 events=602\n'
} > "$tmp/many.tsv"
"$A" "$tmp/many.tsv" --plot "$tmp/many" > /dev/null || { echo "FAIL: --plot of 150 tasks exit $?"; fail=1; }
check_pngs "$tmp/many" bootchart
rows=$(awk '/^# index 1/ { exit } /^[0-9]/ { n++ } END { print n }' "$tmp/many/bootchart.dat")
# 50 long-lived jobs and sh (on the path); the 100 short ones hidden
[ "$rows" = 52 ] || { echo "FAIL: bootchart rows: $rows, not 52 (51 tasks + the runtime)"; fail=1; }
grep -q "51 of 151 tasks shown (100 hidden: alive under 1 percent of the boot and off the critical path)" \
	"$tmp/many/bootchart.gp" || { echo "FAIL: bootchart title: $(grep title "$tmp/many/bootchart.gp")"; fail=1; }
h=$(od -An -tu1 -j20 -N4 "$tmp/many/bootchart.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
[ "$h" -le $((160 + 22 * 60)) ] || { echo "FAIL: bootchart.png is $h px high"; fail=1; }

# A regular file is read twice for --plot (the second time keeping the rows
# of the charted containers only); a pipe once, keeping all: the same charts.
"$A" samples/boot-small.tsv --plot "$tmp/twice" --plot-container 'web-*' > "$tmp/twice.out" ||
	{ echo "FAIL: --plot of a file exit $?"; fail=1; }
"$A" - --plot "$tmp/once" --plot-container 'web-*' < samples/boot-small.tsv > "$tmp/once.out" ||
	{ echo "FAIL: --plot of stdin exit $?"; fail=1; }
cmp -s "$tmp/twice.out" "$tmp/once.out" || { echo "FAIL: --plot: the reports differ"; fail=1; }
for f in bootchart bootchart-1 bootchart-2 bootchart-3; do
	cmp -s "$tmp/twice/$f.dat" "$tmp/once/$f.dat" || { echo "FAIL: $f.dat differs read once and twice"; fail=1; }
done
[ -e "$tmp/twice/bootchart-4.dat" ] && { echo "FAIL: a chart for a container --plot-container does not match"; fail=1; }

# gnuplot missing: the message says how to render later
PATH=/nonexistent "$A" samples/boot-small.tsv --plot "$tmp/nognuplot" > /dev/null 2> "$tmp/err"
if [ $? -ne 0 ] || ! grep -q "gnuplot not found; render with: cd $tmp/nognuplot && gnuplot \*.gp" "$tmp/err"; then
	echo "FAIL: no gnuplot"; cat "$tmp/err"; fail=1
fi
[ -f "$tmp/nognuplot/timeline.gp" ] || { echo "FAIL: scripts not written without gnuplot"; fail=1; }
exit $fail
