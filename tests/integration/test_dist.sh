#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The collector as a service (dist/): `make install` puts the systemd unit
# (with its ExecStart filled in) and the Prometheus examples under PREFIX,
# and honours DESTDIR; `systemd-analyze verify` accepts the unit (systemd
# is not PID 1 here: its sandboxing is not run, but what it rests on is
# checked below) and `systemd-analyze security` scores it; the collector,
# run as the unit runs it with only the unit's capabilities and no new
# privileges, traces a container and serves its metrics; none of the
# system calls the unit's filter refuses is made by the collector (strace,
# each BPF object); promtool accepts the example config and rules, and
# their tests on synthetic series pass.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/metrics.sh"
unit=dist/boottrace-collector.service

# 1. make install, into a PREFIX of the test's, then with DESTDIR
make -s --no-print-directory install OUTPUT="$OUTPUT" PREFIX="$TMP/usr" > "$TMP/make.log" 2>&1 ||
	fail "make install PREFIX=$TMP/usr: $(tail -3 "$TMP/make.log")"
inst=$TMP/usr/lib/systemd/system/boottrace-collector.service
for f in "$TMP/usr/sbin/collector" "$TMP/usr/bin/analyze" "$TMP/usr/share/man/man8/collector.8" "$inst" \
	"$TMP/usr/share/doc/boottrace/examples/prometheus/boottrace.rules.yml"; do
	[ -f "$f" ] || fail "make install: no $f"
done
grep -qx "ExecStart=$TMP/usr/sbin/collector --metrics 9432 -o /var/lib/boottrace/boot.tsv" "$inst" ||
	fail "the installed unit's ExecStart: $(grep ExecStart= "$inst")"
make -s --no-print-directory install OUTPUT="$OUTPUT" PREFIX=/usr DESTDIR="$TMP/dest" > "$TMP/make.log" 2>&1 ||
	fail "make install DESTDIR=: $(tail -3 "$TMP/make.log")"
grep -qx 'ExecStart=/usr/sbin/collector --metrics 9432 -o /var/lib/boottrace/boot.tsv' \
	"$TMP/dest/usr/lib/systemd/system/boottrace-collector.service" || fail "DESTDIR: the unit's ExecStart"
[ -x "$TMP/dest/usr/sbin/collector" ] || fail "DESTDIR: no collector"
ok "make install: binaries, man pages, the unit (ExecStart filled in) and the examples; DESTDIR honoured"

# 2. systemd-analyze
if have systemd-analyze "the unit's checks"; then
	# (it runs man(1) on Documentation=: the pages just installed)
	MANPATH=$TMP/usr/share/man systemd-analyze verify "$inst" > "$TMP/verify" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$TMP/verify")"
	[ -s "$TMP/verify" ] && fail "systemd-analyze verify said: $(cat "$TMP/verify")"
	score=$(systemd-analyze security --offline=yes "$inst" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 4.0) }' ||
		fail "systemd-analyze security: exposure ${score:-unknown}, more than 4.0"
	ok "systemd-analyze verify: no complaint; security: exposure $score (0 safe .. 10 exposed)"
fi

# 3. promtool: the example config, rules, and the rules' tests
if have promtool "the Prometheus examples' checks"; then
	(cd dist/prometheus && promtool check config prometheus.yml && promtool check rules boottrace.rules.yml &&
		promtool test rules boottrace.rules.test.yml) > "$TMP/promtool" 2>&1 ||
		fail "promtool: $(cat "$TMP/promtool")"
	ok "promtool: config and $(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$TMP/promtool" | head -1) rules valid, their tests pass"
fi

# 4. the unit's capabilities are enough: its ExecStart, its bounding set, no new privileges
need_root
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
set=-all
for c in $caps; do c=${c#CAP_}; set="$set,+${c,,}"; done
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}
read -r -a args <<< "$(sed -n 's|^ExecStart=@SBINDIR@/collector ||p' "$unit")"
# the unit's options, with the test's port and file
for i in "${!args[@]}"; do
	case ${args[$i]} in 9432) args[$i]=0 ;; /var/lib/boottrace/boot.tsv) args[$i]=$TMP/boot.tsv ;; esac
done
setpriv --no-new-privs --inh-caps=-all --bounding-set="$set" -- \
	"$COLLECTOR" "${args[@]}" --cgroup "$rel/*" 2> "$TMP/boot.tsv.err" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
for _ in $(seq 200); do grep -q '^ts_ns' "$TMP/boot.tsv" 2> /dev/null && break; sleep 0.05; done
grep -q '^ts_ns' "$TMP/boot.tsv" || fail "the collector with $set did not start: $(cat "$TMP/boot.tsv.err")"
eff=$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")
addr=$(metrics_addr "$TMP/boot.tsv.err")
mkdir "$CGPARENT/c1" || fail "mkdir"
sh -c "echo \$\$ > $CGPARENT/c1/cgroup.procs && exec $TOOLS/listen_once" || fail "listen_once"
rmdir "$CGPARENT/c1"
sleep 0.3
text=$(scrape "$addr")
kill -TERM $pid
wait $pid || fail "the collector exited $? on SIGTERM: $(cat "$TMP/boot.tsv.err")"
check_tsv "$TMP/boot.tsv"
[ "$(sample "$text" 'boottrace_phase_seconds_count{phase="listen",runtime="other"}')" = 1 ] ||
	fail "no listen in the metrics: $(grep phase_seconds_count <<< "$text")"
[ "$("$ANALYZE" --format tsv "$TMP/boot.tsv" 2>/dev/null | awk '$1 == "listen" { print $2 }')" = 1 ] ||
	fail "analyze: no listen in $TMP/boot.tsv"
ok "the unit's command line with only ${caps// /, } (CapEff $eff), no new privileges: a container traced, its metrics served"

# 5. the unit's system call filter refuses nothing the collector calls
if have strace "the system call filter's check"; then
	deny=$(sed -n 's/^SystemCallFilter=~//p' "$unit")
	for set in $deny; do systemd-analyze syscall-filter "$set" | grep -v '^@\|^ *#\|^$'; done |
		sed 's/^ *//' | sort -u > "$TMP/denied"
	[ "$(wc -l < "$TMP/denied")" -ge 30 ] || fail "the filter's sets ($deny) list $(wc -l < "$TMP/denied") calls"
	for obj in modern compat legacy; do
		mode=cgroup
		[ $obj = legacy ] && mode=pidtree
		strace -f -qq -o "$TMP/strace.$obj" "$COLLECTOR" --object $obj --mode $mode --metrics 0 \
			-d 2 -o "$TMP/s.tsv" 2> "$TMP/s.err" &
		spid=$!
		addr=$(metrics_addr "$TMP/s.err")
		scrape "$addr" > /dev/null
		mkdir "$CGPARENT/s$obj" && sh -c "echo \$\$ > $CGPARENT/s$obj/cgroup.procs && exec $TOOLS/listen_once"
		rmdir "$CGPARENT/s$obj"
		wait $spid || fail "collector --object $obj under strace exited $?: $(cat "$TMP/s.err")"
	done
	sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$TMP"/strace.* | sort -u > "$TMP/used"
	bad=$(comm -12 "$TMP/used" "$TMP/denied" | tr '\n' ' ')
	[ -z "$bad" ] || fail "the unit's SystemCallFilter refuses what the collector calls: $bad"
	ok "SystemCallFilter=~$deny: $(wc -l < "$TMP/denied") calls refused, none of the $(wc -l < "$TMP/used") the collector makes (strace, each object)"
fi
