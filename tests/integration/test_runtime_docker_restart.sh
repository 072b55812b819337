#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Restarts (issue 30): `docker run --restart on-failure:2` of a container
# that exits 3 is three boots, docker-<12 hex>, #2 and #3, each with an end
# row saying exit=3; analyze --failures shows each restart's back-off
# (dockerd waits 100 ms, then 200 ms, doubling: the start of #2 is at least
# 100 ms after the first boot's exit, #3's at least 200 ms after #2's), and
# the phase table says each exited 3.
. "$(dirname "$0")/lib.sh"
need_root
. "$(dirname "$0")/runtimes.sh"
need_runtime docker

watch_start "$TMP/w.tsv" -c '/docker/*'
start_docker
"${DOCKER[@]}" run -d --restart on-failure:2 --network host --cidfile "$TMP/cid" "$RT_IMAGE" \
	sh -c 'sleep 0.2; exit 3' > /dev/null || fail "docker run failed"
id=$(cat "$TMP/cid")
# done when it stopped for good: 2 restarts, neither running nor restarting
for _ in $(seq 200); do
	st=$("${DOCKER[@]}" inspect -f '{{.RestartCount}} {{.State.Running}} {{.State.Restarting}}' "$id")
	[ "$st" = "2 false false" ] && break
	sleep 0.1
done
[ "$st" = "2 false false" ] || fail "the container did not stop after 2 restarts: $st"
"${DOCKER[@]}" rm "$id" > /dev/null || fail "docker rm failed"
watch_stop "$TMP/w.tsv"

name=docker-${id:0:12}
for n in "$name" "$name#2" "$name#3"; do
	rows "$TMP/w.tsv" end | awk -F'\t' -v n="$n" '$2 == n { print $12 }' |
		grep -Eq '^init=[0-9]+ exit=3$' || miss "no end row of $n with exit=3: $(rows "$TMP/w.tsv" end)"
done
# its boots only: another test's dockerd on this host puts its containers under /docker too
boots=$(rows "$TMP/w.tsv" start | awk -F'\t' -v n="$name" '$9 != "mark" && index($2, n) == 1 { print $2 }' | sort -u)
[ "$(echo "$boots" | tr ' ' '\n' | grep -c .)" = 3 ] || miss "not 3 boots of $name: $(echo $boots)"
"$ANALYZE" --failures --format tsv "$TMP/w.tsv" > "$TMP/f.tsv" || fail "--failures exited $?"
b2=$(awk -F'\t' -v n="$name#2" -v p="$name" '$1 == n && $2 == "restart" && $3 == p { print $6 }' "$TMP/f.tsv")
b3=$(awk -F'\t' -v n="$name#3" -v p="$name#2" '$1 == n && $2 == "restart" && $3 == p { print $6 }' "$TMP/f.tsv")
[[ $b2 =~ ^[0-9]+$ ]] && [ "$b2" -ge 100000000 ] || miss "back-off before #2: '$b2' ns, not >= 100 ms"
[[ $b3 =~ ^[0-9]+$ ]] && [ "$b3" -ge 200000000 ] || miss "back-off before #3: '$b3' ns, not >= 200 ms"
"$ANALYZE" --failures "$TMP/w.tsv" | grep -q "^  restart 3: started [0-9.]*m\?s after $name#2 ended (back-off)$" ||
	miss "the text names no back-off of restart 3: $("$ANALYZE" --failures "$TMP/w.tsv")"
[ "$("$ANALYZE" "$TMP/w.tsv" | grep -c "^  $name\(#[23]\)\?: exited 3 after ")" = 3 ] ||
	miss "the phase table does not say the 3 boots exited 3: $("$ANALYZE" "$TMP/w.tsv")"
misses_done
ok "3 boots of $name, each exited 3; back-off $((b2 / 1000000)) ms, then $((b3 / 1000000)) ms"
