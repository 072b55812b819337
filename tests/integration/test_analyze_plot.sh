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

# The issue's case: 10 boots whose listen() lies within 1.5 ms (one log2
# bucket). The PNG histogram has bins from the data: at least 5, the edges
# in the data file are what the script draws, and each bin's count is the
# number of boots whose listen time (computed here, in awk) lies in it.
# Syscall totals span six decades: the data file is sorted by total and
# equals an awk sum, the axis is logarithmic, each bar has its value.
# Then the axes' rule, on those and on phases that span decades.
listen_us=(45000 45200 45300 45500 45700 45800 46000 46100 46300 46500)
{
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	for i in $(seq 0 9); do
		b=$(( (i + 1) * 1000000000 )) l=$(( listen_us[i] * 1000 ))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n' $b $i $((100 + i)) $((100 + i))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\texec\t\\N\t\\N\t\\N\t/bin/sh\n' $((b + 10000000 + i * 37000)) $i $((100 + i)) $((100 + i))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tsyscall\twait4\t0\t%d\t\\N\n' $((b + 11000000)) $i $((100 + i)) $((100 + i)) $((30000000 + i))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tsyscall\trseq\t0\t%d\t\\N\n' $((b + 12000000)) $i $((100 + i)) $((100 + i)) $((600 + i))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tsyscall\tmmap\t0\t%d\t\\N\n' $((b + 13000000)) $i $((100 + i)) $((100 + i)) $((7000 + i))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tsyscall\tlisten\t0\t1000\t0.0.0.0:80\n' $((b + l - 1000)) $i $((100 + i)) $((100 + i))
		printf '%d\tc%d\t\\N\t%d\t%d\t1\tsh\tsyscall\texit_group\t\\N\t\\N\t\\N\n' $((b + 50000000)) $i $((100 + i)) $((100 + i))
	done
	printf '# lost=0 events=70\n'
} > "$tmp/close.tsv"
"$A" "$tmp/close.tsv" --plot "$tmp/close" > /dev/null || { echo "FAIL: --plot close.tsv exit $?"; fail=1; }
check_pngs "$tmp/close" hist-exec hist-listen syscalls
d=$tmp/close/hist-listen.dat
nb=$(grep -vc '^#' "$d")
[ "$nb" -ge 5 ] || { echo "FAIL: $nb bins for 10 distinct listen times (want >= 5)"; cat "$d"; fail=1; }
# contiguous bins of one width, counts summing to 10
awk -F'\t' '!/^#/ { if (n && $1 != hi) bad = 1; if (n && $2 - $1 != w) bad = 1
	w = $2 - $1; hi = $2; n++; s += $3 } END { exit !(bad == 0 && s == 10 && w > 0) }' "$d" \
	|| { echo "FAIL: bins not contiguous, of unequal width, or not 10 values"; cat "$d"; fail=1; }
# every bin's count from the TSV: listen completion - start, per container
awk -F'\t' 'NR == FNR { if (!/^#/) { lo[++n] = $1; hi[n] = $2; want[n] = $3 }; next }
	/^#/ || $1 == "ts_ns" { next }
	$8 == "start" { st[$2] = $1 }
	$8 == "syscall" && $9 == "listen" && $10 == 0 { v = $1 + $11 - st[$2]
		for (k = 1; k <= n; k++) if (v >= lo[k] && v < hi[k]) got[k]++ }
	END { for (k = 1; k <= n; k++) if (got[k] + 0 != want[k]) { print "bin " k ": " got[k] + 0 " != " want[k]; bad = 1 }
		exit bad }' "$d" "$tmp/close.tsv" || { echo "FAIL: hist-listen.dat counts differ from the TSV"; fail=1; }
# the script draws boxes from each lower edge to its upper edge, tics on edges
first=$(awk '!/^#/ { print $1; exit }' "$d")
grep -q "using ((\$1 + \$2) / 2 / 1000000.0):3:((\$2 - \$1) / 1000000.0) with boxes" "$tmp/close/hist-listen.gp" \
	|| { echo "FAIL: hist-listen.gp does not draw the edges of the data file"; fail=1; }
grep -q "^set xtics $(awk "BEGIN { printf \"%.2f\", $first / 1e6 }")," "$tmp/close/hist-listen.gp" \
	|| { echo "FAIL: hist-listen.gp: tics do not start at the first edge $first"; grep xtics "$tmp/close/hist-listen.gp"; fail=1; }
grep -q 'bins=\|smooth freq' "$tmp/close"/hist-*.gp && { echo "FAIL: gnuplot bins its own data"; fail=1; }
# syscalls.dat: sorted by total, totals and calls as awk sums them
awk -F'\t' '/^#/ || $1 == "ts_ns" { next } $8 == "syscall" { c[$9]++; t[$9] += ($11 == "\\N" ? 0 : $11) }
	END { for (k in c) printf "\"%s\"\t%d\t%d\n", k, t[k], c[k] }' "$tmp/close.tsv" | sort > "$tmp/sys.awk"
grep -v '^#' "$tmp/close/syscalls.dat" | cut -f2-4 | sort > "$tmp/sys.ours"
diff -u "$tmp/sys.awk" "$tmp/sys.ours" || { echo "FAIL: syscalls.dat totals differ from the TSV"; fail=1; }
grep -v '^#' "$tmp/close/syscalls.dat" | cut -f3 | sort -c -n -r || { echo "FAIL: syscalls.dat not sorted by total"; fail=1; }
grep -q $'^0\t"wait4"\t300000045\t10\t"300.0ms, 10 calls"$' "$tmp/close/syscalls.dat" \
	|| { echo "FAIL: syscalls.dat: wait4's row or label"; cat "$tmp/close/syscalls.dat"; fail=1; }
grep -q '"no duration, 10 calls"' "$tmp/close/syscalls.dat" || { echo "FAIL: exit_group's label"; fail=1; }
# (six decades: 6 us of rseq to 300 ms of wait4) a log axis from the decade
# below the least to the one above the most; the values printed beside
# the plot (its right axis' labels), needing no room on the axis
grep -q '^set logscale x' "$tmp/close/syscalls.gp" && grep -q 'y2tic(5)' "$tmp/close/syscalls.gp" \
	|| { echo "FAIL: syscalls.gp: no log axis or no printed values"; fail=1; }
grep -qx 'set xrange \[0.001:1000\]' "$tmp/close/syscalls.gp" \
	|| { echo "FAIL: syscalls.gp: not 0.001 to 1000 ms for 0.006 to 300 ms"; grep xrange "$tmp/close/syscalls.gp"; fail=1; }

# Axes from the data (analyze/stats/axis.h): a log one where the values
# span decades (the largest 20 times the smallest or more), else linear.
# close.tsv's phases, exec 10.0..10.3 ms and listen 45..46.5 ms: a linear
# CDF from 10 to 50 by 5.
grep -q 'logscale' "$tmp/close/cdf.gp" && { echo "FAIL: cdf.gp: a log axis for 10 to 46.5 ms"; fail=1; }
grep -qx 'set xrange \[10:50\]' "$tmp/close/cdf.gp" && grep -qx 'set xtics 5' "$tmp/close/cdf.gp" \
	|| { echo "FAIL: cdf.gp: not 10 to 50 ms by 5"; grep 'xrange\|xtics' "$tmp/close/cdf.gp"; fail=1; }
# exec at 1.2 ms and listen at 900 ms (the issue's docker run): a log CDF from
# 1 to 1000 ms labelled 1, 2, 5 of each decade; the syscalls, 0.8 s of
# nanosleep and 0.3 s of listen a boot, a linear axis from 0 to 2.5 s
{
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	for i in 0 1 2; do
		b=$(( (i + 1) * 10000000000 ))
		printf '%d\td%d\t\\N\t%d\t%d\t1\tsh\tstart\tmkdir\t\\N\t\\N\t\\N\n' $b $i $((100 + i)) $((100 + i))
		printf '%d\td%d\t\\N\t%d\t%d\t1\tsh\texec\t\\N\t\\N\t\\N\t/bin/sh\n' $((b + 1200000 + i * 100000)) $i $((100 + i)) $((100 + i))
		printf '%d\td%d\t\\N\t%d\t%d\t1\tsh\tsyscall\tnanosleep\t0\t800000000\t\\N\n' $((b + 2000000)) $i $((100 + i)) $((100 + i))
		printf '%d\td%d\t\\N\t%d\t%d\t1\tsh\tsyscall\tlisten\t0\t%d\t0.0.0.0:80\n' $((b + 900000000 + i * 1000000 - 300000000)) $i $((100 + i)) $((100 + i)) 300000000
	done
	printf '# lost=0 events=12\n'
} > "$tmp/decades.tsv"
"$A" "$tmp/decades.tsv" --plot "$tmp/decades" > /dev/null || { echo "FAIL: --plot decades.tsv exit $?"; fail=1; }
check_pngs "$tmp/decades" cdf syscalls
grep -qx 'set logscale x 10' "$tmp/decades/cdf.gp" && grep -qx 'set xrange \[1:1000\]' "$tmp/decades/cdf.gp" \
	|| { echo "FAIL: cdf.gp: not a log axis from 1 to 1000 ms for 1.2 to 902 ms"; grep 'logscale\|xrange' "$tmp/decades/cdf.gp"; fail=1; }
grep -qx 'set xtics (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)' "$tmp/decades/cdf.gp" \
	|| { echo "FAIL: cdf.gp: its tics"; grep xtics "$tmp/decades/cdf.gp"; fail=1; }
grep -q 'logscale' "$tmp/decades/syscalls.gp" && { echo "FAIL: syscalls.gp: a log axis for 0.9 to 2.4 s"; fail=1; }
grep -qx 'set xrange \[0:2500\]' "$tmp/decades/syscalls.gp" \
	|| { echo "FAIL: syscalls.gp: not 0 to 2500 ms for 0.9 to 2.4 s"; grep xrange "$tmp/decades/syscalls.gp"; fail=1; }

# Hostile strings, as the collector would write them (escaped where the
# contract says so: TAB, LF, backslash).
{
	printf '# boottrace-tsv 1\n# mode=pidtree\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	i=0
	for name in 'x"; system("touch pwned"); "' '`touch pwned2`' "it's'); system('touch pwned3" \
		'a\nb\\n`touch pwned4`' '@pwned5 $(touch pwned6) ${x}' 'é{\\x}^_&#x' \
		"%s%d'%.2f'"; do
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
check_hostile() { # dir: nothing ran, scripts and data hold no hostile text
	local d=$1 found
	found=$(find "$tmp" "$PWD" "$HOME" / -maxdepth 3 -xdev -name 'pwned*' 2>/dev/null | head -5)
	if [ -n "$found" ]; then
		echo "FAIL: a hostile name executed: $found"; fail=1
	fi
	# Outside single-quoted strings the scripts hold only our own syntax, and
	# every quoted string holds only whitelisted bytes.
	if sed "s/'[^']*'//g" "$d"/*.gp | grep -n '`\|system\|pwned\|"'; then
		echo "FAIL: hostile text outside quotes in a script"; fail=1
	fi
	# (and our own printf formats: '%.2f', '%d', '%g', the only strings with a %)
	if grep -o "'[^']*'" "$d"/*.gp | cut -d: -f2- | grep -v "^'%[.0-9]*[dfg]'$" |
		grep -v "^'[A-Za-z0-9 ._:/+=,()#?-]*'$"; then
		echo "FAIL: a quoted string with bytes off the whitelist"; fail=1
	fi
	if grep -q '[`$@{}]' "$d"/*.dat; then
		echo "FAIL: unsanitized bytes in a data file"; grep -n '[`$@{}]' "$d"/*.dat; fail=1
	fi
}
mkdir "$tmp/run"
(cd "$tmp/run" && "$A" "$tmp/hostile.tsv" --plot out > /dev/null) || { echo "FAIL: hostile --plot exit $?"; fail=1; }
check_pngs "$tmp/run/out" cdf timeline syscalls hist-exec hist-listen bootchart
check_hostile "$tmp/run/out"

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

# With scheduler rows (sched=on): each bar coloured by state. app (10)
# waits on a futex 120.49 ms until its thread (11) wakes it, 0.5 ms of it
# runnable; the thread is preempted 5 ms by a task outside (R: runnable
# throughout), then waits 30 ms in D for a read, 1 ms of it runnable. Every
# piece is longer than a 2000th of the chart: index 4 has each exactly, as
# awk computes it from the sched rows (blocked from leaving the CPU to the
# wake, dur_ns - ret; runnable after it), in ms from the start. The wakers'
# and holders' comms, and the thread's own, are hostile: none reaches a
# script or data file unsanitized, none runs.
sched_row() { # ts tid comm state runnable dur detail
	printf '%d\tsc\t\\N\t10\t%d\t1\t%s\tsched\t%s\t%d\t%d\t%s\n' "$@"
}
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	printf '1000000\tsc\t\\N\t10\t10\t1\truntc\tstart\tspawn\t\\N\t\\N\t\\N\n'
	printf '1050000\tsc\t\\N\t10\t10\t1\tapp\texec\t\\N\t\\N\t\\N\t/usr/bin/app\n'
	printf '1100000\tsc\t\\N\t10\t10\t1\tapp\tsyscall\tclone\t11\t1000000\t\\N\n'
	printf '2000000\tsc\t\\N\t10\t11\t1\tapp\tfork\tthread\t\\N\t\\N\t\\N\n'
	printf '3000000\tsc\t\\N\t10\t10\t1\tapp\tsyscall\tfutex\t0\t120600000\t\\N\n'
	sched_row 3010000 10 app S 500000 120490000 \
		'wake=task waker=11 wpid=10 wcomm=14:`touch pwned8` holder=11 hcomm=14:`touch pwned8` cpu=0'
	sched_row 20000000 11 '$(touch pwned9)' R 5000000 5000000 \
		"wake=none holder=99 hcomm=30:x'); system('touch pwned10') # cpu=1"
	printf '40000000\tsc\t\\N\t10\t11\t1\t$(touch pwned9)\tsyscall\tread\t4096\t30010000\t/data\n'
	sched_row 40005000 11 '$(touch pwned9)' D 1000000 30000000 \
		'wake=task waker=777 wpid=777 wcomm=14:@pwned11 ${x}" holder=0 hcomm=9:swapper/1 cpu=1'
	printf '123000000\tsc\t\\N\t10\t11\t1\t$(touch pwned9)\tsyscall\tfutex\t1\t10000\t\\N\n'
	printf '124000000\tsc\t\\N\t10\t10\t1\tapp\tsyscall\tlisten\t0\t20000\t0.0.0.0:80\n'
	printf '# lost=0 events=11\n'
} > "$tmp/sched.tsv"
mkdir "$tmp/srun"
(cd "$tmp/srun" && "$A" "$tmp/sched.tsv" --plot out > /dev/null) || { echo "FAIL: --plot of sched rows exit $?"; fail=1; }
check_pngs "$tmp/srun/out" bootchart
check_hostile "$tmp/srun/out"
d=$tmp/srun/out/bootchart.dat
# index 0's labels give each row's tid; index 4 against the sched rows
awk -F'\t' 'FNR == 1 { f++ } f == 1 && /^# index/ { ix = $0 ~ /^# index 0/ ? 0 : $0 ~ /^# index 4/ ? 4 : -1; next }
	f == 1 && ix == 0 && /^[0-9]/ { l = $4; gsub(/"| \(thread\)/, "", l); n = split(l, w, " "); tid[$1] = w[n] }
	f == 1 && ix == 4 && /^[0-9]/ { printf "%d\t%s\t%s\t%s\t%s\n", tid[$1], $2, $3, $4, $5 }' "$d" | sort > "$tmp/states.ours"
awk -F'\t' 'function ms(ns) { return sprintf("%d.%06d", int(ns / 1000000), ns % 1000000) }
	$8 == "start" { t0 = $1 }
	$8 == "sched" { out = $1 - t0; wake = out + $11 - $10; back = out + $11
		if (wake > out) printf "%d\t%s\t%s\t%d\t\"%s\"\n", $5, ms(out), ms(wake), $9 == "D" ? 3 : 2, $9 == "D" ? "blocked(D)" : "blocked(S)"
		printf "%d\t%s\t%s\t1\t\"runnable\"\n", $5, ms(wake), ms(back) }' "$tmp/sched.tsv" | sort > "$tmp/states.awk"
diff -u "$tmp/states.awk" "$tmp/states.ours" || { echo "FAIL: bootchart.dat's states differ from the sched rows"; fail=1; }
[ "$(wc -l < "$tmp/states.awk")" = 5 ] || { echo "FAIL: want 5 state spans from awk"; fail=1; }
grep -q "keyentry with boxes fc rgb '#cc79a7' title 'blocked on I/O (D)'" "$tmp/srun/out/bootchart.gp" &&
	grep -q "index 4 using .* with boxxyerror lc rgb variable" "$tmp/srun/out/bootchart.gp" ||
	{ echo "FAIL: bootchart.gp does not draw the states"; fail=1; }
# the sample (no sched rows) draws none
grep -q 'index 4\|keyentry' "$tmp/report/bootchart.gp" "$tmp/report/bootchart.dat" &&
	{ echo "FAIL: states drawn without sched rows"; fail=1; }

# Which rows the boot chart gives (host rows, --sched host): the path's
# task first (app 10, after the runtime), then by CPU used in the window:
# its thread 11 (147 ms running), the host task noisy 43 (30 ms), lazy 12
# (2 ms), the host kworker 40 (1 ms, and it woke app: the blocked
# segment's waker, not followed into a kernel thread); the host's
# migration/0 and rcu_preempt slept through the boot: left out, counted.
# kworker's and rcu_preempt's TASK_IDLE (state I) is drawn as blocked (S)
# or idle, never as blocked on I/O (D).
hrow() { # ts container pid tid ppid comm event name ret dur detail
	printf '%s\t%s\t\\N\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"
}
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n# host_rows=all\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	hrow 500000 '\N' 40 40 2 kworker/0:1 sched I 0 68500000 'wake=irq holder=0 hcomm=9:swapper/0 cpu=0'
	hrow 500000 '\N' 41 41 2 migration/0 sched S '\N' 199500000 'cpu=0'
	hrow 500000 '\N' 42 42 2 rcu_preempt sched I '\N' 199700000 'cpu=0'
	hrow 500000 '\N' 43 43 1 noisy sched S 0 19500000 'wake=irq holder=0 hcomm=9:swapper/1 cpu=1'
	hrow 1000000 bc 10 10 1 runc start spawn '\N' '\N' '\N'
	hrow 2000000 bc 10 10 1 app exec '\N' '\N' '\N' /usr/bin/app
	hrow 3000000 bc 10 11 1 app fork thread '\N' '\N' 'parent=10'
	hrow 4000000 bc 12 12 10 app fork process '\N' '\N' 'parent=10'
	hrow 6000000 bc 12 12 10 lazy sched S 0 190000000 'wake=irq holder=0 hcomm=9:swapper/0 cpu=0'
	hrow 10000000 bc 10 10 1 app syscall futex 0 60000000 '\N'
	hrow 10010000 bc 10 10 1 app sched S 0 59990000 'wake=task waker=40 wpid=40 wcomm=11:kworker/0:1 cpu=0'
	hrow 50001000 '\N' 43 43 1 noisy sched S 0 100000000 'wake=irq holder=0 hcomm=9:swapper/1 cpu=1'
	hrow 70000000 '\N' 40 40 2 kworker/0:1 sched I 0 129000000 'wake=irq holder=0 hcomm=9:swapper/0 cpu=0'
	hrow 150000000 bc 10 11 1 app syscall nanosleep 0 1000 '\N'
	hrow 199000000 bc 10 10 1 app syscall listen 0 1000000 '0.0.0.0:80'
	printf '# lost=0 events=15\n'
} > "$tmp/host.tsv"
"$A" "$tmp/host.tsv" --plot "$tmp/host" > /dev/null || { echo "FAIL: --plot with host rows exit $?"; fail=1; }
check_pngs "$tmp/host" bootchart
got=$(awk -F'\t' '/^# index/ { ix = $0 ~ /^# index 0/ } ix && /^[0-9]/ { print $1, $4 }' "$tmp/host/bootchart.dat" |
	sort -n | cut -d' ' -f2- | tr -d '"' | paste -sd,)
want='runtime runc,app 10,app 11 (thread),noisy 43,lazy 12,kworker/0:1 40'
[ "$got" = "$want" ] || { echo "FAIL: bootchart rows with host tasks: $got, not $want"; fail=1; }
grep -q "5 of 7 tasks shown; 2 idle host tasks not shown (neither ran nor woke the path)" \
	"$tmp/host/bootchart.gp" || { echo "FAIL: bootchart title: $(grep title "$tmp/host/bootchart.gp")"; fail=1; }
awk -F'\t' '/^# index/ { ix = $0 ~ /^# index 4/ } ix && $1 == 5 && $4 != 2 { bad = 1 } END { exit bad }' \
	"$tmp/host/bootchart.dat" || { echo "FAIL: the kworker's TASK_IDLE not drawn as idle"; fail=1; }

# A task preempted 100000 times in 1 s (every 10 us): 8 us of each 10
# runnable in the first half second, 2 us in the second. The data stays
# bounded: the first half one runnable span (the state that took most of
# it), the second none (running: the bar beneath).
awk 'BEGIN { OFS = "\t"
	print "# boottrace-tsv 1"; print "# mode=cgroup"; print "# sched=on"
	print "ts_ns", "container", "cgroup_id", "pid", "tid", "ppid", "comm", "event", "name", "ret", "dur_ns", "detail"
	t0 = 1000000000
	print t0, "busy", "\\N", 10, 10, 1, "rt", "start", "spawn", "\\N", "\\N", "\\N"
	print t0, "busy", "\\N", 10, 10, 1, "hog", "exec", "\\N", "\\N", "\\N", "/bin/hog"
	for (k = 0; k < 100000; k++) {
		d = k < 50000 ? 8000 : 2000
		print t0 + k * 10000 + 2000, "busy", "\\N", 10, 10, 1, "hog", "sched", "R", d, d, "wake=none holder=20 hcomm=3:cpu cpu=0"
	}
	print t0 + 1000000000, "busy", "\\N", 10, 10, 1, "hog", "syscall", "listen", 0, 1000, "0.0.0.0:80"
	print "# lost=0 events=100003" }' > "$tmp/busy.tsv"
"$A" "$tmp/busy.tsv" --plot "$tmp/busy" > /dev/null || { echo "FAIL: --plot of 100000 sched rows exit $?"; fail=1; }
check_pngs "$tmp/busy" bootchart
awk -F'\t' '/^# index/ { ix = $0 ~ /^# index 4/ } ix && /^[0-9]/ { print }' "$tmp/busy/bootchart.dat" > "$tmp/busy.states"
[ "$(wc -l < "$tmp/busy.states")" = 1 ] &&
	awk -F'\t' '{ exit !($4 == 1 && $2 < 0.01 && $3 > 499.9 && $3 < 500.1) }' "$tmp/busy.states" ||
	{ echo "FAIL: 100000 preemptions: want one runnable span over the first 500 ms"; cat "$tmp/busy.states"; fail=1; }

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

# A container that listened with no exec row (a process already running
# when the collector found it): its timeline bar runs from its start to the
# listen (gnuplot once refused the timeline: "x range is invalid", exit 1).
printf '# boottrace-tsv 1\n# mode=pidtree\n%s\n%s\n%s\n' \
	"$(printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail')" \
	"$(printf '1000000000\tc1\t\\N\t10\t10\t9\tx\tstart\tmkdir\t\\N\t\\N\t\\N')" \
	"$(printf '1005000000\tc1\t\\N\t10\t10\t9\tx\tsyscall\tlisten\t0\t1000\t0.0.0.0:80')" > "$tmp/noexec.tsv"
"$A" "$tmp/noexec.tsv" --plot "$tmp/noexec" > /dev/null 2>&1 || { echo "FAIL: --plot of a boot without exec exit $?"; fail=1; }
check_pngs "$tmp/noexec" timeline
grep -q '^0	"c1"	-	5001.000000	0.000000$' "$tmp/noexec/timeline.dat" ||
	{ echo "FAIL: the bar of a boot without exec is not start to listen (5001 us)"; cat "$tmp/noexec/timeline.dat"; fail=1; }

# gnuplot missing: the message says how to render later
PATH=/nonexistent "$A" samples/boot-small.tsv --plot "$tmp/nognuplot" > /dev/null 2> "$tmp/err"
if [ $? -ne 0 ] || ! grep -q "gnuplot not found; render with: cd $tmp/nognuplot && gnuplot \*.gp" "$tmp/err"; then
	echo "FAIL: no gnuplot"; cat "$tmp/err"; fail=1
fi
[ -f "$tmp/nognuplot/timeline.gp" ] || { echo "FAIL: scripts not written without gnuplot"; fail=1; }
exit $fail
