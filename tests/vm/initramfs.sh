#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/vm/initramfs.sh OUT.cpio CONF: the initramfs make vmtest boots every
# kernel with (tests/vm/vmtest.sh). It holds:
#   - busybox (static, Debian's busybox-static): mount, ip, poweroff, and
#     every other command below that the host does not provide;
#   - the host's own copies, with their shared libraries, of the commands
#     the integration tests run (bash, dash as /bin/sh, mawk as awk, grep,
#     sed, coreutils, unshare): busybox's are other programs, with fewer
#     options (realpath has no -s, for one) and an awk of their own, and
#     the tests were written against these;
#   - /init (tests/vm/init) and CONF, its settings, as /bt/vmtest.conf;
#   - the build at the same places the tests find it natively, under /bt:
#     build/collector, build/analyze, the test programs (tests/tools, and
#     remap's libspin_a.so and libspin_b.so) and the samples, with their
#     shared libraries; tests/run.sh and
#     tests/integration/ (lib.sh and the tests);
#   - /etc/ld.so.cache made for this root (--mark uprobe:libc:... reads
#     it), /etc/hosts, /etc/passwd, /etc/group.
# The tree is made in OUT.root (not OUT.d: the Makefile reads *.d) and
# packed uncompressed (newc): QEMU hands it to the kernel as it is, and
# copying costs less than inflating under TCG (gzip -1: 0.8 s more a
# boot, measured).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-build}
out=$1 conf=$2
root=$out.root
bb=/bin/busybox

die() { echo "vmtest: $*" >&2; exit 1; }
{ [ -x "$bb" ] && "$bb" --list | grep -x poweroff > /dev/null; } || # (not -q: pipefail)
	die "no static busybox at $bb (apt-get install busybox-static; make deps)"
[ -x "$OUTPUT/collector" ] || die "no $OUTPUT/collector (make all first)"

rm -rf "$root"
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,bt,etc,proc,sys,dev,tmp,run,root}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
chmod 1777 "$root/tmp"

# copy FILE...: the files at their own paths in the root (symlinks kept,
# and followed to their targets) and every shared library they load, as
# ldd resolves them on the host.
copy() {
	local f
	for f in "$@"; do copy_path "$f"; done
	# one ldd for all (it fails on a static binary: no libraries)
	{ ldd "$@" 2> /dev/null || true; } | awk '/=> \// { print $3 } /^\t\// { print $1 }' |
		sort -u | while read -r f; do copy_path "$f"; done
}
copy_path() { # copy_path PATH: PATH (and what its links lead to) into the root
	local p=$1 t
	p=$(realpath -s "$p")
	case $p in /bin/*|/sbin/*|/lib/*|/lib64/*) p=/usr$p ;; esac # merged /usr, as on Debian 12
	[ -e "$root$p" ] || [ -L "$root$p" ] && return 0
	mkdir -p "${root}${p%/*}"
	if [ -L "$1" ]; then
		t=$(readlink "$1")
		ln -s "$t" "$root$p"
		case $t in /*) copy_path "$t" ;; *) copy_path "${1%/*}/$t" ;; esac
	else
		cp "$1" "$root$p"
	fi
}

# The commands the chosen tests, lib.sh and run.sh run, from the host.
host_cmds="bash dash awk mawk grep sed cat cut sort head tail wc seq tr od
timeout mktemp realpath readlink sleep mkdir rmdir rm cp mv ln touch date id
printf env dirname basename chmod ls tee uname stat unshare kill xargs find
true false test expr nproc readelf"
paths=()
for c in $host_cmds; do
	p=$(type -P "$c") || die "no $c on the host"
	paths+=("$p")
done
copy "${paths[@]}"
ln -sf dash "$root/usr/bin/sh"

# busybox for the rest (mount, ip, poweroff, ...), never over a host copy
cp "$bb" "$root/usr/bin/busybox"
for a in $("$bb" --list); do
	[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] || ln -s busybox "$root/usr/bin/$a"
done

# the build: binaries at the paths the tests use, with their libraries
bins=("$OUTPUT/collector" "$OUTPUT/analyze")
for s in tests/tools/*.c; do bins+=("$OUTPUT/tests/$(basename "$s" .c)"); done
bins+=("$OUTPUT"/tests/libspin_?.so)	# tests/tools/remap's libraries (Makefile)
for s in samples/*.c; do bins+=("$OUTPUT/samples/$(basename "$s" .c)"); done
for b in "${bins[@]}"; do
	mkdir -p "$root/bt/${b%/*}"
	cp "$b" "$root/bt/$b" || die "no $b (make all first)"
done
copy "${bins[@]}"
mkdir -p "$root/bt/tests"
cp -r tests/run.sh tests/integration "$root/bt/tests/"
cp tests/vm/init "$root/init"
cp "$conf" "$root/bt/vmtest.conf"

# /etc: what the tests and their programs read
printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' > "$root/etc/ld.so.conf"
ldconfig -r "$root"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) > "$out.tmp"
mv "$out.tmp" "$out"
