# SPDX-License-Identifier: BSD-2-Clause
# runtimes.sh (sourced by bash, not run): real container runtimes for the
# tests and the demo -- dockerd (Debian's docker.io), podman and runc --, each
# with all its state in a private directory, a busybox image, and a cleanup
# that leaves no daemon, container, image, mount or cgroup behind.
#
#   rt_init DIR            private state under DIR (made; removed by rt_cleanup)
#   rt_have docker|podman|runc    whether the runtime is installed
#   rt_busybox             make $RT_ROOTFS and $RT_TAR (a busybox-static rootfs,
#                          cached under $OUTPUT/runtimes) if missing
#   dockerd_start          start dockerd (with "${RT_DOCKERD_ARGS[@]}" besides:
#                          --add-runtime NAME=PATH), wait until it answers, import
#                          the image $RT_IMAGE; then "${DOCKER[@]}" is the client
#   podman_start           a podman with its own --root/--runroot, runc,
#                          cgroupfs; the image imported; "${PODMAN[@]}" runs it
#   runc_start             "${RUNC[@]}" is runc with its own --root
#   runc_bundle DIR CGPATH ARG...   an OCI bundle: the busybox rootfs (read-only),
#                          host network, ARG... as the process, cgroupsPath
#                          CGPATH ("" for runc's default)
#   rt_own_cgroup PATH     PATH (relative to each cgroup mount, "/docker") is
#                          removed at cleanup from every hierarchy, v1 and v2,
#                          unless it existed when rt_own_cgroup was called
#   rt_own_path PATH       PATH (a file or directory outside DIR that a runtime
#                          makes) is removed at cleanup unless it existed then
#   rt_cleanup             stop and remove everything above (idempotent);
#                          what it cannot remove it says on stderr, and goes on
#
# Safe under `set -e` (scripts/demo.sh): every function returns 0 unless it
# failed; a test that is false at the end of one has an explicit return, and
# the cleanup's failures (a daemon that had to be killed, a busy cgroup) are
# said, not fatal, so that the rest is still removed.
#
# Why the flags: DESIGN.md section 6 and the findings of issue 13. dockerd has
# no bridge or iptables here (no network but loopback: containers run with
# --network host), vfs is the storage driver that needs no kernel module.
# Without a system containerd socket dockerd starts its own containerd, with
# its state under --exec-root. podman: crun refuses this hybrid cgroup host,
# hence runc; no systemd, hence cgroupfs; and as root it asks runc for
# nofile=1048576 and nproc=4194304, which fail where the bounding set has no
# CAP_SYS_RESOURCE: $PODMAN_RUN_OPTS lowers them.

RT_DIR=
RT_TAR=
RT_ROOTFS=
RT_IMAGE=bt-busybox:latest
DOCKER=()
PODMAN=()
RUNC=()
CTR=()
rt_containerd_pid=
PODMAN_RUN_OPTS=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
RT_DOCKERD_ARGS=()
rt_dockerd_pid=
rt_owned_cgroups=()
rt_owned_paths=()

rt_log() { echo "runtimes: $*" >&2; }

rt_init() {
	RT_DIR=$1
	mkdir -p "$RT_DIR" || return 1
}

rt_have() {
	case $1 in
	docker) [ -x /usr/sbin/dockerd ] && [ -x /usr/bin/docker ] ;;
	podman) command -v podman > /dev/null && command -v runc > /dev/null ;;
	runc) command -v runc > /dev/null ;;
	containerd) [ -x /usr/bin/containerd ] && [ -x /usr/bin/ctr ] && command -v runc > /dev/null ;;
	*) return 1 ;;
	esac
}

# Each mount point of a cgroup hierarchy, v2 and v1, one a line.
rt_cgroup_mounts() { awk '$3 == "cgroup2" || $3 == "cgroup" { print $2 }' /proc/self/mounts; }

# A free TCP port on the loopback (nothing listens on it now).
rt_free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Htln "sport = :$p" 2> /dev/null | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

rt_busybox() {
	local dir=${OUTPUT:-build}/runtimes bb a tmp
	RT_ROOTFS=$(realpath -m "$dir/rootfs")
	RT_TAR=$(realpath -m "$dir/busybox-rootfs.tar")
	[ -f "$RT_TAR" ] && [ -x "$RT_ROOTFS/bin/busybox" ] && return 0
	bb=/bin/busybox
	# static: the image holds no libraries (busybox-static, not busybox)
	[ -x "$bb" ] && ! readelf -l "$bb" 2> /dev/null | grep -q 'INTERP' ||
		{ rt_log "$bb is not busybox-static (apt-get install busybox-static)"; return 1; }
	# built aside and renamed: tests running at once never see half of it
	tmp=$(mktemp -d "$dir.XXXXXX") || return 1
	mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/proc" "$tmp/rootfs/sys" "$tmp/rootfs/dev" \
		"$tmp/rootfs/etc" "$tmp/rootfs/tmp" "$tmp/rootfs/www" &&
		cp "$bb" "$tmp/rootfs/bin/busybox" || { rm -rf "$tmp"; return 1; }
	for a in $("$bb" --list); do
		[ "$a" = busybox ] || ln -sf busybox "$tmp/rootfs/bin/$a"
	done
	echo 'root:x:0:0:root:/:/bin/sh' > "$tmp/rootfs/etc/passwd"
	echo 'root:x:0:' > "$tmp/rootfs/etc/group"
	echo ok > "$tmp/rootfs/www/index.html"
	tar -C "$tmp/rootfs" -cf "$tmp/busybox-rootfs.tar" . || { rm -rf "$tmp"; return 1; }
	mkdir -p "$dir"
	if [ ! -f "$RT_TAR" ]; then
		rm -rf "$RT_ROOTFS"
		mv "$tmp/rootfs" "$RT_ROOTFS" && mv "$tmp/busybox-rootfs.tar" "$RT_TAR"
	fi
	rm -rf "$tmp"
	[ -f "$RT_TAR" ]
}

rt_own_cgroup() {
	local cg2
	cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -d "$cg2$1" ] && return 0
	rt_owned_cgroups+=("$1")
}

rt_own_path() {
	[ -e "$1" ] || rt_owned_paths+=("$1")
}

dockerd_start() {
	local d=$RT_DIR/docker i
	rt_busybox || return 1
	mkdir -p "$d" || return 1
	# /docker is made by runc at the first container, and never removed
	rt_own_cgroup /docker
	# made whatever --exec-root says: the plugins directory, the shims' sockets
	rt_own_path /run/docker
	rt_own_path /run/containerd
	/usr/sbin/dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
		--data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/pid" \
		-H "unix://$d/sock" "${RT_DOCKERD_ARGS[@]}" > "$d/log" 2>&1 &
	rt_dockerd_pid=$!
	DOCKER=(/usr/bin/docker -H "unix://$d/sock")
	for i in $(seq 300); do
		"${DOCKER[@]}" version > /dev/null 2>&1 && break
		kill -0 "$rt_dockerd_pid" 2> /dev/null || break
		sleep 0.1
	done
	if ! "${DOCKER[@]}" version > /dev/null 2>&1; then
		rt_log "dockerd did not answer within $((i / 10)) s; its log:"
		tail -20 "$d/log" >&2
		return 1
	fi
	"${DOCKER[@]}" import -c 'CMD ["/bin/sh"]' "$RT_TAR" "$RT_IMAGE" > /dev/null ||
		{ rt_log "docker import failed"; return 1; }
}

# The pids whose command line holds $1 (our private directory): what a
# daemon of ours left (containerd, its shims, conmon).
rt_pids_of() {
	local p
	for p in /proc/[0-9]*; do
		if tr '\0' ' ' 2> /dev/null < "$p/cmdline" | grep -qF -- "$1"; then echo "${p#/proc/}"; fi
	done
	return 0
}

# rt_wait_gone SECONDS PID...: wait until none of PID lives, then SIGKILL
# the rest.
rt_wait_gone() {
	local n=$(($1 * 10)) p left
	shift
	while [ "$n" -gt 0 ]; do
		left=
		for p in "$@"; do kill -0 "$p" 2> /dev/null && left="$left $p"; done
		[ -z "$left" ] && return 0
		sleep 0.1
		n=$((n - 1))
	done
	# shellcheck disable=SC2086
	kill -KILL $left 2> /dev/null || true	# (some may have ended since)
	return 1
}

dockerd_stop() {
	local d=$RT_DIR/docker ids
	[ -n "$rt_dockerd_pid" ] || return 0
	if [ ${#DOCKER[@]} -gt 0 ]; then
		# (a dockerd that died answers nothing: its containers go with the shims below)
		ids=$("${DOCKER[@]}" ps -aq 2> /dev/null) || ids=
		# shellcheck disable=SC2086
		if [ -n "$ids" ]; then
			"${DOCKER[@]}" rm -f $ids > /dev/null 2>&1 || rt_log "docker rm -f failed"
		fi
	fi
	kill -TERM "$rt_dockerd_pid" 2> /dev/null || true	# (it may have died)
	rt_wait_gone 30 "$rt_dockerd_pid" || rt_log "dockerd did not stop in 30 s: killed"
	wait "$rt_dockerd_pid" 2> /dev/null || true	# (its exit status is not ours)
	# its containerd and shims, had it died without stopping them
	# shellcheck disable=SC2046
	rt_wait_gone 10 $(rt_pids_of "$d/") || rt_log "dockerd's containerd or shims did not stop in 10 s: killed"
	rt_dockerd_pid=
	DOCKER=()
}

podman_start() {
	local d=$RT_DIR/podman
	rt_busybox || return 1
	mkdir -p "$d/tmp" "$d/cni" || return 1
	rt_own_cgroup /libpod_parent
	rt_own_path /var/lib/containers	# its blob-info cache, whatever --root says
	PODMAN=(podman --root "$d/root" --runroot "$d/run" --tmpdir "$d/tmp"
		--network-config-dir "$d/cni" --volumepath "$d/volumes"
		--runtime runc --cgroup-manager cgroupfs --events-backend file --storage-driver vfs)
	"${PODMAN[@]}" import -q -c 'CMD ["/bin/sh"]' "$RT_TAR" "localhost/$RT_IMAGE" > /dev/null ||
		{ rt_log "podman import failed"; PODMAN=(); return 1; }
}

podman_stop() {
	local d=$RT_DIR/podman
	[ ${#PODMAN[@]} -gt 0 ] || return 0
	"${PODMAN[@]}" rm -af -t 0 > /dev/null 2>&1 || rt_log "podman rm -af failed"
	# conmon and its "podman container cleanup" outlive the client by a second or two
	# shellcheck disable=SC2046
	rt_wait_gone 15 $(rt_pids_of "$d/") || rt_log "conmon or podman did not stop in 15 s: killed"
	PODMAN=()
}

# containerd alone (no CRI plugin), with its root, state and sockets under
# RT_DIR; CTR is its client. Containers run from RT_ROOTFS (ctr run
# --rootfs): no image store needed.
containerd_start() {
	local d=$RT_DIR/containerd i
	rt_busybox || return 1
	mkdir -p "$d" || return 1
	printf '%s\n' 'version = 2' "root = \"$d/root\"" "state = \"$d/state\"" \
		'disabled_plugins = ["io.containerd.grpc.v1.cri"]' \
		'[grpc]' "  address = \"$d/sock\"" '[ttrpc]' "  address = \"$d/sock.ttrpc\"" \
		> "$d/config.toml" || return 1
	/usr/bin/containerd --config "$d/config.toml" > "$d/log" 2>&1 &
	rt_containerd_pid=$!
	CTR=(/usr/bin/ctr --address "$d/sock")
	for i in $(seq 300); do
		"${CTR[@]}" version > /dev/null 2>&1 && return 0
		kill -0 "$rt_containerd_pid" 2> /dev/null || break
		sleep 0.1
	done
	rt_log "containerd did not answer within $((i / 10)) s; its log:"
	tail -20 "$d/log" >&2
	return 1
}

containerd_stop() {
	local d=$RT_DIR/containerd id
	[ -n "$rt_containerd_pid" ] || return 0
	for id in $("${CTR[@]}" task ls -q 2> /dev/null); do
		"${CTR[@]}" task kill -s KILL "$id" > /dev/null 2>&1
		"${CTR[@]}" task delete -f "$id" > /dev/null 2>&1
	done
	for id in $("${CTR[@]}" container ls -q 2> /dev/null); do
		"${CTR[@]}" container delete "$id" > /dev/null 2>&1 || rt_log "ctr container delete $id failed"
	done
	kill -TERM "$rt_containerd_pid" 2> /dev/null || true	# (it may have died)
	rt_wait_gone 30 "$rt_containerd_pid" || rt_log "containerd did not stop in 30 s: killed"
	wait "$rt_containerd_pid" 2> /dev/null || true
	# shellcheck disable=SC2046
	rt_wait_gone 10 $(rt_pids_of "$d/") || rt_log "containerd's shims did not stop in 10 s: killed"
	rt_containerd_pid=
	CTR=()
}

runc_start() {
	rt_busybox || return 1
	mkdir -p "$RT_DIR/runc" || return 1
	RUNC=(runc --root "$RT_DIR/runc/state")
}

# JSON string of $1 (the characters a test's arguments can hold).
rt_json_str() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\n'/\\n}
	printf '"%s"' "$s"
}

runc_bundle() {
	local dir=$1 cg=$2 a args='' sep=''
	shift 2
	for a in "$@"; do args="$args$sep$(rt_json_str "$a")"; sep=', '; done
	mkdir -p "$dir" || return 1
	cat > "$dir/config.json" <<EOF
{
	"ociVersion": "1.0.2-dev",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ $args ],
		"env": [ "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" ],
		"cwd": "/",
		"capabilities": {
			"bounding": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ],
			"effective": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ],
			"permitted": [ "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" ]
		},
		"rlimits": [ { "type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024 } ],
		"noNewPrivileges": true
	},
	"root": { "path": $(rt_json_str "$RT_ROOTFS"), "readonly": true },
	"hostname": "bt",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
		{ "destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "nodev", "size=65536k" ] }
	],
	"linux": {
		$( [ -n "$cg" ] && printf '"cgroupsPath": %s,' "$(rt_json_str "$cg")")
		"resources": { "devices": [ { "allow": false, "access": "rwm" } ] },
		"namespaces": [ { "type": "pid" }, { "type": "ipc" }, { "type": "uts" }, { "type": "mount" } ],
		"maskedPaths": [ "/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug" ],
		"readonlyPaths": [ "/proc/sys", "/proc/sysrq-trigger" ]
	}
}
EOF
}

runc_stop() {
	local id
	[ ${#RUNC[@]} -gt 0 ] || return 0
	for id in $("${RUNC[@]}" list -q 2> /dev/null); do
		"${RUNC[@]}" delete -f "$id" > /dev/null 2>&1 || rt_log "runc delete -f $id failed"
	done
	RUNC=()
}

# Remove cgroup PATH from every hierarchy, deepest first. Only what is
# empty: the runtimes stopped their containers already, and another
# runtime on the machine may have put its own in a parent we made. What
# stays (busy for 5 s) is said on stderr; returns 0 all the same, so that
# rt_cleanup goes on (rmdir fails until the last task has left: not fatal).
rt_remove_cgroup() {
	local m
	for m in $(rt_cgroup_mounts); do
		[ -d "$m$1" ] || continue
		for _ in $(seq 50); do
			find "$m$1" -depth -type d -exec rmdir {} + 2> /dev/null || true
			[ -d "$m$1" ] || break
			sleep 0.1
		done
		if [ -d "$m$1" ]; then
			rt_log "cannot remove cgroup $m$1: $(find "$m$1" -name cgroup.procs -exec cat {} + 2> /dev/null | wc -l) tasks in it"
		fi
	done
	return 0	# said; not a failure of the caller (demo.sh runs with set -e)
}

rt_cleanup() {
	local c m
	runc_stop
	containerd_stop
	podman_stop
	dockerd_stop
	for c in "${rt_owned_cgroups[@]}"; do rt_remove_cgroup "$c"; done
	for c in "${rt_owned_paths[@]}"; do rm -rf "$c"; done
	rt_owned_cgroups=() rt_owned_paths=()
	[ -n "$RT_DIR" ] || return 0
	# mounts a runtime left under its state (shm, overlays), deepest first
	for m in $(awk -v d="$RT_DIR/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount -l "$m" 2> /dev/null || rt_log "cannot unmount $m"
	done
	rm -rf "$RT_DIR" || rt_log "cannot remove $RT_DIR"
	RT_DIR=
}
