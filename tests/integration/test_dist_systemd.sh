#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# dist/boottrace-collector.service under a real systemd: a Debian bookworm
# rootfs (mmdebstrap, minbase + systemd and the collector's libraries,
# built once and kept in $BOOTTRACE_CACHE, default /var/cache/boottrace;
# each run boots an overlay of it, so the cache stays clean) booted with
# systemd-nspawn --boot (systemd as PID 1), `make install DESTDIR=` into
# it, the unit enabled. Then, inside, through the container's own systemctl:
#   - the unit is active at boot, its collector holds only the unit's
#     capabilities (CAP_BPF, CAP_PERFMON, CAP_IPC_LOCK; CAP_SYS_RESOURCE
#     when the host's bounding set has it to give: the test machine's
#     has not, and 5.11+ kernels do not need it) and has loaded its BPF
#     programs: a service
#     started with systemd-run (webapp, listening) is traced, from its
#     cgroup's mkdir to its listen, and analyze times it;
#   - reload (SIGHUP, after a logrotate-style mv): the old file gets its
#     trailer, the new one is part 2 of the same run, and a container
#     that makes exactly 30000 getppid calls across the reload has all
#     30000 rows in the two files;
#   - kill -9 of the collector: systemd restarts it (Restart=on-failure,
#     5 s), a new run; the killed run's file is kept (ExecStartPre), and
#     a service started after the restart is traced.
# nspawn needs: --capability= with the unit's capabilities (it keeps a
# smaller set by default) and --system-call-filter='bpf perf_event_open'
# (its seccomp filter refuses them by default); --private-network keeps
# the unit's metrics port (9432) off the host's; --register=no and
# --keep-unit, as there is no machined or system bus on the host. The
# collector sees the whole host's cgroups (BPF is global): the checks
# look at the container's own services only.
. "$(dirname "$0")/lib.sh"
need_root
have systemd-nspawn "the systemd unit under systemd" || skip "systemd-nspawn is not installed"
have mmdebstrap "the systemd unit under systemd" || skip "mmdebstrap is not installed"
CHECKOUT=$PWD
OUTPUT=$(realpath "$OUTPUT")

# 1. the rootfs, built once (tests/stages.sh starts its build before the tests)
. "$(dirname "$0")/nspawn_rootfs.sh"
rootfs=$(nspawn_rootfs "$TMP/mmdebstrap.log") || fail "mmdebstrap: $(tail -5 "$TMP/mmdebstrap.log")"
root=$TMP/root
mkdir -p "$TMP/upper" "$TMP/work" "$root"
mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$TMP/upper,workdir=$TMP/work" "$root" ||
	fail "overlay mount of $rootfs"
cleanup_hooks+=("umount -l '$root' 2>/dev/null")

# 2. make install into it, and the programs the services run
make -s -C "$CHECKOUT" install OUTPUT="$OUTPUT" DESTDIR="$root" PREFIX=/usr/local > "$TMP/install.log" 2>&1 ||
	fail "make install: $(tail -5 "$TMP/install.log")"
cp "$OUTPUT/samples/webapp" "$OUTPUT/tests/getppid_loop" "$root/usr/local/bin/" || fail "cp"
systemctl --root="$root" enable boottrace-collector > /dev/null 2>&1 || fail "systemctl enable"
echo bttest > "$root/etc/hostname"

# 3. boot, in cgroups of the test's own (nspawn makes payload/ and
# supervisor/ beside itself, in the unified and the name=systemd hierarchies)
make_cgparent
rel=${CGPARENT#$(cgroup2_mount)}
mkdir "$CGPARENT/nspawn" || fail "mkdir"
v1=
if [ -d /sys/fs/cgroup/systemd ] && mountpoint -q /sys/fs/cgroup/systemd; then
	v1=/sys/fs/cgroup/systemd$rel
	mkdir -p "$v1/nspawn" || fail "mkdir $v1"
	cleanup_hooks+=("find '$v1' -depth -type d -exec rmdir {} + 2>/dev/null")
fi
caps=CAP_BPF,CAP_PERFMON,CAP_SYS_RESOURCE,CAP_IPC_LOCK
sh -c 'echo $$ > "$1/cgroup.procs" && { [ -z "$2" ] || echo $$ > "$2/cgroup.procs"; } && shift 2 && exec "$@"' \
	sh "$CGPARENT/nspawn" "${v1:+$v1/nspawn}" \
	systemd-nspawn -D "$root" --boot --register=no --keep-unit --private-network -M bttest \
	--capability="$caps" --system-call-filter='bpf perf_event_open' --console=pipe \
	< /dev/null > "$TMP/console.log" 2>&1 &
nspawn=$!
# SIGTERM halts it; a second one ends it at once
cleanup_hooks=("kill $nspawn 2>/dev/null; for _ in \$(seq 50); do kill -0 $nspawn 2>/dev/null || break; sleep 0.2; done; kill -9 $nspawn 2>/dev/null; wait $nspawn 2>/dev/null" "${cleanup_hooks[@]}")
leader=
for _ in $(seq 100); do
	leader=$(pgrep -P $nspawn -x systemd) && break
	sleep 0.1
done
[ -n "$leader" ] || fail "nspawn did not start systemd: $(tail -5 "$TMP/console.log")"
inside() { nsenter -t "$leader" -a -r -w -- "$@"; }
state=
for _ in $(seq 150); do
	state=$(inside systemctl is-system-running 2> /dev/null)
	case $state in running|degraded) break ;; esac
	sleep 0.2
done
case $state in running|degraded) ;; *) fail "the container's systemd is '$state': $(tail -5 "$TMP/console.log")" ;; esac
[ "$(inside cat /proc/1/comm)" = systemd ] || fail "PID 1 is not systemd"
unit=boottrace-collector
[ "$(inside systemctl is-active $unit)" = active ] ||
	fail "$unit is not active at boot: $(inside systemctl status $unit --no-pager 2>&1 | tail -5)"
ok "systemd $(inside systemctl --version | head -1 | cut -d' ' -f2) as PID 1 in nspawn ($state), $unit active at boot"

mainpid() { inside systemctl show -p MainPID --value $unit; }
tsv=/var/lib/boottrace/boot.tsv
# wait_rows FILE PATTERN: FILE (in the container) has a row matching PATTERN
wait_rows() {
	for _ in $(seq 100); do inside grep -aq "$2" "$1" 2> /dev/null && return 0; sleep 0.1; done
	return 1
}
# the collector has written its header (it attached: its BPF is loaded)
for _ in $(seq 100); do inside grep -q '^ts_ns' $tsv 2> /dev/null && break; sleep 0.1; done

# 4. the hardening holds and BPF works under it
pid=$(mainpid)
capeff=$(inside awk '/^CapEff/ { print $2 }' /proc/"$pid"/status)
# CAP_IPC_LOCK 14, CAP_SYS_RESOURCE 24, CAP_PERFMON 38, CAP_BPF 39: nothing else
(( (0x$capeff & ~((1 << 14) | (1 << 24) | (1 << 38) | (1 << 39))) == 0 )) ||
	fail "the collector has capabilities beyond the unit's: CapEff $capeff"
(( (0x$capeff & ((1 << 38) | (1 << 39))) == (1 << 38 | 1 << 39) )) || fail "no CAP_BPF/CAP_PERFMON: $capeff"
[ "$(inside awk '/^NoNewPrivs/ { print $2 }' /proc/"$pid"/status)" = 1 ] || fail "NoNewPrivs is not set"
[ "$(inside awk '/^Seccomp:/ { print $2 }' /proc/"$pid"/status)" = 2 ] || fail "no seccomp filter"
inside systemd-run --unit bt-web1 --quiet /usr/local/bin/webapp --port 8081 --warmup-ms 30 || fail "systemd-run"
wait_rows $tsv $'^[0-9]*\tbt-web1.service\t.*\tsyscall\tlisten\t0\t' || fail "bt-web1's listen is not traced"
inside systemctl stop bt-web1
wait_rows $tsv $'bt-web1.service\t.*\tend\t' || fail "bt-web1's end row"
inside analyze --container bt-web1.service --format tsv $tsv 2> /dev/null | awk -F'\t' '$1 == "listen" && $2 == 1' | grep -q . ||
	fail "analyze does not time bt-web1: $(inside analyze --container bt-web1.service $tsv 2>&1)"
ok "the collector under the unit's hardening (CapEff $capeff, NoNewPrivs, seccomp) traces bt-web1.service to its listen"

# 5. reload after a logrotate-style move: nothing lost across it
inside systemd-run --unit bt-loop --quiet /bin/sh -c \
	'/usr/local/bin/getppid_loop 10000; sleep 1; /usr/local/bin/getppid_loop 10000; sleep 1; /usr/local/bin/getppid_loop 10000' ||
	fail "systemd-run bt-loop"
sleep 0.5
inside mv $tsv $tsv.moved || fail "mv"
inside systemctl reload $unit || fail "systemctl reload"
for _ in $(seq 100); do inside grep -q '^# part=2$' $tsv 2> /dev/null && break; sleep 0.1; done
inside grep -q '^# part=2$' $tsv || fail "no part 2 after the reload"
for _ in $(seq 100); do [ "$(inside systemctl is-active bt-loop)" = active ] || break; sleep 0.1; done
wait_rows $tsv $'bt-loop.service\t.*\tend\t' || fail "bt-loop's end row"
inside tail -1 $tsv.moved | grep -q '^# lost=0 events=[0-9]*$' || fail "the moved file's trailer: $(inside tail -1 $tsv.moved)"
run1=$(inside sed -n 's/^# run_id=//p' $tsv.moved)
[ "$(inside sed -n 's/^# run_id=//p' $tsv)" = "$run1" ] || fail "the reload began another run"
n=$(inside cat $tsv.moved $tsv | awk -F'\t' '$2 == "bt-loop.service" && $7 == "getppid_loop" && $8 == "syscall" && $9 == "getppid"' | wc -l)
n1=$(inside cat $tsv.moved | awk -F'\t' '$2 == "bt-loop.service" && $7 == "getppid_loop" && $8 == "syscall" && $9 == "getppid"' | wc -l)
[ "$n" -eq 30000 ] || fail "bt-loop's getppid rows: $n, not 30000 ($n1 before the reload)"
[ "$n1" -gt 0 ] && [ "$n1" -lt 30000 ] || fail "the reload was not during bt-loop ($n1 rows before it)"
ok "systemctl reload: part 2 of run $run1, the moved file has its trailer, bt-loop's 30000 getppid rows all there ($n1 before the reload)"

# 6. kill -9: restarted, a new run, the old file kept
old=$(mainpid)
inside systemctl kill -s KILL $unit || fail "systemctl kill"
new=
for _ in $(seq 150); do
	new=$(mainpid)
	[ -n "$new" ] && [ "$new" != 0 ] && [ "$new" != "$old" ] && [ "$(inside systemctl is-active $unit)" = active ] && break
	sleep 0.1
done
[ -n "$new" ] && [ "$new" != 0 ] && [ "$new" != "$old" ] ||
	fail "not restarted after kill -9: $(inside systemctl status $unit --no-pager 2>&1 | tail -5)"
[ "$(inside systemctl show -p NRestarts --value $unit)" -ge 1 ] || fail "NRestarts"
for _ in $(seq 100); do inside grep -q '^ts_ns' $tsv 2> /dev/null && break; sleep 0.1; done
kept=$(inside sh -c "ls $tsv.[0-9]*" | head -1)
[ -n "$kept" ] && inside grep -q "^# run_id=$run1$" "$kept" || fail "the killed run's file was not kept: $(inside ls -l /var/lib/boottrace)"
[ "$(inside sed -n 's/^# run_id=//p' $tsv)" != "$run1" ] || fail "the same run after a restart"
inside systemd-run --unit bt-web2 --quiet /usr/local/bin/webapp --port 8082 --warmup-ms 30 || fail "systemd-run"
wait_rows $tsv $'^[0-9]*\tbt-web2.service\t.*\tsyscall\tlisten\t0\t' || fail "bt-web2 is not traced after the restart"
inside systemctl stop bt-web2
ok "kill -9: restarted (pid $old -> $new), a new run, the killed run's file kept as $kept, bt-web2 traced"
