#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/vm/kernels.sh DIR LABEL...: fetch the Debian kernels make vmtest
# boots, once: DIR/LABEL/vmlinuz and DIR/LABEL/release (its uname -r) are
# made the first time and kept (a second run fetches nothing). LABEL:
#   stock      linux-image-cloud-amd64 of the host's release (Debian 12's
#              stock kernel, the 6.1 series), its security updates included
#   backports  linux-image-cloud-amd64 from <release>-backports (on Debian 12
#              the 6.12 series, Debian 13's)
# The packages come through `apt-get download` with an apt configuration of
# their own in DIR/apt (its sources made from the host's: same mirrors, the
# backports suite added), and are unpacked with `dpkg-deb -x`: nothing is
# installed, the host's sources and /boot are untouched.
# The cloud flavour: it boots in half the time of the generic one under TCG
# (4.5 s against 9 s to power-off, measured on 6.1, the difference before
# the kernel's clock starts: inflating its image) and has everything the
# tests need built in, no module to load; need_config below checks that on
# each kernel's own config.
set -euo pipefail # (so no reader in a pipe here stops before its input ends)
dir=$1
shift

die() { echo "vmtest: $*" >&2; exit 1; }

# The options the tests need, all built in (=y): BPF with BTF, cgroup v2,
# tracepoints on syscalls, uprobes, namespaces, IPv6 (listen on ::1), the
# serial console and an initramfs.
need_config() { # need_config CONFIG-FILE
	local o missing=
	for o in BPF_SYSCALL BPF_EVENTS DEBUG_INFO_BTF CGROUPS CGROUP_BPF TRACEPOINTS \
		FTRACE_SYSCALLS UPROBES UPROBE_EVENTS PERF_EVENTS PID_NS NET_NS IPV6 UNIX \
		SERIAL_8250_CONSOLE BLK_DEV_INITRD DEVTMPFS; do
		grep -qx "CONFIG_$o=y" "$1" || missing="$missing CONFIG_$o"
	done
	[ -z "$missing" ] || die "$1: not built in:$missing"
}

# (|| ...: set -e would end the script without the message, as below)
# shellcheck disable=SC1091 # (the host's own file)
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}") || codename=
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release: not a Debian host"
apt=$(realpath -m "$dir/apt")
apt_opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::State::Status=$apt/status"
	-o "Dir::Cache=$apt/cache" -o Dir::Etc::Preferences=/dev/null
	-o Dir::Etc::PreferencesParts=/dev/null -o APT::Sandbox::User=root -qq)

# The host's sources for its release, -updates and -security: "URI SUITE"
# lines (apt-get indextargets reads both source formats).
host_targets() {
	# shellcheck disable=SC2016 # (apt's own $(FIELD) syntax)
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(TARGET_OF)' |
		awk -v c="$codename" '$4 == "deb" && $3 == "main" &&
			($2 == c || $2 == c "-updates" || $2 == c "-security") { print $1, $2 }' | sort -u
}

# The private sources: the host's, and <release>-backports at the mirror
# of <release>; their lists fetched anew once a run (a run fetches only a
# kernel it does not have: lists kept from an older run may name versions
# the mirror no longer has).
apt_ready=
apt_setup() {
	local targets base
	[ -n "$apt_ready" ] && return 0
	targets=$(host_targets) || targets=
	if [ -z "$targets" ]; then # the host's lists were never fetched
		apt-get update -qq || die "apt-get update failed"
		targets=$(host_targets) || targets=
	fi
	base=$(echo "$targets" | awk -v c="$codename" '$2 == c && !f { print $1; f = 1 }')
	[ -n "$base" ] || die "no '$codename main' in the host's apt sources"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	: > "$apt/status"
	{
		echo "$targets" | awk '{ print "deb " $1 " " $2 " main" }'
		echo "deb $base $codename-backports main"
	} > "$apt/sources.list"
	apt-get "${apt_opts[@]}" update || die "apt-get update of $apt failed"
	apt_ready=1
}

tmp= # the kernel being fetched, removed if the fetch fails
trap 'rm -rf "$tmp"' EXIT

fetch() { # fetch LABEL
	local label=$1 meta image deb
	case $label in
	stock) meta=linux-image-cloud-amd64 ;;
	backports) meta=linux-image-cloud-amd64/$codename-backports ;;
	*) die "no kernel '$label' (stock, backports)" ;;
	esac
	apt_setup
	# the meta-package's one dependency is the image of the current version
	# (|| true: apt-cache fails on a package the sources lack, and pipefail
	# with set -e would end the script there without the message below)
	image=$(apt-cache "${apt_opts[@]}" depends "$meta" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ && !f { print $2; f = 1 }') || true
	[ -n "$image" ] || die "$meta: no linux-image-* dependency in $apt/sources.list"
	echo "vmtest: fetching $image ($label)" >&2
	tmp=$(mktemp -d "$dir/$label.XXXXXX")
	(cd "$tmp" && apt-get "${apt_opts[@]}" download "$image") || die "apt-get download $image failed"
	deb=$(ls "$tmp"/*.deb)
	dpkg-deb -x "$deb" "$tmp/root"
	need_config "$(ls "$tmp"/root/boot/config-*)"
	# only boot/ is kept: no module is needed (need_config)
	mv "$tmp"/root/boot/vmlinuz-* "$tmp/vmlinuz"
	mv "$tmp"/root/boot/config-* "$tmp/config"
	basename "$deb" | sed 's/_.*//; s/^linux-image-//' > "$tmp/release"
	rm -rf "$tmp/root" "$deb"
	rm -rf "${dir:?}/$label"
	mv "$tmp" "$dir/$label"
	tmp=
}

mkdir -p "$dir"
for label in "$@"; do
	[ -s "$dir/$label/vmlinuz" ] && [ -s "$dir/$label/release" ] && continue
	fetch "$label"
done
