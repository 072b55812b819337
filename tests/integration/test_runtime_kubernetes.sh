#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Kubernetes names (issue 31), under one watch with --metrics:
# - a pod as the kubelet lays it out with containerd's CRI, driven by
#   Debian's containerd and `ctr run`: cgroupfs paths
#   kubepods/burstable/pod<uid>/<id> and the CRI annotations the kubelet
#   passes: its sandbox (a sleeper), an init container (ends after 1 s),
#   then an app container that listens (its container name is hostile);
# - a systemd-driver tree made by hand: kubepods.slice/
#   kubepods-besteffort.slice/kubepods-besteffort-pod<uid_>.slice/
#   cri-containerd-<id>.scope with a process in it.
# (Docker's and podman's names: test_runtime_docker, test_runtime_podman.)
# Truths: each container's meta row (before its entrypoint's exec row)
# has the names given; analyze --by pod gives the pod's boot as the app's
# listen minus the sandbox's start (from the rows themselves), with the
# roles sandbox, init, app in order; the Prometheus series of the app's
# listen carries namespace="prod" and its image; its OTLP trace's resource
# has the pod's names (k8s.pod.name ...).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/metrics.sh"
need_root
have curl "the metrics scrape" || skip "curl is missing"
. "$(dirname "$0")/runtimes.sh"
need_runtime containerd
start_containerd
rt_own_cgroup /kubepods
rt_own_cgroup /kubepods.slice

U=0f4e6a1c-2b7d-4c8e-9a1b-$(printf '%012x' $$)
U2=9a8b7c6d-1111-2222-3333-$(printf '%012x' $$)
# the pods' trees, which the kubelet would remove (runc removes a
# container's leaf, never its pod<uid> parent), in every hierarchy, even
# where /kubepods was there before the test
rt_own_cgroup "/kubepods/burstable/pod$U"
rt_own_cgroup "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${U2//-/_}.slice"
id() { printf '%s%056x' "$1" $$; }	# a 64-hex id of the test's
SB=$(id aaaaaaaa) INIT=$(id bbbbbbbb) APP=$(id cccccccc) SD=$(id dddddddd)
IMAGE=reg.example/app:1.4
port=$(rt_free_port) || fail "no free port"

watch_start "$TMP/w.tsv" --metrics 0 --metrics-label namespace,image
addr=$(metrics_addr "$TMP/w.tsv.err")

# ctr_pod ID TYPE NAME [-d] CMD...: a container of the pod, with the CRI's annotations
ctr_pod() {
	local id=$1 type=$2 name=$3 d=
	shift 3
	[ "$1" = -d ] && { d=-d; shift; }
	# (absolute: a relative path is runc's caller's cgroup's child in v1)
	"${CTR[@]}" run $d --rootfs --cgroup "/kubepods/burstable/pod$U/$id" \
		--annotation "io.kubernetes.cri.container-type=$type" \
		--annotation io.kubernetes.cri.sandbox-name=web-0 \
		--annotation io.kubernetes.cri.sandbox-namespace=prod \
		--annotation "io.kubernetes.cri.sandbox-uid=$U" \
		--annotation "io.kubernetes.cri.sandbox-id=$SB" \
		--annotation "io.kubernetes.cri.container-name=$name" \
		--annotation "io.kubernetes.cri.image-name=$IMAGE" \
		"$RT_ROOTFS" "$id" "$@" > /dev/null || fail "ctr run $name failed"
}
ctr_pod "$SB" sandbox "" -d /bin/sleep 30
# (1 s: its bundle, runc and the shim outlive the collector's reading of
# its first rows even on a loaded machine; the bundle goes with the task)
ctr_pod "$INIT" container migrate /bin/sleep 1
ctr_pod "$APP" container "$(printf 'app\tx')" /bin/sh -c "$(httpd_cmd "$port")"
"${CTR[@]}" task kill -s KILL "$SB" > /dev/null 2>&1

# the systemd driver's tree, by hand: a process in the scope
cg2=$(cgroup2_mount)
scope=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${U2//-/_}.slice/cri-containerd-$SD.scope
mkdir -p "$cg2$scope" || fail "mkdir $scope"
sh -c "echo \$\$ > $cg2$scope/cgroup.procs && exec busybox sh -c '$(httpd_cmd "$((port + 1))")'" ||
	fail "the process in $scope failed"

metrics=$(scrape "$addr")
watch_stop "$TMP/w.tsv"

expect_meta "$TMP/w.tsv" "pod$U/$SB\$" "runtime='containerd'" "id='$SB'" "pod='web-0'" "namespace='prod'" \
	"pod_uid='$U'" "type='sandbox'" "qos='burstable'" "image='$IMAGE'"
expect_meta "$TMP/w.tsv" "pod$U/$INIT\$" "pod='web-0'" "container='migrate'" "type='container'" \
	"sandbox_id='$SB'"
expect_meta "$TMP/w.tsv" "pod$U/$APP\$" "pod='web-0'" "container='app\\tx'" "image='$IMAGE'"
expect_meta "$TMP/w.tsv" "cri-containerd-$SD.scope\$" "runtime='containerd'" "id='$SD'" "pod_uid='$U2'" \
	"qos='besteffort'"
[ "$misses" -eq 0 ] && ok "meta rows: the pod's 3 containers (CRI annotations), the systemd tree"

# the pod's boot, from the rows: the sandbox's start to the app's first listen's return
sbname=$(awk -F'\t' -v p="pod$U/$SB" '$8 == "start" && index($12, p) { print $2; exit }' "$TMP/w.tsv")
appname=$(awk -F'\t' -v p="pod$U/$APP" '$8 == "start" && index($12, p) { print $2; exit }' "$TMP/w.tsv")
t0=$(awk -F'\t' -v n="$sbname" '$2 == n && $8 == "start" { print $1; exit }' "$TMP/w.tsv")
tl=$(awk -F'\t' -v n="$appname" '$2 == n && $9 == "listen" && $10 == 0 { printf "%.0f\n", $1 + $11; exit }' "$TMP/w.tsv")
[ -n "$t0" ] && [ -n "$tl" ] || fail "no sandbox start ($t0) or app listen ($tl) in the rows"
"$ANALYZE" --by pod --format tsv "$TMP/w.tsv" > "$TMP/pod.tsv" || fail "analyze --by pod failed"
got=$(awk -F'\t' -v u="$U" '$3 == u { print $5 ":" $4 }' "$TMP/pod.tsv" | tr '\n' ' ')
# (the sandbox has no container name: its TSV name stands in; no CNI
# plugin: ctr run gives no network)
want="pod:\\N network:\\N sandbox:containerd-${SB:0:12} init:migrate app:app\\tx "
[ "$got" = "$want" ] || miss "--by pod: roles and names '$got', not '$want'"
boot=$(awk -F'\t' -v u="$U" '$3 == u && $5 == "pod" { print $8 }' "$TMP/pod.tsv")
[ "$boot" = "$((tl - t0))" ] || miss "--by pod: boot $boot ns, not the rows' $((tl - t0))"
"$ANALYZE" --by pod "$TMP/w.tsv" | grep -q "^pod prod/web-0 (uid $U): boot " ||
	miss "--by pod text: no line for prod/web-0: $("$ANALYZE" --by pod "$TMP/w.tsv" | head -3)"
"$ANALYZE" --by namespace --format tsv "$TMP/w.tsv" | grep -qP '^prod\tlisten\t1\t' ||
	miss "--by namespace: prod's listen is not one boot"
[ "$misses" -eq 0 ] && ok "analyze --by pod: sandbox, init, app in order; boot = the app's listen - the sandbox's start ($((tl - t0)) ns)"

# Prometheus: the app's listen under its namespace and image; the docker one without
key="boottrace_phase_seconds_count{phase=\"listen\",runtime=\"kubernetes\",namespace=\"prod\",image=\"$IMAGE\"}"
[ "$(sample "$metrics" "$key")" = 1 ] || miss "no $key 1 in: $(grep 'phase_seconds_count' <<< "$metrics")"
key="boottrace_phase_seconds_bucket{phase=\"listen\",runtime=\"kubernetes\",namespace=\"prod\",image=\"$IMAGE\",le=\"0.5\"}"
[ -n "$(sample "$metrics" "$key")" ] || miss "no le=\"0.5\" bucket (the kubelet's edge)"
[ "$misses" -eq 0 ] && ok "metrics: namespace and image labels on the pod's phases"

# OTLP: the pod is one trace (analyze/boot/pod_boot.h): its resource the
# pod's names, the app's in its CreateContainer and StartContainer spans
"$ANALYZE" --format otlp "$TMP/w.tsv" > "$TMP/otlp.jsonl" || fail "analyze --format otlp: $?"
python3 - "$TMP/otlp.jsonl" "$U" "$APP" "$IMAGE" <<'EOF' || miss "otlp: the pod's trace"
import json, sys
f, uid, cid, image = sys.argv[1:]
for line in open(f):
    d = json.loads(line)["resourceSpans"][0]
    a = {x["key"]: x["value"]["stringValue"] for x in d["resource"]["attributes"]}
    if a["boottrace.container"] == "prod/web-0":
        want = {"k8s.pod.name": "web-0", "k8s.namespace.name": "prod", "k8s.pod.uid": uid}
        got = {k: a.get(k) for k in want}
        assert got == want, got
        spans = [{x["key"]: list(x["value"].values())[0] for x in s["attributes"]}
                 for s in d["scopeSpans"][0]["spans"] if s["name"] == "StartContainer"]
        app = [s for s in spans if s.get("k8s.container.name") == "app\tx"]
        assert len(app) == 1, spans
        want = {"k8s.pod.uid": uid, "container.id": cid, "container.image.name": image}
        got = {k: app[0].get(k) for k in want}
        assert got == want, got
        sys.exit(0)
sys.exit("no trace of prod/web-0")
EOF
[ "$misses" -eq 0 ] && ok "otlp: the pod one trace, k8s.pod.* its resource, the app's container.* and k8s.container.name on its StartContainer span"

cleanup_checked
misses_done
