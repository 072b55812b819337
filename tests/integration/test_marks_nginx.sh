#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A real, unmodified server: Debian's nginx (stripped, as packaged), booted
# three times as a container with its own config in a temp dir (loopback
# port of its own, never port 80, no system service), stopped 200 ms after
# it listens. The analyzer has exec and listen for every run; the master's
# forks of its 2 workers are the container's; a uprobe on a function the
# stripped binary still exports (ngx_init_cycle, in .dynsym for dynamic
# modules) is a mark phase in every run.
# modes: cgroup pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root
[ -x /usr/sbin/nginx ] || skip "no /usr/sbin/nginx (scripts/install-deps.sh installs Debian's nginx)"

# a free loopback port
port=
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 40000))
	ss -Htln "sport = :$p" | grep -q . || { port=$p; break; }
done
[ -n "$port" ] || fail "no free port"
chmod 755 "$TMP"	# the workers (www-data) may look in it
cat > "$TMP/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 2;
pid $TMP/nginx.pid;
error_log $TMP/error.log;
events { worker_connections 64; }
http {
	access_log $TMP/access.log;
	client_body_temp_path $TMP/body;
	proxy_temp_path $TMP/proxy;
	fastcgi_temp_path $TMP/fastcgi;
	uwsgi_temp_path $TMP/uwsgi;
	scgi_temp_path $TMP/scgi;
	server {
		listen 127.0.0.1:$port;
		location / { return 200 "ok\n"; }
	}
}
EOF
/usr/sbin/nginx -t -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" 2> "$TMP/t.err" ||
	fail "nginx -t: $(cat "$TMP/t.err")"

out=$TMP/nginx.tsv
timeout 60 "$COLLECTOR" --runs 3 --until listen+200ms --name nginx \
	--mark uprobe:nginx:ngx_init_cycle=init_cycle -o "$out" -- \
	/usr/sbin/nginx -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" 2> "$TMP/err" ||
	fail "collector exited $?: $(cat "$TMP/err")"
check_tsv "$out"
[ "$(rows "$out" start | cut -f2 | tr '\n' ' ')" = "nginx-1 nginx-2 nginx-3 " ] || fail "not 3 runs nginx-1..3"
for run in nginx-1 nginx-2 nginx-3; do
	master=$(rows "$out" exec | awk -F'\t' -v r=$run '$2 == r && $12 == "/usr/sbin/nginx" { print $4; exit }')
	[ -n "$master" ] || fail "$run: no exec of /usr/sbin/nginx"
	rows "$out" syscall listen | awk -F'\t' -v r=$run -v a="127.0.0.1:$port" \
		'$2 == r && $10 == 0 && $12 == a { f = 1 } END { exit !f }' || fail "$run: no listen on 127.0.0.1:$port"
	n=$(rows "$out" fork process | awk -F'\t' -v r=$run -v m="$master" '$2 == r && $6 == m' | wc -l)
	[ "$n" -ge 2 ] || fail "$run: $n forks by the master $master, not its 2 workers"
	[ "$(rows "$out" mark init_cycle | awk -F'\t' -v r=$run '$2 == r' | wc -l)" -ge 1 ] ||
		fail "$run: no init_cycle mark"
done
# nothing of nginx's outside the containers, and no port 80
rows "$out" syscall bind | cut -f12 | grep -q ':80$' && fail "something bound port 80"
"$ANALYZE" --format tsv "$out" > "$TMP/phases.tsv" || fail "analyze exited $?"
for p in exec listen init_cycle; do
	awk -F'\t' -v p=$p '$1 == p && $2 == 3 { f = 1 } END { exit !f }' "$TMP/phases.tsv" ||
		fail "phase $p not in all 3 runs: $(cat "$TMP/phases.tsv")"
done
pgrep -f "nginx -p $TMP" > /dev/null && fail "an nginx outlived its container"
ok "Debian nginx, 3 boots: exec, listen and init_cycle phases in each; the workers' forks in the container"

# Where the time goes (issue 14): the critical path of each boot to listen
# tiles it and ends in the master's listen; to the init_cycle mark it ends
# in the master after the exec of nginx. --by over the whole trace is
# dominated by the waits after listen (epoll_wait, rt_sigsuspend); within
# the boot windows they are (nearly) gone.
"$ANALYZE" "$out" --critical-path --format tsv > "$TMP/path.tsv" || fail "--critical-path exited $?"
for run in nginx-1 nginx-2 nginx-3; do
	master=$(rows "$out" exec | awk -F'\t' -v r=$run '$2 == r && $12 == "/usr/sbin/nginx" { print $4; exit }')
	want=$(awk -F'\t' -v c=$run '!/^#/ && $2 == c {
		if ($8 == "start" && (s == "" || $1 < s)) s = $1
		if ($8 == "syscall" && $9 == "listen" && $10 == "0" && (l == "" || $1 + $11 < l)) l = $1 + $11 }
		END { printf "%.0f\n", l - s }' "$out")
	awk -F'\t' -v c=$run -v want="$want" -v m="$master" '$1 == c {
		if ($7 != at || $8 <= 0) bad = 1; at = $7 + $8; last = $4 " " $6 }
		END { exit !(at == want && last == m " syscall:listen" && !bad) }' at=0 "$TMP/path.tsv" ||
		fail "$run: the path does not tile the boot ($want ns) or end in $master's listen"
done
"$ANALYZE" "$out" --critical-path=init_cycle --format tsv | awk -F'\t' 'NR > 1 { n++ } END { exit !n }' ||
	fail "no critical path to init_cycle"
top_syscall() { "$ANALYZE" "$out" --by syscall "$@" --format tsv | awk -F'\t' 'NR == 2 { print $1 }'; }
# the whole trace (--until none: not the file's # until=listen, the default window)
case $(top_syscall --until none) in epoll_wait|rt_sigsuspend|epoll_pwait) ;; *) fail "--by syscall's top is $(top_syscall --until none), not a wait after listen" ;; esac
w=$("$ANALYZE" "$out" --by syscall --until listen --format tsv | awk -F'\t' '$1 ~ /^(epoll_wait|epoll_pwait|rt_sigsuspend)$/ { t += $4 } END { print t + 0 }')
[ "$w" -lt 1000000 ] || fail "--until listen still counts $w ns of waits after listen"
ok "nginx: the critical path tiles each boot and ends in the master's listen; --until listen drops the waits after it"
