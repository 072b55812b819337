#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile names a Python app's own frames (issue 29, item 4): Debian's
# python3.11 runs tests/tools/pyburn.py, whose burn_long spins 200 ms of
# CPU in Python code (spin, called from it) and burn_short 100 ms, both
# called by main. python3.11 keeps no frame pointers: without the
# interpreter's frames a sample says only _PyEval_EvalFrameDefault.
# Checked:
#  - the raw TSV: stack rows carry i: frames `spin (FILE:LINE)`,
#    `burn_long (FILE:LINE)` ..., LINE each function's def line;
#  - analyze --profile: burn_long's total is 2x burn_short's (±15%),
#    and each's the CPU time the function measured itself (its thread's
#    clock before and after, printed) in samples at 999 Hz (±15%); main
#    above both;
#  - in a container of its own (pid and mount namespaces: the
#    interpreter's file reached through the process's own mappings);
#  - the struct offsets the collector reads with equal python3.11-dbg's
#    DWARF (gdb's ptype/o);
#  - 30 modules imported in a row, each burning 10 ms at its top level,
#    whose <module> code objects land where the one before last's was
#    freed: each's samples named by its own file (the names' tag,
#    bpf/inames.bpf.h).
# The compat and legacy objects read no interpreter frames (modern only).
# modes: cgroup pidtree
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/interp.sh"
need_root
PY=/usr/bin/python3.11
APP=$(cd "$(dirname "$0")/../tools" && pwd)/pyburn.py
[ -x "$PY" ] || { [ "${CI:-}" = true ] && fail "no $PY (scripts/install-deps.sh installs python3.11)"; skip "no $PY"; }
line_of() { grep -n "^def $1(" "$APP" | cut -d: -f1; }

# 0. the offsets against DWARF (python3.11-dbg)
if have gdb "the offsets check" && gdb -batch -ex 'ptype/o struct _PyInterpreterFrame' "$PY" 2>/dev/null |
	grep -q f_code; then
	# each offset as `print (long)&((TYPE *)0)->FIELD`, all in one gdb
	exprs=(
		"pyruntimestate.gilstate+tstate_current|(long)&((struct pyruntimestate *)0)->gilstate.tstate_current"
		"_ts.cframe|(long)&((struct _ts *)0)->cframe"
		"_ts.native_thread_id|(long)&((struct _ts *)0)->native_thread_id"
		"_PyCFrame.current_frame|(long)&((struct _PyCFrame *)0)->current_frame"
		"_PyInterpreterFrame.f_code|(long)&((struct _PyInterpreterFrame *)0)->f_code"
		"_PyInterpreterFrame.previous|(long)&((struct _PyInterpreterFrame *)0)->previous"
		"_PyInterpreterFrame.is_entry|(long)&((struct _PyInterpreterFrame *)0)->is_entry"
		"PyCodeObject.co_firstlineno|(long)&((PyCodeObject *)0)->co_firstlineno"
		"PyCodeObject.co_filename|(long)&((PyCodeObject *)0)->co_filename"
		"PyCodeObject.co_qualname|(long)&((PyCodeObject *)0)->co_qualname"
		"PyASCIIObject.length|(long)&((PyASCIIObject *)0)->length"
		"PyASCIIObject.state|(long)&((PyASCIIObject *)0)->state"
		"PyASCIIObject.sizeof|(long)sizeof(PyASCIIObject)"
		"PyCompactUnicodeObject.utf8_length|(long)&((PyCompactUnicodeObject *)0)->utf8_length"
		"PyCompactUnicodeObject.utf8|(long)&((PyCompactUnicodeObject *)0)->utf8"
		"pyruntimestate.interpreters.main|(long)&((struct pyruntimestate *)0)->interpreters.main"
		"PyInterpreterState.threads.head|(long)&((PyInterpreterState *)0)->threads.head"
		"_ts.next|(long)&((struct _ts *)0)->next"
	)
	args=()
	for x in "${exprs[@]}"; do args+=(-ex "print ${x#*|}"); done
	want=$("$TOOLS/interp_offsets")
	dwarf=$(paste -d' ' <(for x in "${exprs[@]}"; do echo "${x%%|*}"; done) \
		<(gdb -batch "${args[@]}" "$PY" 2>/dev/null | sed -n 's/^\$[0-9]* = //p'))
	[ "$want" = "$dwarf" ] || fail "the collector's CPython 3.11 offsets differ from the DWARF's: $(diff <(echo "$want") <(echo "$dwarf"))"
	ok "CPython 3.11 offsets: the 18 the collector reads equal python3.11-dbg's DWARF"
elif [ "${CI:-}" = true ]; then
	fail "no gdb or no python3.11-dbg: the offsets cannot be checked (scripts/install-deps.sh installs them)"
else
	echo "# skipped the offsets check: needs gdb and python3.11-dbg"
fi

interp_run host "$APP" line_of -- "$PY" "$APP"
cgroup_mode && interp_run container "$APP" line_of --unshare pid,mount -- "$PY" "$APP"

# 2. code objects made where others were freed (bpf/inames.bpf.h, the
# tag): IMODS modules imported in a row, each burning ~10 ms of CPU in its
# own top level. importlib drops a module's <module> code once it ran, and
# the module after next's lands at its address (3.11, here: two
# addresses taken in turn):
# each module's samples must be named by its own file, `<module>
# (.../modNN.py:1)`. Checked: each file's samples are the CPU time the
# module measured itself (±4 samples or ±40%: some 10 samples each; a
# module named by another's file has none, or twice its own), and
# every sample taken within a module's burn (its CLOCK_MONOTONIC start and
# end, the rows' clock) names that module's file, and no other's.
IMODS=30
mkdir -p "$TMP/imods"
for i in $(seq 0 $((IMODS - 1))); do
	m=$(printf mod%02d "$i")
	cat > "$TMP/imods/$m.py" <<-PY
		import sys, time
		t0, c0 = time.monotonic_ns(), time.thread_time_ns()
		while time.thread_time_ns() - c0 < 10000000:
		    pass
		c1, t1 = time.thread_time_ns(), time.monotonic_ns()
		sys.stdout.write("$m cpu_ns=%d\\n$m window %d %d\\n" % (c1 - c0, t0, t1))
	PY
done
cat > "$TMP/imods/main.py" <<-PY
	import importlib, sys, time
	sys.path.insert(0, "$TMP/imods")
	time.sleep(0.1)  # registered at the process's first sample (interp_run's apps wait as long)
	for i in range($IMODS):
	    importlib.import_module("mod%02d" % i)
PY
tsv=$TMP/imods.tsv
"$COLLECTOR" --profile=999 -o "$tsv" -- "$PY" "$TMP/imods/main.py" > "$TMP/imods.out" 2> "$TMP/imods.err" ||
	fail "imports: collector exited $?: $(cat "$TMP/imods.err")"
check_tsv "$tsv"
[ "$(grep -c ' cpu_ns=' "$TMP/imods.out")" = "$IMODS" ] ||
	fail "imports: $(grep -c ' cpu_ns=' "$TMP/imods.out") of $IMODS modules said their CPU time"
folded=$("$ANALYZE" --profile --until end --top 100000 --format folded "$tsv") || fail "imports: analyze --profile exited $?"
period=$(rows "$tsv" sample | cut -f11 | sort -u)
bad=0 sum=0 want=0
for i in $(seq 0 $((IMODS - 1))); do
	m=$(printf mod%02d "$i")
	n=$(awk -v f="<module> ($TMP/imods/$m.py:1)" 'index($0, f) { n += $NF } END { print n + 0 }' <<< "$folded")
	e=$(cpu_samples "$(burner_ns "$TMP/imods.out" "$m")" "$period")
	sum=$((sum + n)) want=$((want + e))
	if [ $((n > e ? n - e : e - n)) -gt 4 ] && ! ratio_near "$n" "$e" 1 40; then
		echo "# $m: $n samples named <module> ($m.py:1), for $e of its CPU time"
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || fail "imports: $bad of $IMODS modules' samples are not their CPU time by their own name"
ratio_near "$sum" "$want" 1 15 || fail "imports: $sum samples named by the modules, for $want of their CPU time"
# each sample within modNN's burn: its stack names modNN.py and no other module
wrong=$(awk -F'\t' -v dir="$TMP/imods/" '
	FNR == NR { if ($2 == "window") { lo[$1] = $3; hi[$1] = $4 }; next }
	/^#/ || $8 == "" { next }
	$8 == "stack" { st[$9] = $12; next }
	$8 != "sample" { next }
	{
		for (m in lo) {
			if ($1 + 0 < lo[m] + 0 || $1 + 0 > hi[m] + 0)
				continue
			s = st[$9]; seen++
			if (!index(s, dir m ".py:1)")) { bad++; if (bad <= 3) print "# sample at " $1 " in the burn of " m ": " s > "/dev/stderr" }
			gsub(dir m ".py", "", s)
			if (index(s, dir "mod")) { bad++; if (bad <= 3) print "# sample at " $1 " in the burn of " m " names another module: " s > "/dev/stderr" }
		}
	}
	END { print bad + 0, seen + 0 }' <(tr ' ' '\t' < "$TMP/imods.out") "$tsv")
[ "${wrong% *}" = 0 ] || fail "imports: ${wrong% *} of ${wrong#* } samples within a module's burn not named by its own file"
[ "${wrong#* }" -ge $((want / 2)) ] || fail "imports: only ${wrong#* } samples within the modules' burns, for $want of their CPU time"
ok "imports: $IMODS modules, each's <module> frames named by its own file: $sum samples for $want of their" \
	"CPU time, ${wrong#* } within their burns, none named by another's"
exit 0
