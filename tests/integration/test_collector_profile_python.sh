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
#    DWARF (gdb's ptype/o).
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
exit 0
