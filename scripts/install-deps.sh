#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# install-deps.sh [EXTRA-PACKAGE...]: install the Debian packages boottrace
# needs to build, test and demo, and only those that are missing. Idempotent:
# a second run installs nothing and says so. Needs root when anything is
# missing.
set -eu

# build: clang + bpftool make the BPF objects and skeletons; libbpf, libelf,
# zlib and libcgroup are linked; linux-libc-dev has asm/unistd_64.h.
# tests: cmocka; util-linux has unshare; postgresql checks the TSV loads.
# runtime: gnuplot renders the PNG plots.
pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libcgroup-dev linux-libc-dev pkg-config libcmocka-dev util-linux procps
gnuplot-nox postgresql $*"

missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
echo "install-deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install packages (try: sudo make ...)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
