#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/integration/nspawn_rootfs.sh: the Debian rootfs test_dist_systemd
# boots under systemd-nspawn (mmdebstrap, minbase + systemd and the
# collector's libraries), built once and kept in $BOOTTRACE_CACHE
# (default /var/cache/boottrace); its path on stdout. Run by itself it
# builds (tests/stages.sh starts it in the background before the tests:
# on a fresh machine the build takes 80 s, mostly downloads and dpkg,
# that would otherwise sit on the suite's time); sourced, it gives
# nspawn_rootfs, which waits for a build under way (a lock) and builds when
# none was made. Exit 0 and nothing built without mmdebstrap (the test says
# why it cannot run).
NSPAWN_PKGS=systemd,systemd-sysv,dbus,procps,libbpf1,libelf1,zlib1g,libcgroup2,libdw1,libdebuginfod1

# nspawn_rootfs LOG: the rootfs's path, built when missing (mmdebstrap's
# output to LOG); 1 when the build failed (LOG says why)
nspawn_rootfs() {
	local cache=${BOOTTRACE_CACHE:-/var/cache/boottrace} rootfs t0 rc=0
	rootfs=$cache/nspawn-bookworm-$(echo "$NSPAWN_PKGS" | md5sum | cut -c1-8)
	mkdir -p "$cache" || return 1
	(
		flock 9 || exit 1
		[ -d "$rootfs" ] && exit 0
		t0=$(date +%s)
		mmdebstrap --variant=minbase --include="$NSPAWN_PKGS" bookworm "$rootfs.tmp.$$" > "$1" 2>&1 || {
			rm -rf "$rootfs.tmp.$$"
			exit 1
		}
		mv "$rootfs.tmp.$$" "$rootfs" || { rm -rf "$rootfs.tmp.$$"; exit 1; }
		echo "# built $rootfs in $(($(date +%s) - t0)) s" >&2
	) 9> "$cache/nspawn.lock" || rc=1
	[ $rc -eq 0 ] && echo "$rootfs"
	return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	command -v mmdebstrap > /dev/null || exit 0
	log=$(mktemp /tmp/boottrace-nspawn.XXXXXX) || exit 1
	nspawn_rootfs "$log" > /dev/null
	rc=$?
	[ $rc -eq 0 ] || tail -5 "$log" >&2
	rm -f "$log"
	exit $rc
fi
