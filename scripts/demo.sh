#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# demo.sh DIR: boot the sample service as a container several times under
# the collector, analyze the boots, and leave a report in DIR: the TSV, the
# phase table, histograms, syscall time and PNG plots. Then milestones inside
# the application (--mark): samples/bootsvc's USDT probe and ready function
# (start -> exec -> config -> listen -> ready), and Debian's nginx, stripped
# as packaged, booted with a config of its own on a loopback port (its
# exported ngx_init_cycle as a mark). Run by `make demo`.
set -eu
cd "$(dirname "$0")/.."
OUTPUT=${OUTPUT:-build}
out=${1:-demo-out}
runs=${RUNS:-10}
mkdir -p "$out"

echo "demo: booting samples/webapp $runs times as a container (until its worker listens)"
"$OUTPUT/collector" --runs "$runs" --until listen --name webapp --unshare pid,mount,uts,ipc \
	-o "$out/boot.tsv" -- "$OUTPUT/samples/webapp" --warmup-ms 30 2> "$out/collector.log"
echo "demo: $(grep -vc '^#' "$out/boot.tsv") rows in $out/boot.tsv ($(tail -1 "$out/boot.tsv"))"

"$OUTPUT/analyze" "$out/boot.tsv" | tee "$out/phases.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --hist > "$out/hist.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --by syscall > "$out/syscalls.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --format tsv > "$out/phases.tsv"
"$OUTPUT/analyze" "$out/boot.tsv" --plot "$out/plots"
echo "demo: report in $out/: phases.txt hist.txt syscalls.txt phases.tsv plots/*.png"
ls "$out/plots"/*.png 2>/dev/null | sed 's/^/  /'

# --- milestones inside the application ---------------------------------------
bootsvc=$(realpath "$OUTPUT/samples/bootsvc")
echo
echo "demo: booting samples/bootsvc $runs times, marks at its USDT probe bootsvc:config_loaded and at bootsvc_ready()"
"$OUTPUT/collector" --runs "$runs" --name bootsvc --until mark:ready \
	--mark "usdt:$bootsvc:bootsvc:config_loaded=config" --mark "uprobe:$bootsvc:bootsvc_ready=ready" \
	-o "$out/bootsvc.tsv" -- "$bootsvc" --warmup-ms 20 2> "$out/bootsvc.log"
echo "demo: start -> exec -> config -> listen -> ready:"
"$OUTPUT/analyze" "$out/bootsvc.tsv" | tee "$out/bootsvc-phases.txt"

if [ -x /usr/sbin/nginx ]; then
	ngx=$(realpath "$out")/nginx
	mkdir -p "$ngx"
	chmod 755 "$ngx"	# the workers (www-data) may look in it
	port=18080
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { port=$p; break; }
	done
	cat > "$ngx/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 2;
pid $ngx/nginx.pid;
error_log $ngx/error.log;
events { worker_connections 64; }
http {
	access_log $ngx/access.log;
	client_body_temp_path $ngx/body;
	proxy_temp_path $ngx/proxy;
	fastcgi_temp_path $ngx/fastcgi;
	uwsgi_temp_path $ngx/uwsgi;
	scgi_temp_path $ngx/scgi;
	server { listen 127.0.0.1:$port; location / { return 200 "ok\n"; } }
}
EOF
	echo
	echo "demo: booting Debian's nginx (stripped, as packaged) $runs times on 127.0.0.1:$port, 2 workers, until 200 ms after it listens"
	"$OUTPUT/collector" --runs "$runs" --name nginx --until listen+200ms \
		--mark uprobe:nginx:ngx_init_cycle=init_cycle -o "$out/nginx.tsv" -- \
		/usr/sbin/nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/error.log" 2> "$out/nginx.log"
	"$OUTPUT/analyze" "$out/nginx.tsv" | tee "$out/nginx-phases.txt"
	"$OUTPUT/analyze" "$out/nginx.tsv" --plot "$out/nginx-plots" > /dev/null
	echo "demo: nginx report in $out/: nginx.tsv nginx-phases.txt nginx-plots/"
else
	echo "demo: no /usr/sbin/nginx (scripts/install-deps.sh installs it): nginx left out"
fi
