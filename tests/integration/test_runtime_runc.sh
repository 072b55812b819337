#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# runc (no daemon, a state directory of its own) under one watch (issue 13):
# cgroupsPath P/c1 then P/c2 with P made by the first; P/q/c3 and P/q/c4 at
# once with P/q made while they start; one with runc's default path (the
# container id) -- each container its own, named after its cgroup, none
# after P or P/q; the exec phase is the entrypoint's exec (runc's
# /proc/self/exe and /dev/fd/N re-execs race into the cgroup before it);
# then `collector -c 'P/*' --runs 3 --until listen -- runc run ...`.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime runc
start_runc

bundle() { # bundle NAME CGPATH: $TMP/NAME, the probe on a port of its own
	local port
	port=$(rt_free_port) || fail "no free port"
	runc_bundle "$TMP/$1" "$2" sh -c "$(httpd_cmd "$port")" || fail "cannot write the bundle $1"
}
crun_one() { "${RUNC[@]}" run -b "$TMP/$1" "bt-$$-$1" > /dev/null || fail "runc run $1 failed"; }
bundle c1 "$RT_PARENT/c1"
bundle c2 "$RT_PARENT/c2"
bundle c3 "$RT_PARENT/q/c3"
bundle c4 "$RT_PARENT/q/c4"
bundle c5 ""
# runc's default path is the container id, under runc's own cgroup (here the
# v2 root): its own parent of the test's, removed at exit
rt_own_cgroup "/bt-$$-c5"

watch_start "$TMP/w.tsv" -s listen
crun_one c1
crun_one c2
crun_one c3 & a=$!
crun_one c4 & b=$!
wait $a || exit 1
wait $b || exit 1
crun_one c5
watch_stop "$TMP/w.tsv"

for c in c1 c2 c3 c4; do
	case $c in c1|c2) p=$RT_PARENT/$c ;; *) p=$RT_PARENT/q/$c ;; esac
	expect_container "$TMP/w.tsv" "$p" "$c" && entrypoint_ok "$TMP/w.tsv" "$c" /bin/sh
done
expect_container "$TMP/w.tsv" "/bt-$$-c5" "bt-$$-c5" && entrypoint_ok "$TMP/w.tsv" "bt-$$-c5" /bin/sh
[ "$misses" -eq 0 ] && ok "runc: 5 containers, each its own, exec phase at its entrypoint, listen"
m=$misses
no_parent_container "$TMP/w.tsv" "$RT_PARENT" "$RT_PARENT/q"
[ "$misses" -eq "$m" ] && ok "runc: no container for $RT_PARENT nor $RT_PARENT/q (made during the watch)"

# the client timed three times: runc run in the foreground, stopped at listen
port=$(rt_free_port) || fail "no free port"
runc_bundle "$TMP/c6" "$RT_PARENT/c6" sh -c "httpd -f -p 127.0.0.1:$port & sleep 60; kill %1" ||
	fail "cannot write the bundle c6"
client_runs "$RT_PARENT/*" 'c6.*' "${RUNC[@]}" run -b "$TMP/c6" "bt-$$-c6"
[ -z "$("${RUNC[@]}" list -q)" ] || miss "runc containers left: $("${RUNC[@]}" list -q)"

cleanup_checked
misses_done
