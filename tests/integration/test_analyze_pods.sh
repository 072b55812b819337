#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# analyze --by pod, --by image, --by namespace on a file written by hand
# (docs/tsv-format.md, Meta rows): a pod of a sandbox, two init containers
# run one after the other and two apps (listening 400 and 700 ms after
# the sandbox's start), a second pod whose app never listens, a container
# without a meta row; a hostile pod name and image (tab, backslash,
# invalid UTF-8). Truths: the roles and their order, the pod's boot 700
# ms, "not ready" for the second; per image the exec phases' count and
# percentiles; every name escaped; a malformed meta row is FILE:LINE,
# exit 2.
. "$(dirname "$0")/lib.sh"

ms() { echo $(($1 * 1000000)); }
row() { # ts container event name ret dur detail
	printf '%s\t%s\t\\N\t1\t1\t\\N\tsh\t%s\t%s\t%s\t%s\t%s\n' "$@"
}
# meta CONTAINER TS KEY=VALUE...: a meta row, values LEN:BYTES (LEN of the unescaped bytes)
meta() {
	local c=$1 ts=$2 d= kv k v raw
	shift 2
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		raw=$(printf '%b' "$v")	# the escapes unescaped, to count bytes
		d="$d${d:+ }$k=$(printf '%s' "$raw" | wc -c):$v"
	done
	row "$ts" "$c" meta oci '\N' '\N' "$d"
}
U1=11111111-2222-3333-4444-555555555555 U2=66666666-2222-3333-4444-555555555555
{
	printf '# boottrace-tsv 1\n# mode=cgroup\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	T=10000000000
	row $T sb start mkdir '\N' '\N' /kubepods/besteffort/pod$U1/a
	meta sb $((T + 1)) runtime=containerd pod='web\t\xff-0' namespace=shop pod_uid=$U1 type=sandbox image=pause:3.9
	row $((T + $(ms 10))) sb exec init '\N' '\N' /pause
	row $((T + $(ms 50))) i1 start mkdir '\N' '\N' /kubepods/besteffort/pod$U1/b
	meta i1 $((T + $(ms 51))) pod_uid=$U1 container=migrate image='img\\x:1' pod='web\t\xff-0' namespace=shop
	row $((T + $(ms 60))) i1 exec init '\N' '\N' /bin/migrate
	row $((T + $(ms 100))) i1 end '\N' '\N' '\N' '\N'
	row $((T + $(ms 110))) i2 start mkdir '\N' '\N' /kubepods/besteffort/pod$U1/c
	meta i2 $((T + $(ms 111))) pod_uid=$U1 container=seed image='img\\x:1'
	row $((T + $(ms 130))) i2 exec init '\N' '\N' /bin/seed
	row $((T + $(ms 200))) i2 end '\N' '\N' '\N' '\N'
	row $((T + $(ms 210))) a1 start mkdir '\N' '\N' /kubepods/besteffort/pod$U1/d
	meta a1 $((T + $(ms 211))) pod_uid=$U1 container=web image='img\\x:1'
	row $((T + $(ms 250))) a1 exec init '\N' '\N' /bin/web
	row $((T + $(ms 399))) a1 syscall listen 0 $(ms 1) 0.0.0.0:80
	row $((T + $(ms 215))) a2 start mkdir '\N' '\N' /kubepods/besteffort/pod$U1/e
	meta a2 $((T + $(ms 216))) pod_uid=$U1 container=side image=side:2
	row $((T + $(ms 290))) a2 exec init '\N' '\N' /bin/side
	row $((T + $(ms 690))) a2 syscall listen 0 $(ms 10) 0.0.0.0:81
	row $((T + $(ms 1000))) p2 start mkdir '\N' '\N' /kubepods/pod$U2/f
	meta p2 $((T + $(ms 1001))) pod_uid=$U2 container=app pod=other namespace=dev image=side:2
	row $((T + $(ms 1040))) p2 exec init '\N' '\N' /bin/app
	row $((T + $(ms 1100))) plain start mkdir '\N' '\N' /x
	row $((T + $(ms 1120))) plain exec init '\N' '\N' /bin/x
	printf '# lost=0 events=27\n'
} > "$TMP/p.tsv"

"$ANALYZE" --by pod --format tsv "$TMP/p.tsv" > "$TMP/pod.tsv" || fail "analyze --by pod --format tsv: $?"
cat > "$TMP/want" <<EOF
namespace	pod	pod_uid	container	role	start	exec	listen	end	shim	create	runc_start
shop	web\\t\\xff-0	$U1	\\N	pod	0	290000000	700000000	\\N	\\N	\\N	\\N
shop	web\\t\\xff-0	$U1	\\N	network	\\N	\\N	\\N	\\N	\\N	\\N	\\N
shop	web\\t\\xff-0	$U1	sb	sandbox	0	10000000	\\N	\\N	\\N	0	\\N
shop	web\\t\\xff-0	$U1	migrate	init	50000000	60000000	\\N	100000000	\\N	50000000	\\N
shop	web\\t\\xff-0	$U1	seed	init	110000000	130000000	\\N	200000000	\\N	110000000	\\N
shop	web\\t\\xff-0	$U1	web	app	210000000	250000000	400000000	\\N	\\N	210000000	\\N
shop	web\\t\\xff-0	$U1	side	app	215000000	290000000	700000000	\\N	\\N	215000000	\\N
dev	other	$U2	\\N	pod	0	40000000	\\N	\\N	\\N	\\N	\\N
dev	other	$U2	\\N	network	\\N	\\N	\\N	\\N	\\N	\\N	\\N
dev	other	$U2	app	app	0	40000000	\\N	\\N	\\N	0	\\N
EOF
diff "$TMP/want" "$TMP/pod.tsv" > "$TMP/diff" || fail "--by pod tsv differs: $(cat "$TMP/diff")"
ok "--by pod: sandbox, two init containers in order, two apps; started 290 ms (the last app's exec), boot 700 ms; no network without host rows; the other pod not ready"

"$ANALYZE" --by pod "$TMP/p.tsv" > "$TMP/pod.txt" || fail "analyze --by pod: $?"
grep -qxF "pod shop/web\\t\\xff-0 (uid $U1): boot 700.0ms (start → every app's listen)" "$TMP/pod.txt" ||
	fail "--by pod text: $(head -12 "$TMP/pod.txt")"
grep -qF "pod dev/other (uid $U2): not ready (an app never listened)" "$TMP/pod.txt" ||
	fail "--by pod text: the second pod: $(cat "$TMP/pod.txt")"
"$ANALYZE" --by pod --format json "$TMP/p.tsv" |
	python3 -c 'import json, sys
d = json.load(sys.stdin)["by_pod"]
assert [p["boot"] for p in d] == [700000000, None], d
assert d[0]["pod"] == "web\t\ufffd-0", d[0]["pod"]	# JSON: the text, U+FFFD for a byte that is not UTF-8
assert [c["role"] for c in d[0]["containers"]] == ["sandbox", "init", "init", "app", "app"]' ||
	fail "--by pod json"
ok "--by pod: text and json say the same, the hostile name escaped"

"$ANALYZE" --by image --format tsv "$TMP/p.tsv" > "$TMP/img.tsv" || fail "analyze --by image: $?"
cat > "$TMP/want" <<EOF
image	phase	count	min	avg	max	p50	p90	p99
pause:3.9	exec	1	10000000	10000000	10000000	10000000	10000000	10000000
pause:3.9	listen	0	\\N	\\N	\\N	\\N	\\N	\\N
img\\\\x:1	exec	3	10000000	23333333	40000000	20000000	40000000	40000000
img\\\\x:1	listen	1	190000000	190000000	190000000	190000000	190000000	190000000
side:2	exec	2	40000000	57500000	75000000	40000000	75000000	75000000
side:2	listen	1	485000000	485000000	485000000	485000000	485000000	485000000
\\N	exec	1	20000000	20000000	20000000	20000000	20000000	20000000
\\N	listen	0	\\N	\\N	\\N	\\N	\\N	\\N
EOF
diff "$TMP/want" "$TMP/img.tsv" > "$TMP/diff" || fail "--by image tsv differs: $(cat "$TMP/diff")"
"$ANALYZE" --by namespace --format tsv "$TMP/p.tsv" | grep -qxP 'shop\texec\t2\t10000000\t10000000\t10000000\t10000000\t10000000\t10000000' ||
	fail "--by namespace: shop: $("$ANALYZE" --by namespace --format tsv "$TMP/p.tsv")"
ok "--by image, --by namespace: the phases of each value's containers (nearest rank)"

# a malformed meta row: the file and line, exit 2
sed 's/pod_uid=36:'"$U1"' container=4:seed/pod_uid=99:'"$U1"' container=4:seed/' "$TMP/p.tsv" > "$TMP/bad.tsv"
"$ANALYZE" --by pod "$TMP/bad.tsv" > /dev/null 2> "$TMP/err"
rc=$?
[ "$rc" = 2 ] && grep -q "^analyze: $TMP/bad.tsv:12: meta row: bad detail" "$TMP/err" ||
	fail "malformed meta row: exit $rc, $(cat "$TMP/err")"
ok "a malformed meta row: analyze: FILE:12: ..., exit 2"

# --plot with --by pod: the chart's data hold the bars (from the pod's start, ms)
"$ANALYZE" --by pod --plot "$TMP/plot" "$TMP/p.tsv" > /dev/null 2> "$TMP/plot.err" ||
	fail "analyze --by pod --plot: $(cat "$TMP/plot.err")"
[ ! -s "$TMP/plot.err" ] || fail "analyze --plot said: $(cat "$TMP/plot.err")"
grep -qxP '1\t50.000000\t100.000000' "$TMP/plot/pods.dat" &&
	grep -qxP '4\t215.000000\t700.000000' "$TMP/plot/pods.dat" &&
	awk '/^$/ { b++ } b == 8 && $1 == 4 && $2 == "700.000000" { f = 1 } END { exit !f }' "$TMP/plot/pods.dat" ||
	fail "pods.dat: $(cat "$TMP/plot/pods.dat")"
grep -qF "'shop/web??-0 migrate' 1" "$TMP/plot/pods.gp" || fail "pods.gp: the labels: $(grep ytics "$TMP/plot/pods.gp")"
if have gnuplot "the pods chart"; then
	[ -s "$TMP/plot/pods.png" ] || fail "no pods.png"
fi
ok "--plot: pods.png, its bars the containers' times, the pod's boot at 700 ms, names sanitized"

# --format otlp: a pod is one trace (its containers merged: analyze/boot/pod_boot.h),
# its resource the pod's names, its CRI spans each container's
"$ANALYZE" --format otlp "$TMP/p.tsv" > "$TMP/otlp.jsonl" || fail "analyze --format otlp: $?"
python3 - "$TMP/otlp.jsonl" "$U1" <<'EOF' || fail "otlp: the pods' traces"
import json, sys
res, spans = {}, {}
for line in open(sys.argv[1]):
    d = json.loads(line)["resourceSpans"][0]
    a = {x["key"]: x["value"]["stringValue"] for x in d["resource"]["attributes"]}
    res[a["boottrace.container"]] = a
    spans[a["boottrace.container"]] = d["scopeSpans"][0]["spans"]
pod = "shop/web\t\ufffd-0"
assert sorted(res) == sorted([pod, "dev/other", "plain"]), sorted(res)
want = {"k8s.pod.name": "web\t\ufffd-0", "k8s.namespace.name": "shop", "k8s.pod.uid": sys.argv[2],
        "service.name": "web\t\ufffd-0"}
got = {k: res[pod].get(k) for k in want}
assert got == want, got
assert "k8s.pod.name" not in res["plain"], res["plain"]
attrs = lambda s: {x["key"]: list(x["value"].values())[0] for x in s["attributes"]}
cc = [attrs(s) for s in spans[pod] if s["name"] == "CreateContainer"]
assert [c["k8s.container.name"] for c in cc] == ["migrate", "seed", "web", "side"], cc
assert cc[0]["container.image.name"] == "img\\x:1" and cc[0]["k8s.pod.uid"] == sys.argv[2], cc[0]
rps = [s for s in spans[pod] if s["name"] == "RunPodSandbox"]
assert len(rps) == 1 and int(rps[0]["endTimeUnixNano"]) - int(rps[0]["startTimeUnixNano"]) == 10000000, rps
EOF
ok "--format otlp: a trace a pod, k8s.pod.name, k8s.namespace.name, k8s.pod.uid its resource; RunPodSandbox 10 ms (to the sandbox's exec), CreateContainer of each container with k8s.container.name, container.image.name"

# A pod's steps from the runtime's host rows (written by hand as the
# collector writes them in client mode: tests/integration/test_runtime_cri.sh
# boots real ones): the client spawned at 0; containerd (pid 100) forks
# its loopback plugin (200: 10..20 ms) and the pod's plugin (201: 30..530
# ms, its sleep); forks `shim start` (300, exec at 540 ms), which forks the
# shim (301), which runs runc create (302, the sandbox's cgroup at 600 ms)
# and runc start (303, exec at 650 ms); the sandbox's entrypoint at 700 ms;
# then the app's shim start (310, 800 ms), runc create (311, its cgroup at
# 850 ms), runc start (312, 900 ms), its exec at 950 ms, its listen 1 s.
# Truths: network 10 .. 530 ms (2 plugins), each container's shim, create,
# runc start, exec; the start said to be the client's spawn; and without
# the client's start row (watch mode, --sched host), the pod starts at its
# sandbox's shim start (540 ms), said so.
hrow() { # ts pid tid ppid comm event name ret detail
	printf '%s\t\\N\t\\N\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\\N\t%s\n' "$@"
}
crow() { # ts container pid comm event name ret dur detail
	printf '%s\t%s\t7\t%s\t%s\t1\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$3" "$4" "$5" "$6" "$7" "$8" "$9"
}
U3=77777777-2222-3333-4444-555555555555
hostpod() { # CLIENT: with the client's start row (1) or not (0)
	local T=20000000000
	printf '# boottrace-tsv 1\n# mode=cgroup\n# sched=on\n# host_rows=all\n'
	printf 'ts_ns\tcontainer\tcgroup_id\tpid\ttid\tppid\tcomm\tevent\tname\tret\tdur_ns\tdetail\n'
	[ "$1" = 1 ] && crow $T sb 90 cri_client start client '\N' '\N' cri_client
	# containerd, its thread's wake by the client (a sched row: 1 ms off CPU)
	printf '%s\t\\N\t\\N\t100\t100\t1\tcontainerd\tsched\tS\t1000\t1000000\twake=task waker=90 holder=90 cpu=0\n' $((T + $(ms 4)))
	hrow $((T + $(ms 9))) 200 200 100 containerd fork process '\N' parent=100
	hrow $((T + $(ms 10))) 200 200 100 loopback exec '\N' '\N' /opt/cni/bin/loopback
	hrow $((T + $(ms 20))) 200 200 100 loopback exit '\N' 0 '\N'
	hrow $((T + $(ms 29))) 201 201 100 containerd fork process '\N' parent=100
	hrow $((T + $(ms 30))) 201 201 100 bt-veth exec '\N' '\N' /opt/cni/bin/bt-veth
	hrow $((T + $(ms 530))) 201 201 100 bt-veth exit '\N' 0 '\N'
	hrow $((T + $(ms 539))) 300 300 100 containerd fork process '\N' parent=100
	hrow $((T + $(ms 540))) 300 300 100 containerd-shim exec '\N' '\N' /usr/bin/containerd-shim-runc-v2
	hrow $((T + $(ms 545))) 301 301 300 containerd-shim fork process '\N' parent=300
	hrow $((T + $(ms 546))) 301 301 300 containerd-shim exec '\N' '\N' /usr/bin/containerd-shim-runc-v2
	hrow $((T + $(ms 547))) 300 300 100 containerd-shim exit '\N' 0 '\N'
	hrow $((T + $(ms 580))) 302 302 301 containerd-shim fork process '\N' parent=301
	hrow $((T + $(ms 581))) 302 302 301 runc exec '\N' '\N' /usr/sbin/runc
	crow $((T + $(ms 600))) sb 302 runc start mkdir '\N' '\N' /kubepods/besteffort/pod$U3/s
	meta sb $((T + $(ms 601))) pod_uid=$U3 pod=hp namespace=ns type=sandbox
	hrow $((T + $(ms 640))) 302 302 301 runc exit '\N' 0 '\N'
	hrow $((T + $(ms 649))) 303 303 301 containerd-shim fork process '\N' parent=301
	hrow $((T + $(ms 650))) 303 303 301 runc exec '\N' '\N' /usr/sbin/runc
	crow $((T + $(ms 700))) sb 305 pause exec init '\N' '\N' /pause
	hrow $((T + $(ms 799))) 310 310 100 containerd fork process '\N' parent=100
	hrow $((T + $(ms 800))) 310 310 100 containerd-shim exec '\N' '\N' /usr/bin/containerd-shim-runc-v2
	hrow $((T + $(ms 849))) 311 311 301 containerd-shim fork process '\N' parent=301
	hrow $((T + $(ms 849))) 311 311 301 runc exec '\N' '\N' /usr/sbin/runc
	crow $((T + $(ms 850))) ap 311 runc start mkdir '\N' '\N' /kubepods/besteffort/pod$U3/a
	meta ap $((T + $(ms 851))) pod_uid=$U3 pod=hp namespace=ns container=web
	hrow $((T + $(ms 899))) 312 312 301 containerd-shim fork process '\N' parent=301
	hrow $((T + $(ms 900))) 312 312 301 runc exec '\N' '\N' /usr/sbin/runc
	crow $((T + $(ms 950))) ap 315 web exec init '\N' '\N' /bin/web
	crow $((T + $(ms 999))) ap 315 web syscall listen 0 $(ms 1) 0.0.0.0:80
	printf '# lost=0 events=40\n'
}
hostpod 1 > "$TMP/h.tsv"
"$ANALYZE" --by pod --format tsv "$TMP/h.tsv" > "$TMP/h.pods" || fail "analyze --by pod (host rows): $?"
cat > "$TMP/want" <<EOF
namespace	pod	pod_uid	container	role	start	exec	listen	end	shim	create	runc_start
ns	hp	$U3	\\N	pod	0	950000000	1000000000	\\N	\\N	\\N	\\N
ns	hp	$U3	\\N	network	10000000	\\N	\\N	530000000	\\N	\\N	\\N
ns	hp	$U3	containerd-5f0000000000	sandbox	0	700000000	\\N	\\N	540000000	600000000	650000000
ns	hp	$U3	web	app	850000000	950000000	1000000000	\\N	800000000	850000000	900000000
EOF
sed -i "s/containerd-5f0000000000/sb/" "$TMP/want"
diff "$TMP/want" "$TMP/h.pods" > "$TMP/diff" || fail "--by pod, host rows: $(cat "$TMP/diff")"
"$ANALYZE" --by pod "$TMP/h.tsv" | grep -qxF "  start: the client's spawn" || fail "--by pod: the start not the client's spawn"
hostpod 0 > "$TMP/hw.tsv"
"$ANALYZE" --by pod --format tsv "$TMP/hw.tsv" > "$TMP/hw.pods" || fail "analyze --by pod (watch): $?"
[ "$(awk -F'\t' '$5 == "pod" { print $8 }' "$TMP/hw.pods")" = 460000000 ] ||
	fail "watch, --sched host: the pod not from its sandbox's shim start: $(cat "$TMP/hw.pods")"
"$ANALYZE" --by pod "$TMP/hw.tsv" | grep -qF "  start: its sandbox's shim start" || fail "--by pod: the start not the shim's"
ok "--by pod, host rows: network 10..530 ms (2 CNI plugins), each container's shim start, create, runc start, exec; the start the client's spawn, else (watch mode, --sched host) the sandbox's shim start"
