#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A pod's boot through containerd's CRI, as the kubelet starts it (issue
# 38): one private containerd with its CRI plugin for every case
# (tests/integration/cri.sh: the tests' CNI plugin, a local image, our CRI
# client, which prints its calls' CLOCK_MONOTONIC times).
# 1. client mode: collector -c GLOB --runs 2 --until listen around the
#    client, each pod a sandbox, an init container (sleeps 0.3 s) and an
#    app (httpd), the CNI plugin made to sleep 400 ms. Truths:
#    - 2 boots, each named by its pod (analyze --by pod, the paths'
#      names), each starting no later than its RunPodSandbox call, ready
#      (its listen) between the client's last look at the pod's netns
#      that did not see the port listen and its first that did (a look
#      every 0.2 ms: a few ms apart unless the busy machine held the
#      client back; the figures are printed);
#    - the init container's run, in order, before the app: it ended
#      before the app's cgroup was made;
#    - each pod's critical path runs from the client's spawn through
#      containerd, the CNI plugin, the shim, runc and into the app;
#    - its network phase (from the host rows) holds the plugin's `sleep`
#      of 400 ms, and the critical path of at least one of the two shows
#      it blocked 395..450 ms (its blocked part: from its leaving the CPU,
#      some us into the nanosleep, to the timer's wake); a path without it
#      is said with its segments in the network phase (about one pod in 10
#      on the busy test VM: the walk went back through a containerd
#      thread's wait that no row ties to the plugin);
#    - OTLP: one trace a pod, spans RunPodSandbox, CreateContainer and
#      StartContainer carrying k8s.pod.uid.
# 2. watch mode with --metrics: a pod through the CRI, and one of the
#    systemd driver's layout made by hand (containerd cannot use its
#    systemd driver here: no systemd as PID 1): each a boot named by its
#    pod (the CRI pod's from its sandbox's cgroup); the pod histograms
#    count both (boottrace_pod_startup_seconds, _listen_seconds), the
#    listen as analyze gives it.
# Cleanup: no pod, container, cgroup (pod<uid> in every hierarchy), mount,
# netns or daemon left (cri.sh, runtimes.sh, lib.sh at exit).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/metrics.sh"
need_root
cgroup_mode || skip "a pod is a run in cgroup mode (a container's cgroup tells its pod)"
. "$(dirname "$0")/runtimes.sh"
. "$(dirname "$0")/cri.sh"
need_runtime containerd
have curl "the metrics scrape" || skip "curl is missing"
t_begin=$(date +%s)
cri_start

POD=(--namespace shop --port 8080 --init 'migrate=exec sleep 0.3' --app 'web=exec httpd -f -p 8080')
GLOB='/kubepods/*/pod*/*'

# 1. client mode: 2 pods, the CNI plugin made slow (400 ms)
# client_pods: the client-mode run and its truths (below); 1 when they fail
client_pods() {
	rm -f "$TMP/times.jsonl"
	cri_cni_sleep 400
	"$COLLECTOR" -c "$GLOB" --runs 2 --until listen -o "$TMP/c.tsv" -- \
		"${CRI_CLIENT[@]}" --times "$TMP/times.jsonl" --name web "${POD[@]}" 2> "$TMP/c.err" ||
		fail "collector --runs 2: $(tail -5 "$TMP/c.err")"
	cri_cni_sleep 0
	check_tsv "$TMP/c.tsv"
	grep -q 'another new cgroup matched' "$TMP/c.err" && miss "a pod's containers were not one run: $(grep -m1 'another new' "$TMP/c.err")"
	"$ANALYZE" --by pod --format tsv "$TMP/c.tsv" > "$TMP/c.pods" || fail "analyze --by pod"
	"$ANALYZE" --critical-path --format tsv "$TMP/c.tsv" > "$TMP/c.cp" || fail "analyze --critical-path"
	"$ANALYZE" --format otlp "$TMP/c.tsv" > "$TMP/c.otlp" || fail "analyze --format otlp"
	# the truths, each pod against the client's own clock and the rows
	/usr/bin/python3 - "$TMP" <<'EOF'
import json, sys
tmp = sys.argv[1]
bad = []
def rows(f):
    out = []
    for l in open(f):
        if l.startswith('#') or l.startswith('ts_ns\t'):
            continue
        out.append(l.rstrip('\n').split('\t'))
    return out
def load(pods, cp, otlp, times):
    recs = [json.loads(l) for l in open(times)]
    P = {}
    for r in rows(pods)[0:]:
        if r[0] == 'namespace':
            continue
        P.setdefault(r[1], []).append(r)
    paths = {}
    for r in rows(cp)[1:]:
        paths.setdefault(r[0], []).append(r)
    traces = [json.loads(l) for l in open(otlp)]
    return recs, P, paths, traces
name, n, slow = 'c', 2, True
on_path = 0
recs, P, paths, traces = load('%s/c.pods' % tmp, '%s/c.cp' % tmp, '%s/c.otlp' % tmp,
                              '%s/times.jsonl' % tmp)
if len(recs) != n or len(P) != n:
    sys.exit('%d pods by the client, %d by analyze --by pod, not %d' % (len(recs), len(P), n))
R = rows('%s/%s.tsv' % (tmp, name))
for rec in recs:
    pod = rec['pod']
    pr = P.get(pod)
    if not pr:
        bad.append('%s: no pod %s in --by pod' % (name, pod)); continue
    byrole = {r[4]: r for r in pr}
    ctrs = {r[4]: r[3] for r in pr}
    # the pod's start: the earliest start row of its containers (the client's spawn)
    mine = 'pod_uid=%d:%s ' % (len(rec['uid']), rec['uid'])
    members = set(r[1] for r in R if r[7] == 'meta' and mine in r[11] + ' ')
    t0 = min(int(r[0]) for r in R if r[7] == 'start' and r[1] in members)
    rps = [c for c in rec['calls'] if c['call'] == 'RunPodSandbox'][0]['t'][0]
    if t0 > rps:
        bad.append('%s: pod %s starts %d ns after its RunPodSandbox call' % (name, pod, t0 - rps))
    ready = t0 + int(byrole['pod'][7])
    miss, seen = rec['listen_seen']
    if miss is None:
        # its first look saw it: the app listened before StartContainer returned
        miss = [c for c in rec['calls'] if c['call'] == 'StartContainer'][-1]['t'][0]
    # between the client's last look without the listen and its first with
    # it (1 ms of slack: the socket listens a moment before listen() returns)
    if not (miss - 1000000 <= ready <= seen + 1000000):
        bad.append('%s: pod %s ready at %d, not between the client\'s looks at %d and %d' %
                   (name, pod, ready, miss, seen))
    # the init container ran to its end before the app's cgroup was made
    init, app = byrole.get('init'), byrole.get('app')
    if not init or not app or init[3] != 'migrate' or app[3] != 'web':
        bad.append('%s: pod %s roles %s' % (name, pod, sorted(ctrs.items())))
    elif not (int(init[8]) <= int(app[10]) and int(init[6]) < int(app[6])):
        bad.append('%s: pod %s init ends at %s, the app is made at %s' % (name, pod, init[8], app[10]))
    # its path: named by the pod, from its start through the runtime into the app
    key = 'shop/' + pod
    segs = paths.get(key)
    if not segs:
        bad.append('%s: no critical path named %s (paths: %s)' % (name, key, sorted(paths))); continue
    comms = set(s[4] for s in segs)
    # (the CNI plugin: bt-veth, or as loopback; its own nsenter and ip)
    for want in ('containerd', ('bt-veth', 'loopback'), 'containerd-shim', 'runc', 'httpd'):
        if not (set(want) & comms if isinstance(want, tuple) else want in comms):
            bad.append('%s: the path of %s has no %s (%s)' % (name, pod, want, sorted(comms)))
    total = sum(int(s[7]) for s in segs)
    if total != int(byrole['pod'][7]):
        bad.append('%s: the path of %s is %d ns, its boot %s' % (name, pod, total, byrole['pod'][7]))
    if slow:
        net = byrole['network']
        nb, ne = int(net[5]), int(net[8])
        # (the sleep's blocked part: from its leaving the CPU, some us into its
        # nanosleep of 400 ms, to the timer's wake)
        blocked = [int(s[7]) for s in segs if s[4] == 'sleep' and s[9] == 'blocked' and
                   nb <= int(s[6]) <= ne]
        if ne - nb < 400000000:
            bad.append('slow: network %d..%d ns: shorter than the plugin\'s sleep' % (nb, ne))
        if blocked and 395000000 <= max(blocked) <= 450000000:
            on_path += 1
            print('slow pod: network %.1f ms (CNI plugins from %.1f ms), its sleep blocked %.1f ms on the path'
                  % ((ne - nb) / 1e6, nb / 1e6, max(blocked) / 1e6))
        else:
            # (seen once in 8 to 15 pods on the busy test VM: the walk goes back
            # through a containerd thread's wait that no row ties to the
            # plugin; said, and the truth asks it of one pod of the two)
            print('# pod %s: the plugin\'s sleep not on the path (%s ns blocked); the path in '
                  'the network phase: %s' % (pod, blocked, '; '.join(
                      '%s %s %s %s %s %s %s' % (s[4], s[3], s[5], s[6], s[7], s[9], s[8])
                      for s in segs if nb <= int(s[6]) <= ne)[:4000]))
    # OTLP: the pod's trace
    tr = [t for t in traces if {a['key']: a['value']['stringValue'] for a in
          t['resourceSpans'][0]['resource']['attributes']}.get('k8s.pod.uid') == rec['uid']]
    if len(tr) != 1:
        bad.append('%s: %d OTLP traces of pod %s, not 1' % (name, len(tr), pod)); continue
    spans = tr[0]['resourceSpans'][0]['scopeSpans'][0]['spans']
    names = [s['name'] for s in spans]
    for want, k in (('RunPodSandbox', 1), ('CreateContainer', 2), ('StartContainer', 2)):
        got = [s for s in spans if s['name'] == want]
        uids = set(a['value']['stringValue'] for s in got for a in s['attributes'] if a['key'] == 'k8s.pod.uid')
        if len(got) != k or uids != {rec['uid']}:
            bad.append('%s: pod %s: %d %s spans (uids %s), not %d' % (name, pod, len(got), want, uids, k))
    print('pod %s: start %.1f ms before RunPodSandbox, ready %.3f ms before the client saw it listen '
          '(its looks %.3f ms apart), boot %.1f ms'
          % (pod, (rps - t0) / 1e6, (seen - ready) / 1e6, (seen - miss) / 1e6, int(byrole['pod'][7]) / 1e6))
if not on_path:
    bad.append('the plugin\'s sleep of 400 ms (blocked 395..450 ms) on the path of no pod')
for b in bad:
    print('FAIL: ' + b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}
# Once more when they fail: the walk back through containerd, a Go program,
# sometimes leaves the plugin off the path (a goroutine taken up by a thread
# that no wake ties to it; 3 pods in about 30 on the busy test VM): said,
# and the failed run's file kept as $OUTPUT/test_runtime_cri-failed.tsv
if ! client_pods; then
	cp "$TMP/c.tsv" "$OUTPUT/test_runtime_cri-failed.tsv" 2> /dev/null
	echo "# the client-mode truths failed (above; its file: $OUTPUT/test_runtime_cri-failed.tsv): once more"
	client_pods || miss "the pods' truths (above), twice"
fi
[ "$misses" -eq 0 ] && ok "client mode: 2 pods through the CRI, each a boot named by its pod, from before its RunPodSandbox to its app's listen; init before app; the path through containerd, the CNI plugin, the shim and runc; the CNI plugin's sleep of 400 ms in the network and on the path; a trace a pod with the kubelet's CRI span names"

# 2. watch mode with --metrics: a pod through the CRI (besteffort), and a
# pod of the systemd driver's tree made by hand (as test_runtime_kubernetes
# does: containerd 1.6 turns a .slice cgroup parent into the systemd
# driver's <slice>:cri-containerd:<id>, which needs systemd as PID 1)
cg2=$(cgroup2_mount)
U2=5d4c3b2a-1111-2222-3333-$(printf '%012x' $$)
slice=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${U2//-/_}.slice
echo "$slice" >> "$CRI_DIR/cgroups"	# (removed at exit with the pods')
sd_port=$(rt_free_port) || fail "no free port"
# (the kubelet's layouts alone, listen the only syscall: the host's other
# containers, other tests', would fill the buffer)
watch_start "$TMP/w.tsv" --metrics 0 -c '/kubepods*/*/*/*' -s listen
addr=$(metrics_addr "$TMP/w.tsv.err")
"${CRI_CLIENT[@]}" --times "$TMP/w.jsonl" --name wt --qos besteffort "${POD[@]}" > /dev/null ||
	fail "the client (watch mode) failed"
# an init container that ends (its scope removed, as systemd does), then the app
a=$cg2$slice/cri-containerd-$(printf 'a%063x' $$).scope b=$cg2$slice/cri-containerd-$(printf 'b%063x' $$).scope
mkdir -p "$a" || fail "mkdir $slice"
sh -c "echo \$\$ > $a/cgroup.procs && exec sleep 0.2" || fail "the init in $slice failed"
for _ in $(seq 50); do rmdir "$a" 2> /dev/null && break; sleep 0.1; done
mkdir "$b" || fail "mkdir $b"
sh -c "echo \$\$ > $b/cgroup.procs && exec busybox sh -c '$(httpd_cmd "$sd_port")'" ||
	fail "the app in $slice failed"
sleep 0.3
metrics=$(scrape "$addr")
watch_stop "$TMP/w.tsv"
uid=$(/usr/bin/python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["uid"])' "$TMP/w.jsonl")
pod=$(/usr/bin/python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["pod"])' "$TMP/w.jsonl")
"$ANALYZE" --by pod --format tsv "$TMP/w.tsv" > "$TMP/w.pods" || fail "analyze --by pod w.tsv"
"$ANALYZE" --critical-path --format tsv "$TMP/w.tsv" > "$TMP/w.cp" || fail "analyze --critical-path w.tsv"
got=$(awk -F'\t' -v u="$uid" '$3 == u && $5 != "pod" && $5 != "network" { printf "%s:%s ", $5, $4 }' "$TMP/w.pods")
[[ $got =~ ^sandbox:containerd-[0-9a-f]{12}\ init:migrate\ app:web\ $ ]] || miss "watch: roles '$got'"
grep -q "^shop/$pod	listen	" "$TMP/w.cp" || miss "watch: no critical path named shop/$pod"
# the watch's start: runc create's mkdir of the sandbox's cgroup (the CRI call is not seen)
start=$(awk -F'\t' -v u="$uid" '$3 == u && $5 == "sandbox" { print $6 }' "$TMP/w.pods")
[ "$start" = 0 ] || miss "watch: the pod does not start at its sandbox's start ($start)"
# the tree by hand: its two scopes one pod (pod_uid from the path), named pod<uid>
got=$(awk -F'\t' -v u="$U2" '$3 == u { printf "%s ", $5 }' "$TMP/w.pods")
[ "$got" = "pod network init app " ] || miss "watch, the systemd tree: '$got', not one pod of an init and an app"
grep -q "^pod$U2	listen	" "$TMP/w.cp" || miss "watch: no critical path named pod$U2"
for k in boottrace_pod_startup_seconds_count boottrace_pod_listen_seconds_count; do
	[ "$(sample "$metrics" "$k")" = 2 ] || miss "metrics: $k is '$(sample "$metrics" "$k")', not 2"
done
lis=$(sample "$metrics" boottrace_pod_listen_seconds_sum)
want=$(awk -F'\t' -v u="$uid" -v u2="$U2" '($3 == u || $3 == u2) && $5 == "pod" { s += $8 } END { printf "%.9f\n", s / 1e9 }' "$TMP/w.pods")
awk -v a="$lis" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.000001 && d > -0.000001) }' ||
	miss "metrics: the pods' listen ${lis}s, analyze --by pod's ${want}s"
[ "$misses" -eq 0 ] && ok "watch mode: the CRI pod a boot from its sandbox's cgroup, the systemd tree's two scopes one pod, each named by its pod; the pod histograms count them (listen $lis s in all, as analyze)"

cri_cleanup_checked
misses_done
echo "# $(($(date +%s) - t_begin)) s" >&2
