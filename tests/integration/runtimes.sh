# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# Helpers for the tests with real runtimes (sourced after lib.sh): the
# runtimes of scripts/runtimes.sh with the test's state under $TMP/rt and
# removed at exit, even on failure; a watching collector; what the issue
# expects of each container.
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/runtimes.sh"
rt_init "$TMP/rt" || fail "cannot make $TMP/rt"
# first in the hooks: the runtimes go before lib.sh removes $TMP
cleanup_hooks+=("rt_cleanup")

# need_runtime NAME...: skip unless each is installed.
need_runtime() {
	local r
	for r in "$@"; do
		rt_have "$r" || skip "no $r (scripts/install-deps.sh installs runc, docker.io and podman)"
	done
}

start_docker() { dockerd_start || fail "cannot start dockerd (log: $RT_DIR/docker/log)"; }
start_podman() { podman_start || fail "cannot set up podman"; }
start_runc() { runc_start || fail "cannot set up runc"; }
start_containerd() { containerd_start || fail "cannot start containerd (log: $RT_DIR/containerd/log)"; }

# The cgroup v2 path of each test's own parent: made by the runtime during
# the watch (docker --cgroup-parent, podman --cgroup-parent, runc's
# cgroupsPath), removed at exit from v1 and v2.
RT_PARENT=/boottrace-rt.$$
rt_own_cgroup "$RT_PARENT"

# The command each container runs: busybox httpd listens on PORT, 0.3 s
# later the shell kills it and exits (the issue's probe).
httpd_cmd() { echo "httpd -f -p 127.0.0.1:$1 & sleep 0.3; kill %1"; }

# What the collector is expected to do is checked in full, each mismatch
# said, before the test fails (so one run shows all that is wrong):
# expect_* and entrypoint_ok call miss, and the test ends with
# `cleanup_checked; misses_done`.
misses=0
miss() { echo "FAIL: $*" >&2; misses=$((misses + 1)); return 1; }
misses_done() { [ "$misses" -eq 0 ] || fail "$misses of the expectations above not met"; }

# Start rows for a message: those of the runtimes, not the other tests'.
starts_said() {
	rows "$1" start | awk -F'\t' '$2 !~ /^boottrace(-test)?\./' | cut -f2,7,9,12 | tr '\t\n' ' ;'
}

# run_probe docker|podman CIDFILE RUN-OPTION...: one container of the busybox
# image running the probe on a free port, in the foreground, its id written
# to CIDFILE by the client.
run_probe() {
	local rt=$1 cidf=$2 port
	shift 2
	port=$(rt_free_port) || fail "no free port"
	case $rt in
	docker) "${DOCKER[@]}" run --rm --network host --cidfile "$cidf" "$@" "$RT_IMAGE" \
		sh -c "$(httpd_cmd "$port")" ;;
	podman) "${PODMAN[@]}" run --rm --network host "${PODMAN_RUN_OPTS[@]}" --cidfile "$cidf" "$@" \
		"localhost/$RT_IMAGE" sh -c "$(httpd_cmd "$port")" ;;
	esac > /dev/null || fail "$rt run $* failed"
}

# meta TSV CONTAINER-PATH-PATTERN: the meta of the container whose start row's
# path matches, as KEY=VALUE lines (values unescaped, then shown with repr),
# and "order=ok" when the meta row comes before its entrypoint's exec row
meta() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
def unescape(s):
    out, i = bytearray(), 0
    m = {'\\': b'\\', 't': b'\t', 'n': b'\n', 'r': b'\r'}
    while i < len(s):
        if s[i] == '\\':
            if s[i + 1] == 'x':
                out.append(int(s[i + 2:i + 4], 16)); i += 4; continue
            out += m[s[i + 1]]; i += 2; continue
        out += s[i].encode(); i += 1
    return bytes(out)
name, meta, metai, execi = None, None, None, None
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if not l.startswith('#')][1:]
for i, r in enumerate(rows):
    if r[7] == 'start' and re.search(sys.argv[2], r[11]):
        name = r[1]
    if name and r[1] == name and r[7] == 'meta' and meta is None:
        meta, metai = unescape(r[11]), i
    if name and r[1] == name and r[7] == 'exec' and execi is None and \
       (r[8] == 'init' or not re.search(r'^/proc/self/exe$|/fd/\d+$|/runc$', r[11])):
        execi = i
if meta is None:
    sys.exit(0)
i = 0
while i < len(meta):
    eq = meta.index(b'=', i); key = meta[i:eq].decode()
    colon = meta.index(b':', eq); n = int(meta[eq + 1:colon])
    print('%s=%s' % (key, repr(meta[colon + 1:colon + 1 + n].decode())))
    i = colon + 1 + n + 1
print('order=%s' % ('ok' if execi is None or metai < execi else 'late'))
EOF
}
# expect_meta TSV CONTAINER-PATTERN KEY=REPR...: its meta row says each
expect_meta() {
	local got want f=$1 pat=$2
	shift 2
	got=$(meta "$f" "$pat")
	[ -n "$got" ] || { miss "no meta row for the container of $pat"; return; }
	for want in "$@" "order=ok"; do
		grep -qxF -- "$want" <<< "$got" || miss "meta of $pat: no $want in: $(tr '\n' ' ' <<< "$got")"
	done
}
# watch_parents docker|podman: the issue's first case under one watch that
# starts before the runtime: two runs under the runtime's default parent
# (made by the first where it is not there yet), two under --cgroup-parent
# $RT_PARENT (made by the first), two at once under $RT_PARENT/par (made
# while they start). Each container its own, <runtime>-<12 hex>, its start
# row with its full path, its exec phase at its entrypoint, a listen; no
# container for a parent. The TSV: $TMP/w.tsv.
watch_parents() {
	local rt=$1 parent prefix fresh='' e f x id m
	case $rt in
	docker) parent=/docker prefix= ;;
	podman) parent=/libpod_parent prefix=libpod- ;;
	esac
	[ -d "$(cgroup2_mount)$parent" ] || fresh=" (made during the watch)"
	# every new cgroup (no -c: a glob would hide the parents); only listen
	# among the syscalls, so the other tests' cgroups stay small
	watch_start "$TMP/w.tsv" -s listen
	"start_$rt"
	run_probe "$rt" "$TMP/a.cid" --name "bt-$$-a"
	run_probe "$rt" "$TMP/b.cid"
	run_probe "$rt" "$TMP/c.cid" --cgroup-parent "$RT_PARENT"
	run_probe "$rt" "$TMP/d.cid" --cgroup-parent "$RT_PARENT"
	run_probe "$rt" "$TMP/e.cid" --cgroup-parent "$RT_PARENT/par" & e=$!
	run_probe "$rt" "$TMP/f.cid" --cgroup-parent "$RT_PARENT/par" & f=$!
	wait $e || exit 1
	wait $f || exit 1
	watch_stop "$TMP/w.tsv"

	m=$misses
	for x in a b c d e f; do
		id=$(cat "$TMP/$x.cid")
		[[ $id =~ ^[0-9a-f]{64}$ ]] || fail "$rt container id '$id'"
		expect_container "$TMP/w.tsv" "$id" "$rt-${id:0:12}" &&
			entrypoint_ok "$TMP/w.tsv" "$rt-${id:0:12}" /bin/sh
	done
	expect_start_path "$TMP/w.tsv" "$RT_PARENT/$prefix$(cat "$TMP/c.cid")"
	# the runtime's names (docs/tsv-format.md, Meta rows): docker's state, podman's conmon
	id=$(cat "$TMP/a.cid")
	expect_meta "$TMP/w.tsv" "$id\$" "runtime='$rt'" "id='$id'" "name='bt-$$-a'"
	if [ "$rt" = docker ]; then
		expect_meta "$TMP/w.tsv" "$id\$" "image='$RT_IMAGE'"
		grep -qP "\tmeta\tdocker\t" "$TMP/w.tsv" || miss "docker's meta rows are not from its state"
	fi
	expect_start_path "$TMP/w.tsv" "$RT_PARENT/par/$prefix$(cat "$TMP/e.cid")"
	[ "$misses" -eq "$m" ] &&
		ok "$rt: 6 containers, each its own $rt-<12> with its path, exec phase at its entrypoint, listen, a meta row with its name"
	m=$misses
	no_parent_container "$TMP/w.tsv" "$parent" "$RT_PARENT" "$RT_PARENT/par"
	[ "$misses" -eq "$m" ] &&
		ok "$rt: no container for $parent$fresh, $RT_PARENT (made during the watch), $RT_PARENT/par (two at once)"
}

# expect_client_runs FILE N ERE: the TSV of `collector -c GLOB --runs N --
# CLIENT` has N containers, named as ERE says, each with two start rows:
# the client's spawn (the earliest), then its cgroup's mkdir (or, pidtree,
# its namespace); each with its entrypoint's exec and a listen.
expect_client_runs() {
	local f=$1 n=$2 ere=$3 names x m=$misses bad
	[ -s "$f" ] || { miss "no TSV from the client runs"; return 1; }
	check_tsv "$f"
	names=$(rows "$f" start | awk -F'\t' '$9 != "mark" { print $2 }' | sort -u)
	[ "$(echo "$names" | grep -cE "^($ere)\$")" -eq "$n" ] || miss "not $n containers $ere: $(echo $names)"
	bad=$(rows "$f" start | awk -F'\t' '$9 != "mark" { n[$2]++; if (!($2 in t) || $1 < t[$2]) { t[$2] = $1; h[$2] = $9 }
		if ($9 != "client") o[$2] = $9 }
		END { for (c in n) if (n[c] != 2 || h[c] != "client" || o[c] == "") print c ": " n[c] " start rows, the earliest " h[c] }')
	[ -z "$bad" ] || miss "start rows not the client's spawn then the cgroup's: $(echo $bad)"
	for x in $names; do entrypoint_ok "$f" "$x" /bin/sh; done
	[ "$misses" -eq "$m" ]
}

# client_runs GLOB ERE CLIENT...: the collector times CLIENT 3 times in
# client mode (-c GLOB --until listen) into $TMP/c.tsv: it exits 0 within
# 60 s (each container sleeps 60 s after it listens: --until stops it; $took
# is how long), and expect_client_runs ERE holds, whose status it returns.
client_runs() {
	local glob=$1 ere=$2 t0 rc
	shift 2
	t0=$(date +%s)
	"$COLLECTOR" -c "$glob" --runs 3 --until listen -o "$TMP/c.tsv" -- "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	took=$(($(date +%s) - t0))
	[ $rc -eq 0 ] || miss "collector -c GLOB --runs 3 -- $1: exit $rc: $(head -5 "$TMP/err")"
	[ $took -lt 60 ] || miss "three runs took $took s: --until listen did not stop them"
	expect_client_runs "$TMP/c.tsv" 3 "$ere"
}

# start_of FILE ID: the container name of the start row whose detail (the
# cgroup path) ends with ID (a container id, or a runc cgroupsPath).
start_of() {
	awk -F'\t' -v id="$2" '!/^#/ && $8 == "start" && $9 != "mark" &&
		substr($12, length($12) - length(id) + 1) == id { print $2 }' "$1"
}

# expect_container FILE ID NAME: exactly one container for ID, named NAME.
expect_container() {
	local got
	got=$(start_of "$1" "$2")
	[ "$got" = "$3" ] || miss "container of $2: '$(echo $got)', not '$3' (start rows: $(starts_said "$1"))"
}

# expect_start_path FILE PATH: a start row with the cgroup path PATH.
expect_start_path() {
	rows "$1" start | awk -F'\t' -v p="$2" '$12 == p { f = 1 } END { exit !f }' ||
		miss "no start row with the path $2"
}

# no_parent_container FILE PATH...: no container is named after a runtime's
# parent cgroup (its last component, as names.c names one, or NAME#N), nor
# started at it.
no_parent_container() {
	local f=$1 p
	local is='BEGIN { n = p; sub(/.*\//, "", n) } $12 == p || $2 == n || index($2, n "#") == 1'
	shift
	for p in "$@"; do
		rows "$f" start | awk -F'\t' -v p="$p" "$is { exit 1 }" ||
			miss "a container for the parent cgroup $p: $(rows "$f" start | awk -F'\t' -v p="$p" "$is" | cut -f2,7,9,12)"
	done
}

# entrypoint_ok FILE NAME ENTRYPOINT: the container's exec phase, as analyze
# reports it, is its entrypoint's exec row (the first exec of ENTRYPOINT by
# the container's pid 1), not a runtime's re-exec; and it listened.
entrypoint_ok() {
	local f=$1 name=$2 ep=$3 start want got listen m=$misses
	start=$(rows "$f" start | awk -F'\t' -v n="$name" '$2 == n && $9 != "mark" { print $1; exit }')
	[ -n "$start" ] || { miss "$name: no start row"; return 1; }
	want=$(rows "$f" exec | awk -F'\t' -v n="$name" -v e="$ep" '$2 == n && $12 == e { print $1; exit }')
	[ -n "$want" ] || { miss "$name: no exec row of $ep"; return 1; }
	got=$("$ANALYZE" --container "$name" --format tsv "$f" | awk -F'\t' '$1 == "exec" && $2 == 1 { print $3 }')
	[ "$got" = "$((want - start))" ] ||
		miss "$name: exec phase '$got' ns, not the entrypoint's exec row at $((want - start)) ns (execs: $(rows "$f" exec | awk -F'\t' -v n="$name" '$2 == n' | cut -f1,4,7,12 | head -4 | tr '\t\n' ' ;'))"
	listen=$("$ANALYZE" --container "$name" --format tsv "$f" | awk -F'\t' '$1 == "listen" { print $2 }')
	[ "$listen" = 1 ] || miss "$name: no listen phase"
	[ "$misses" -eq "$m" ]
}

# cleanup_checked: clean up now (not only at exit) and check that nothing
# is left: no process of the runtimes (dockerd, containerd, shims, conmon),
# none of the cgroups they made (v1 and v2), no state directory, no mount.
cleanup_checked() {
	local dir=$RT_DIR cgs=("${rt_owned_cgroups[@]}") paths=("${rt_owned_paths[@]}") m p left
	rt_cleanup
	left=$(rt_pids_of "$dir/")
	[ -z "$left" ] || fail "processes left behind: $(for p in $left; do tr '\0' ' ' < /proc/$p/cmdline; echo; done)"
	for p in "${cgs[@]}"; do
		for m in $(rt_cgroup_mounts); do
			[ -d "$m$p" ] && fail "cgroup $m$p left behind"
		done
	done
	for p in "${paths[@]}"; do [ -e "$p" ] && fail "$p left behind"; done
	[ -e "$dir" ] && fail "$dir left behind"
	grep -qF " $dir/" /proc/self/mounts && fail "a mount under $dir left behind"
	ok "cleanup: no daemon, container, image, mount or cgroup left (${cgs[*]:-no cgroup of ours})"
}
