#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A runtime's client timed N times (issue 13): `collector -c '/docker/*'
# --runs 3 --until listen -- docker run --rm ...` runs the client three
# times; each run's container is the new cgroup matching the glob (made by
# dockerd, containerd and runc, outside the client's process tree), its
# earliest start row is the client's spawn (then its mkdir), it has exec (the
# entrypoint's) and listen, and --until listen stops it although it would
# run 60 s more. Exit 0, three containers, none left running. With
# --profile=999: sample rows of each container's tasks, and of the
# runtime's host tasks (dockerd, containerd, containerd-shim, runc) during
# each boot, none outside; each boot's profile (analyze) holds dockerd's,
# and its critical path's running stretches of dockerd name functions.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime docker
start_docker

port=$(rt_free_port) || fail "no free port"
# with --profile=999 (the modern object's; checked below)
printf '#!/bin/sh\nexec "%s" --profile=999 "$@"\n' "$(realpath "$COLLECTOR")" > "$TMP/collector-profile"
chmod +x "$TMP/collector-profile"
COLLECTOR=$TMP/collector-profile
if client_runs '/docker/*' 'docker-[0-9a-f]{12}' \
	"${DOCKER[@]}" run --rm --network host "$RT_IMAGE" \
	sh -c "httpd -f -p 127.0.0.1:$port & sleep 60; kill %1"; then
	"$ANALYZE" --format tsv "$TMP/c.tsv" > "$TMP/phases" 2>&1 || miss "analyze failed: $(head -3 "$TMP/phases")"
	for p in exec listen; do
		awk -F'\t' -v p=$p '$1 == p && $2 == 3 { f = 1 } END { exit !f }' "$TMP/phases" ||
			miss "phase $p not in 3 containers: $(cat "$TMP/phases")"
	done
fi
# --profile in client mode: samples of the containers' tasks, and of the
# runtime's host tasks (container \N) during each boot only, from its
# client's spawn to its end row
if [ -s "$TMP/c.tsv" ]; then
	grep -qx '# profile=999' "$TMP/c.tsv" || miss "no '# profile=999' line"
	out=$(python3 "$(dirname "$0")/profile_check.py" check "$TMP/c.tsv") || miss "profile rows: $out"
	for c in $(rows "$TMP/c.tsv" start | awk -F'\t' '$9 != "mark" { print $2 }' | sort -u); do
		[ "$(rows "$TMP/c.tsv" sample | awk -F'\t' -v c="$c" '$2 == c' | wc -l)" -gt 0 ] ||
			miss "no sample rows of the container $c"
	done
	host=$(rows "$TMP/c.tsv" sample | awk -F'\t' '$2 == "\\N" { print $7 }' | sort | uniq -c)
	for comm in dockerd containerd containerd-shim runc; do
		awk -v c="$comm" '$2 == c { f = 1 } END { exit !f }' <<< "$host" ||
			miss "no host sample rows of $comm: $(echo $host)"
	done
	outside=$(awk -F'\t' '!/^#/ && NR > 1 && $2 != "\\N" && $8 != "mark" {
			if (!($2 in a) || $1 < a[$2]) a[$2] = $1
			if ($8 == "end") e[$2] = $1 }
		$8 == "sample" && $2 == "\\N" { s[++n] = $1 " " $7 }
		END { for (i = 1; i <= n; i++) { split(s[i], t, " "); in_ = 0
			for (c in a) if (c in e && t[1] >= a[c] && t[1] <= e[c]) in_ = 1
			if (!in_) print s[i] } }' "$TMP/c.tsv")
	[ -z "$outside" ] || miss "host samples outside every boot: $(head -5 <<< "$outside")"
	# and analyze puts the runtime's in each boot: its profile, by
	# process, holds dockerd's samples (folded stacks: the comm first)
	for c in $(rows "$TMP/c.tsv" start | awk -F'\t' '$9 != "mark" { print $2 }' | sort -u); do
		"$ANALYZE" --profile --format folded --container "$c" "$TMP/c.tsv" > "$TMP/f.$c" 2>&1 ||
			miss "analyze --profile --container $c: $(head -3 "$TMP/f.$c")"
		n=$(awk '/^dockerd;/ { n += $NF } END { print n + 0 }' "$TMP/f.$c")
		[ "$n" -gt 0 ] || miss "$c: no dockerd samples in its boot's profile: $(cut -d';' -f1 "$TMP/f.$c" | sort | uniq -c | tr '\n' ' ')"
		# dockerd and runc are stripped Go: their frames named from the
		# pclntab (runtime., main., github.com/...), at most 2% left as [dockerd+0x...]
		for p in dockerd runc; do
			read -r go all raw <<< "$(awk -v p="$p" 'index($0, p ";") == 1 { k = $NF; all += k
				if ($0 ~ /;(runtime|main|syscall|os|net|internal\/[a-z]+|github\.com\/[^;]*)\.[A-Za-z(]/) go += k
				if (index($0, "[" p "+0x")) raw += k } END { print go + 0, all + 0, raw + 0 }' "$TMP/f.$c")"
			if [ "$p" = runc ]; then
				# runc's C half (nsenter's nsexec, run before Go starts) has
				# no names in a stripped runc: most of its samples are Go's
				[ "$all" -eq 0 ] || [ $((go * 2)) -ge "$all" ] ||
					miss "$c: runc's samples: $go of $all on stacks with Go names"
				continue
			fi
			# (the root of a thread runtime.clone started may be one
			# return address past what the table covers: 1 in 100)
			[ $((go * 10)) -ge $((all * 9)) ] && [ $((raw * 50)) -le "$all" ] ||
				miss "$c: $p's samples: $go of $all on stacks with Go names, $raw with an unnamed $p frame: $(grep "^$p;" "$TMP/f.$c" | head -3 | cut -c1-300)"
		done
		echo "# $c's profile: dockerd $n samples, $(awk '{ n += $NF } END { print n + 0 }' "$TMP/f.$c") in all:" \
			"$(awk '{ n[substr($0, 1, index($0, ";") - 1)] += $NF } END { for (r in n) { printf "%s%s %d", s, r, n[r]; s = ", " } }' "$TMP/f.$c")"
	done
	# and the critical path's running stretches of dockerd name functions
	"$ANALYZE" --critical-path --format json "$TMP/c.tsv" > "$TMP/cp.json" 2> "$TMP/cp.err" ||
		miss "analyze --critical-path: $(head -3 "$TMP/cp.err")"
	out=$(python3 - "$TMP/cp.json" <<'PY'
import json, sys
# every stretch of 5 ms or more (5 samples at 999 Hz) named; a boot whose
# dockerd ran less on its path may have none
bad = total = 0
for c in json.load(open(sys.argv[1]))["critical_path"]["containers"]:
    segs = [s for s in c["segments"] if s["comm"] == "dockerd" and s["state"] == "running"]
    named = [s for s in segs if s.get("profile")]
    long = [s for s in segs if s["dur"] >= 5000000 and not s.get("profile")]
    ms = sum(s["dur"] for s in named) / 1e6
    print("%s: %d of %d dockerd running stretches named (%.1f ms), %d of 5 ms or more unnamed"
          % (c["container"], len(named), len(segs), ms, len(long)))
    bad += len(long)
    total += len(named)
sys.exit(1 if bad or not total else 0)
PY
) || miss "a path's dockerd stretches without a profile: $out"
	echo "$out" | sed 's/^/# /'
	host=$(awk '$2 ~ /^(dockerd|containerd|containerd-shim|runc)$/ {
		printf "%s%s %s", s, $2, $1; s = ", " }' <<< "$host")
	ok "--profile: samples of the 3 containers, and of the host's $host during the boots, dockerd's in each boot's profile"
fi
[ -z "$("${DOCKER[@]}" ps -aq)" ] || miss "containers left: $("${DOCKER[@]}" ps -a)"
[ "$misses" -eq 0 ] && ok "docker run timed 3 times: 3 containers with exec and listen, in $took s"

cleanup_checked
misses_done
