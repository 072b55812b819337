# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# A private containerd with its CRI plugin, driven as the kubelet drives it
# (sourced after lib.sh and runtimes.sh; docs/runtimes.md, Testing it):
#
#   cri_start        containerd with its root, state, sockets, CNI dirs and
#                    runc root under $RT_DIR/cri; the tests' CNI plugin
#                    (cri/cni-plugin) as `loopback` and `bt-veth`; the
#                    image $CRI_IMAGE (busybox, also the sandbox image, which
#                    runs `sleep`) imported from an OCI layout written here;
#                    the CRI client's code generated from cri/cri.proto into
#                    $RT_DIR/cri/gen. Stopped at exit (rt_cleanup), with
#                    every pod and the kubepods cgroups it made.
#   CRI_CLIENT       the client's command (array): cri/cri_client.py with the
#                    socket, the generated code and the file where it notes
#                    each pod's cgroup (removed at exit); add --times FILE --name
#                    NAME --app NAME=CMD --port N ... (cri_client.py's doc)
#   cri_cni_sleep MS the bt-veth plugin sleeps MS ms in each pod's ADD from now
#   cri_cleanup_checked  all of it stopped and removed now, and checked: no
#                    pod cgroup in any hierarchy, then cleanup_checked
#
# What containerd does outside its directories: /var/lib/cni/results (1.6
# writes its CNI cache there whatever the config says), /run/containerd/s
# (the shims' sockets), the kubepods cgroups in every hierarchy (runc
# makes them; runc removes a container's own, never pod<uid>, which the
# kubelet removes): each is removed at exit when it was not there before.
CRI_DIR=
CRI_IMAGE=bt.example/busybox:1
CRI_CLIENT=()
cri_pid=

cri_start() {
	local d=$RT_DIR/cri i
	have python3 "the CRI client" || skip "no python3"
	/usr/bin/python3 -c 'import grpc, grpc_tools' 2> /dev/null ||
		{ [ "${CI:-}" != true ] || fail "python3-grpcio or python3-grpc-tools is missing (scripts/install-deps.sh), CI=true forbids skipping"
		  skip "python3-grpcio and python3-grpc-tools are missing (scripts/install-deps.sh)"; }
	rt_busybox || fail "no busybox rootfs"
	CRI_DIR=$d
	mkdir -p "$d/cni/bin" "$d/cni/conf" "$d/gen" || fail "mkdir $d"
	rt_own_path /var/lib/cni
	rt_own_path /run/containerd
	rt_own_cgroup /kubepods
	rt_own_cgroup /kubepods.slice
	cp "$(dirname "${BASH_SOURCE[0]}")/cri/cni-plugin" "$d/cni/bin/bt-veth" &&
		cp "$d/cni/bin/bt-veth" "$d/cni/bin/loopback" || fail "cannot install the CNI plugin"
	: > "$d/cni-sleep-ms"
	cat > "$d/cni/conf/10-bt.conflist" <<-CNI
	{ "cniVersion": "0.4.0", "name": "bt",
	  "plugins": [ { "type": "bt-veth", "sleep_file": "$d/cni-sleep-ms" } ] }
	CNI
	# containerd's own defaults, then ours (the keys of containerd 1.6's config v2)
	cat > "$d/config.py" <<-'PY'
	import re, sys
	d, image = sys.argv[1:]
	t = sys.stdin.read()
	def sub(key, val, section=None):
	    global t
	    pat = r'(?m)^(\s*%s = ).*$' % re.escape(key)
	    if section:
	        i = t.index(section)
	        m = re.compile(r'\n\s*\[').search(t, i + len(section))
	        j = m.start() if m else len(t)
	        part, n = re.subn(pat, lambda m: m.group(1) + val, t[i:j], count=1)
	        t = t[:i] + part + t[j:]
	    else:
	        t, n = re.subn(pat, lambda m: m.group(1) + val, t, count=1)
	    if n != 1:
	        sys.exit("cri.sh: no %s in containerd's default config" % key)
	q = lambda s: '"%s"' % s
	sub('root', q(d + '/root'))
	sub('state', q(d + '/state'))
	sub('address', q(d + '/sock'), '[grpc]')
	sub('address', q(d + '/sock.ttrpc'), '[ttrpc]')
	sub('sandbox_image', q(image))
	sub('netns_mounts_under_state_dir', 'true')
	# CRI gives the sandbox oom_score_adj -998, which root without
	# CAP_SYS_RESOURCE cannot set: runc fails ("can't get final child's
	# PID from pipe: EOF"; its log: "failed to update /proc/self/oom_score_adj")
	sub('restrict_oom_score_adj', 'true')
	sub('bin_dir', q(d + '/cni/bin'))
	sub('conf_dir', q(d + '/cni/conf'))
	sub('Root', q(d + '/runc'), '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]')
	sub('SystemdCgroup', 'false')
	sub('path', q(d + '/opt'), '[plugins."io.containerd.internal.v1.opt"]')
	sys.stdout.write(t)
	PY
	/usr/bin/containerd config default | /usr/bin/python3 "$d/config.py" "$d" "$CRI_IMAGE" > "$d/config.toml" ||
		fail "cannot write containerd's config"
	/usr/bin/containerd --config "$d/config.toml" > "$d/log" 2>&1 &
	cri_pid=$!
	cleanup_hooks=("cri_stop" "${cleanup_hooks[@]}")
	CTR=(/usr/bin/ctr --address "$d/sock" -n k8s.io)
	for i in $(seq 300); do
		"${CTR[@]}" version > /dev/null 2>&1 && break
		kill -0 "$cri_pid" 2> /dev/null || break
		sleep 0.1
	done
	"${CTR[@]}" version > /dev/null 2>&1 || fail "containerd did not answer in $((i / 10)) s: $(tail -5 "$d/log")"
	cri_image "$d/image" || fail "cannot write the OCI layout"
	tar -C "$d/image" -cf "$d/image.tar" . &&
		"${CTR[@]}" images import "$d/image.tar" > "$d/import.log" 2>&1 ||
		fail "ctr images import: $(cat "$d/import.log")"
	(cd "$(dirname "${BASH_SOURCE[0]}")/cri" &&
		/usr/bin/python3 -m grpc_tools.protoc -I. --python_out="$d/gen" --grpc_python_out="$d/gen" cri.proto) ||
		fail "protoc cri.proto"
	: > "$d/cgroups"
	CRI_CLIENT=(/usr/bin/python3 "$(realpath "$(dirname "${BASH_SOURCE[0]}")/cri/cri_client.py")"
		--socket "$d/sock" --gen "$d/gen" --image "$CRI_IMAGE" --cgroups "$d/cgroups")
}

# An OCI image layout (image-spec's image-layout.md) of the busybox rootfs:
# one uncompressed layer, a config whose Cmd sleeps (the sandbox's process),
# the manifest, and index.json naming the image for containerd.
cri_image() {
	mkdir -p "$1/blobs/sha256" || return 1
	/usr/bin/python3 - "$1" "$RT_TAR" "$CRI_IMAGE" <<-'PY'
	import hashlib, json, os, shutil, sys
	out, layer, name = sys.argv[1:]
	def blob(data=None, path=None):
	    h = hashlib.sha256()
	    if path:
	        with open(path, 'rb') as f:
	            for b in iter(lambda: f.read(1 << 20), b''):
	                h.update(b)
	        size = os.path.getsize(path)
	    else:
	        h.update(data)
	        size = len(data)
	    dst = os.path.join(out, 'blobs/sha256', h.hexdigest())
	    if path:
	        shutil.copyfile(path, dst)
	    else:
	        open(dst, 'wb').write(data)
	    return 'sha256:' + h.hexdigest(), size
	ld, ls = blob(path=layer)
	cfg = json.dumps({'architecture': 'amd64', 'os': 'linux',
	                  'config': {'Cmd': ['/bin/sleep', '3600'],
	                             'Env': ['PATH=/usr/sbin:/usr/bin:/sbin:/bin']},
	                  'rootfs': {'type': 'layers', 'diff_ids': [ld]}}).encode()
	cd, cs = blob(cfg)
	man = json.dumps({'schemaVersion': 2, 'mediaType': 'application/vnd.oci.image.manifest.v1+json',
	                  'config': {'mediaType': 'application/vnd.oci.image.config.v1+json', 'digest': cd, 'size': cs},
	                  'layers': [{'mediaType': 'application/vnd.oci.image.layer.v1.tar', 'digest': ld, 'size': ls}]}).encode()
	md, ms = blob(man)
	json.dump({'schemaVersion': 2, 'manifests': [
	    {'mediaType': 'application/vnd.oci.image.manifest.v1+json', 'digest': md, 'size': ms,
	     'platform': {'architecture': 'amd64', 'os': 'linux'},
	     'annotations': {'io.containerd.image.name': name}}]}, open(os.path.join(out, 'index.json'), 'w'))
	open(os.path.join(out, 'oci-layout'), 'w').write('{"imageLayoutVersion": "1.0.0"}')
	PY
}

cri_cni_sleep() { echo "$1" > "$CRI_DIR/cni-sleep-ms"; }

# cri_cleanup_checked: containerd stopped and its pods' cgroups gone now,
# each checked in every hierarchy; then runtimes.sh's cleanup_checked
# (no daemon, mount, path or cgroup of ours left).
cri_cleanup_checked() {
	local pods p m
	pods=$(cat "$CRI_DIR/cgroups" 2> /dev/null)
	cri_stop
	for p in $pods; do
		for m in $(rt_cgroup_mounts); do
			[ -d "$m$p" ] && fail "the pod's cgroup $m$p left behind"
		done
	done
	cleanup_checked
}

# Every pod gone (what a test left running after a failure), containerd
# stopped, its shims gone, then its mounts and netns under its state.
cri_stop() {
	local p
	[ -n "$cri_pid" ] || return 0
	for p in $("${CTR[@]}" containers ls -q 2> /dev/null); do
		"${CTR[@]}" tasks kill -s KILL "$p" > /dev/null 2>&1
	done
	sleep 0.2
	for p in $("${CTR[@]}" containers ls -q 2> /dev/null); do
		"${CTR[@]}" tasks delete -f "$p" > /dev/null 2>&1
		"${CTR[@]}" containers delete "$p" > /dev/null 2>&1
	done
	kill -TERM "$cri_pid" 2> /dev/null
	rt_wait_gone 30 "$cri_pid" || rt_log "containerd did not stop in 30 s: killed"
	wait "$cri_pid" 2> /dev/null
	# shellcheck disable=SC2046
	rt_wait_gone 10 $(rt_pids_of "$CRI_DIR/") || rt_log "containerd's shims did not stop in 10 s: killed"
	for p in $(awk -v d="$CRI_DIR/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount -l "$p" 2> /dev/null || rt_log "cannot unmount $p"
	done
	# the pods' cgroups, which the kubelet would remove (the kubepods
	# parents go with rt_cleanup when this test made them); first what a
	# killed shim left running in them (its container's processes)
	if [ -f "$CRI_DIR/cgroups" ]; then
		while read -r p; do
			[ -n "$p" ] || continue
			[ -f "$(cgroup2_mount)$p/cgroup.kill" ] && echo 1 > "$(cgroup2_mount)$p/cgroup.kill"
			rt_remove_cgroup "$p"
		done < "$CRI_DIR/cgroups"
	fi
	cri_pid=
	return 0
}
