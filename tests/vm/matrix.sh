#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/vm/matrix.sh DIR 'TEST...' KERNEL...: make vmtest's results, from
# what each kernel left in DIR: KERNEL.log (tests/run.sh's output: on the
# serial console for a VM), KERNEL.release (its uname -r), KERNEL.why
# (what went wrong with the kernel itself: not fetched, timed out, died)
# and KERNEL.time (/usr/bin/time: wall, user, system seconds).
# Each test is expected once per mode of its "# modes:" line (or once,
# "auto", without one), on each kernel: one result each, as tests/run.sh
# printed it ("--- PASS|FAIL|SKIP NAME[MODE]"). A result missing from a
# log is a failure (the VM died or timed out before it); a kernel without
# a log (not fetched) counts its tests as skipped, as failed with CI=true.
# Prints the output of each failed test, the matrix kernel x mode and one
# closing line "N passed, N failed, N skipped"; exits 1 if any failed.
# VMTEST_TEST_DIR: where the tests and lib.sh are (default
# tests/integration; tests/integration/test_vmtest_matrix.sh has its own).
set -u
cd "$(dirname "$0")/../.." || exit 1
dir=$1 tests=$2
shift 2
kernels=("$@")
tdir=${VMTEST_TEST_DIR:-tests/integration}

expected=() # NAME or NAME[MODE], as tests/run.sh prints them
modes=()    # the matrix's columns, in the order the tests name them
for entry in $tests; do
	t=${entry%%:*}
	f=$tdir/$t.sh
	[ -f "$f" ] || { echo "vmtest: no test $f" >&2; exit 2; }
	ms=$(sed -n 's/^# modes: //p' "$f")
	if [ -z "$ms" ]; then
		expected+=("$t")
		ms=auto
	else
		# NAME:MODE,MODE: those of its modes only (tests/run.sh's TESTS_ONLY)
		[[ "$entry" == *:* ]] && ms=$(for m in $ms; do [[ ",${entry#*:}," == *",$m,"* ]] && echo "$m"; done)
		for m in $ms; do expected+=("${t}[$m]"); done
	fi
	for m in $ms; do
		[[ " ${modes[*]} " == *" $m "* ]] || modes+=("$m")
	done
done

passed=0 failed=0 skipped=0
declare -A cell_pass cell_all cell_fail cell_skip results
failures=()
for k in "${kernels[@]}"; do
	log=$dir/$k.log
	# RESULT NAME per line
	[ -f "$log" ] && while read -r r n; do
		results[$k/$n]=$r
	done < <(tr -d '\r' < "$log" | awk '$1 == "---" && $2 ~ /^(PASS|FAIL|SKIP)$/ { sub(/:$/, "", $3); print $2, $3 }')
	for e in "${expected[@]}"; do
		case $e in *\]) m=${e##*[}; m=${m%]} ;; *) m=auto ;; esac
		cell_all[$k/$m]=$((${cell_all[$k/$m]:-0} + 1))
		r=${results[$k/$e]:-}
		if [ -z "$r" ] && [ ! -f "$log" ]; then
			r=SKIP # the kernel is not there: said in its .why
			[ "${CI:-}" = true ] && r=FAIL
		fi
		case $r in
		PASS) passed=$((passed + 1)); cell_pass[$k/$m]=$((${cell_pass[$k/$m]:-0} + 1)) ;;
		SKIP) skipped=$((skipped + 1)); cell_skip[$k/$m]=1 ;;
		*) failed=$((failed + 1)); failures+=("$k $e"); cell_fail[$k/$m]=1 ;;
		esac
	done
done

release() { cat "$dir/$1.release" 2>/dev/null || echo "$1"; }

# the output of each failed test, from its kernel's log
for f in "${failures[@]}"; do
	k=${f%% *} e=${f#* }
	echo "######## vmtest: FAIL $e on $(release "$k") ($k)"
	[ -s "$dir/$k.why" ] && echo "vmtest: $k: $(cat "$dir/$k.why")"
	[ -f "$dir/$k.log" ] && tr -d '\r' < "$dir/$k.log" |
		awk -v n="$e" '$1 == "===" && $2 == n { p = 1 } p { print } p && $1 == "---" { exit }' | tail -40
done
# and how each VM that went wrong ended
for k in "${kernels[@]}"; do
	if [ ! -s "$dir/$k.why" ] || [ ! -f "$dir/$k.log" ]; then continue; fi
	echo "######## vmtest: $k: $(cat "$dir/$k.why"); the end of $dir/$k.log:"
	tr -d '\r' < "$dir/$k.log" | tail -20
done

echo "######## vmtest: kernel x mode (docs/vmtest.md)"
printf '%-40s' kernel
for m in "${modes[@]}"; do printf ' %-9s' "$m"; done
echo
for k in "${kernels[@]}"; do
	printf '%-40s' "$(release "$k") ($k)"
	for m in "${modes[@]}"; do
		a=${cell_all[$k/$m]:-0} p=${cell_pass[$k/$m]:-0}
		if [ "$a" -eq 0 ]; then c=-
		elif [ -n "${cell_fail[$k/$m]:-}" ]; then c="$p/$a FAIL"
		elif [ -n "${cell_skip[$k/$m]:-}" ]; then c="$p/$a skip"
		else c="$p/$a ok"
		fi
		printf ' %-9s' "$c"
	done
	if [ -s "$dir/$k.why" ]; then
		printf ' %s' "$(cat "$dir/$k.why")"
	elif [ -s "$dir/$k.time" ]; then # (after the command's exit status, if not 0)
		tail -1 "$dir/$k.time" | awk '{ printf " %.0f s, %.0f CPU-s", $1, $2 + $3 }'
	fi
	echo
done
# the columns: lib.sh's options for each BT_MODE
for m in "${modes[@]}"; do
	if [ "$m" = auto ]; then
		echo "  auto: collector without --mode or --object (a test without modes)"
	else
		sed -n "s/^$m) mode_opts=\"\\(.*\\)\" ;;\$/  $m: collector \\1/p" "$tdir/lib.sh"
	fi
done
echo "  tests: $tests"
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
