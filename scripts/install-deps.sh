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
# runtime: gnuplot renders the PNG plots; chromium (headless) takes a
# screenshot of analyze --plot's index.html in a test.
# hardening (make test): valgrind; libclang-rt-dev has libFuzzer and clang's
# sanitizer runtimes (make fuzz); time (/usr/bin/time) measures peak RSS.
# marks: systemtap-sdt-dev has <sys/sdt.h> (samples/bootsvc's USDT probes);
# nginx is the real, unmodified server the mark test and the demo boot with
# a config of their own on a loopback port (its system service is never
# started, see below); binutils' objcopy makes a stripped binary for a
# test; iproute2's ss finds a free port; tmux gives the collector a
# terminal whose screen a test reads (the --runs progress line).
# real runtimes (tests/integration/test_runtime_*, the demo): runc, docker.io
# (dockerd, its containerd and shim, tini), containerd (its own ctr, for the
# Kubernetes names test) and podman (conmon; it runs with
# runc, as crun refuses hybrid cgroup hosts); busybox-static is the image
# they boot, made by scripts/runtimes.sh. The tests start the daemon they
# need with a state of their own; the system's is never started (below).
# vmtest (make vmtest, in make test): qemu-system-x86 boots Debian's kernels
# (TCG, no KVM needed), busybox-static is the initramfs' /init and its tools,
# cpio packs it.
# metrics (collector --metrics): prometheus is the real server a test starts
# on a loopback port to scrape the collector (its own config and data under
# the test's directory; the system's service is never started, see below),
# and its promtool checks dist/prometheus' config, rules and rule tests;
# systemd's systemd-analyze verifies dist/boottrace-collector.service, and
# strace shows that its system call filter refuses nothing the collector
# calls.
# profiles (collector --profile, analyze --profile): libdw-dev (elfutils)
# symbolizes the samples' user frames by build id, and its libdwfl unwinds
# the collector's copied user stacks by CFI (--profile-unwind); nodejs is the JIT'd
# program whose perf map (node --perf-basic-prof) a test reads;
# python3.11 is the interpreter whose own frames --profile reads, and
# python3.11-dbg with gdb check the struct offsets it reads them with
# against the interpreter's DWARF; golang-go (1.19, with golang-1.19-src:
# Go 1.15's test table) builds the stripped Go program whose frames are
# named from its pclntab, and the test's oracle, Go's own debug/gosym
# (tests/tools/go/); ruby (Ruby 3.1) runs the app whose own frames
# --profile reads (tests/tools/rbburn.rb), and ruby-railties (Rails 6.1)
# with puma the Rails app whose boot it profiles (tests/tools/railsapp).
# fleet (dist/clickhouse, analyze --format otlp): clickhouse-server and
# clickhouse-client (18.16 in Debian 12) load several collector runs and
# answer the fleet queries in a test (its own config, data and loopback
# port; the system's service is never started, below); npm fetches
# OpenTelemetry's JS packages that decode the OTLP output in a test (the
# nodesource nodejs carries npm; Debian's does not: then its npm package).
# systemd-container (systemd-nspawn) and mmdebstrap boot a Debian rootfs
# with systemd as PID 1 to run dist/boottrace-collector.service
# (tests/integration/test_dist_systemd.sh; the rootfs is built once, 20 s,
# into /var/cache/boottrace).
# spans (collector --spans): ruby3.1 (libruby's USDT probes) and
# openjdk-17-jdk-headless (libjvm's, and javac for the test's class) are
# the interpreters test_spans boots, with python3.11; ruby-railties
# (Rails 6.1, no bundler download) and puma run its Rails app.
# libdebuginfod-dev lets analyze fetch debug files from DEBUGINFOD_URLS,
# and debuginfod is the server a test starts on a loopback port.
# Java frames (collector --profile on a JVM): jetty9 (Jetty 9.4 on
# openjdk-17) is the real Java server whose boot test_collector_profile_jetty
# profiles, run from its start.jar with a base of the test's own on a
# loopback port (its system service and timer are never started, below).
# pods through the CRI (tests/integration/test_runtime_cri.sh): the tests'
# CRI client is Python's gRPC (python3-grpcio), its messages compiled at
# test time from tests/integration/cri/cri.proto (python3-grpc-tools'
# protoc); containerd above has the CRI plugin.
pkgs="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libcgroup-dev linux-libc-dev pkg-config libcmocka-dev util-linux procps
gnuplot-nox chromium postgresql valgrind libclang-rt-dev time
systemtap-sdt-dev nginx binutils iproute2 python3 tmux
runc docker.io containerd podman busybox-static qemu-system-x86 cpio
prometheus systemd strace libdw-dev nodejs
libdebuginfod-dev debuginfod
python3.11 python3.11-dbg gdb golang-go
ruby ruby-railties puma openjdk-17-jdk-headless jetty9
clickhouse-server clickhouse-client systemd-container mmdebstrap
python3-grpcio python3-grpc-tools $*"

command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"

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
# Installing nginx must not start it (it would listen on port 80), nor
# prometheus (port 9090, and it would scrape and store for nobody), nor
# docker.io dockerd and containerd (a system dockerd would make /docker and
# its containers would mix with the tests'), nor jetty9 (port 8080): a
# policy-rc.d that denies every start (invoke-rc.d and deb-systemd-invoke
# ask it) for the length of the install, unless the machine has one.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' > "$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
# shellcheck disable=SC2086
RUNLEVEL=1 apt-get install -y -qq --no-install-recommends $missing
# nor at the next boot: they were installed for the tests, not to serve
services=
case " $missing " in *" nginx "*) services=nginx ;; esac
case " $missing " in *" prometheus "*) services="$services prometheus" ;; esac
case " $missing " in *" docker.io "*|*" containerd "*) services="$services docker containerd" ;; esac
case " $missing " in *" clickhouse-server "*) services="$services clickhouse-server" ;; esac
case " $missing " in *" jetty9 "*) services="$services jetty9 jetty9.timer" ;; esac
for svc in $services; do
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
		systemctl disable --now "$svc" >/dev/null 2>&1 || true
	elif command -v update-rc.d >/dev/null; then
		update-rc.d "$svc" disable >/dev/null 2>&1 || true
	fi
done
