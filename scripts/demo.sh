#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# demo.sh DIR: boot the sample service as a container several times under
# the collector, analyze the boots, and leave a report in DIR: the TSV, the
# phase table, histograms, syscall time and PNG plots. Then milestones inside
# the application (--mark): samples/bootsvc's USDT probe and ready function
# (start -> exec -> config -> listen -> ready), and Debian's nginx, stripped
# as packaged, booted with a config of its own on a loopback port (its
# exported ngx_init_cycle as a mark). Then, when docker or podman is
# installed, a real runtime: 10 boots of a busybox httpd container through
# `docker run` (podman run without docker), timed from the client's start by
# `collector -c GLOB --runs N -- CLIENT`, with a daemon of its own that is
# removed at the end (scripts/runtimes.sh): where each boot's time went,
# through the client, the daemons and runc (the collector records the
# host's tasks during each boot), by state and by process. Run by `make
# demo` (DIR: its DEMO_OUT, demo-out by default). The daemon's state goes in
# a directory of its own under $TMPDIR (/tmp). Every report is named on a
# line "demo: [WHAT ]report in DIR/: FILE..." (tests/integration/test_demo.sh
# checks each). It leaves no daemon, cgroup, mount or state behind.
# pipefail: a report whose analyze failed fails the demo (not hidden by tee)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/runtimes.sh
OUTPUT=${OUTPUT:-build}
out=${1:-demo-out}
runs=${RUNS:-10}
mkdir -p "$out"

# where_the_time_went FILE: the summary across containers of analyze
# --critical-path's FILE (the part after each container's own path)
where_the_time_went() {
	echo "demo: where the time went (analyze --critical-path; each boot's path in $1):"
	sed -n '/^top of the critical paths/,$p' "$1" | sed 's/^/  /'
}

# by_process FILE: each boot's path by process (analyze --critical-path's
# "by task on the path" line): the client, the daemons, runc, the container
by_process() {
	echo "demo: each boot's path by process (the runtime's too: client mode records the host's tasks):"
	awk '/^critical path of / { c = $4 }
		t != "" && /^            / { sub(/^ +/, " "); t = t $0; next }
		t != "" { print "  " c ": " t; t = "" }
		/^  by task on the path: / { sub(/^  by task on the path: /, ""); t = $0 }
		END { if (t != "") print "  " c ": " t }' "$1"
}

echo "demo: booting samples/webapp $runs times as a container (until its worker listens)"
"$OUTPUT/collector" --runs "$runs" --until listen --name webapp --unshare pid,mount,uts,ipc \
	-o "$out/boot.tsv" -- "$OUTPUT/samples/webapp" --warmup-ms 30 2> "$out/collector.log"
echo "demo: $(grep -vc '^#' "$out/boot.tsv") rows in $out/boot.tsv ($(tail -1 "$out/boot.tsv"))"

"$OUTPUT/analyze" "$out/boot.tsv" | tee "$out/phases.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --hist > "$out/hist.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --by syscall > "$out/syscalls.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --format tsv > "$out/phases.tsv"
"$OUTPUT/analyze" "$out/boot.tsv" --critical-path > "$out/critical-path.txt"
"$OUTPUT/analyze" "$out/boot.tsv" --format trace-event > "$out/boot.trace.json"
"$OUTPUT/analyze" "$out/boot.tsv" --plot "$out/plots"
where_the_time_went "$out/critical-path.txt"
echo "demo: report in $out/: phases.txt hist.txt syscalls.txt phases.tsv critical-path.txt boot.trace.json plots/index.html plots/*.png"
echo "      (open boot.trace.json in ui.perfetto.dev, plots/index.html in a browser)"
find "$out/plots" -name '*.png' | sort | sed 's/^/  /'

# --- milestones inside the application ---------------------------------------
bootsvc=$(realpath "$OUTPUT/samples/bootsvc")
echo
echo "demo: booting samples/bootsvc $runs times, marks at its USDT probe bootsvc:config_loaded and at bootsvc_ready()"
"$OUTPUT/collector" --runs "$runs" --name bootsvc --until mark:ready \
	--mark "usdt:$bootsvc:bootsvc:config_loaded=config" --mark "uprobe:$bootsvc:bootsvc_ready=ready" \
	-o "$out/bootsvc.tsv" -- "$bootsvc" --warmup-ms 20 2> "$out/bootsvc.log"
echo "demo: start -> exec -> config -> listen -> ready:"
"$OUTPUT/analyze" "$out/bootsvc.tsv" | tee "$out/bootsvc-phases.txt"
echo "demo: bootsvc report in $out/: bootsvc.tsv bootsvc-phases.txt"

if [ -x /usr/sbin/nginx ]; then
	ngx=$(realpath "$out")/nginx
	mkdir -p "$ngx"
	chmod 755 "$ngx"	# the workers (www-data) may look in it
	port=$(rt_free_port) || port=18080
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
	echo "demo: nginx report in $out/: nginx.tsv nginx-phases.txt nginx-plots/index.html"
else
	echo "demo: no /usr/sbin/nginx (scripts/install-deps.sh installs it): nginx left out"
fi

# --- a real container runtime ------------------------------------------------
echo
if rt_have docker || rt_have podman; then
	rt_init "$(mktemp -d "${TMPDIR:-/tmp}/boottrace-demo.XXXXXX")"
	trap rt_cleanup EXIT
	if rt_have docker; then
		# its containers under a parent of the demo's own, not /docker: on
		# a host where another dockerd runs containers, -c '/docker/*'
		# would time theirs as the demo's boots (every dockerd with the
		# cgroupfs driver uses /docker/<id>)
		parent=/boottrace-demo.$$
		rt=docker glob="$parent/*"
		dockerd_start
		rt_own_cgroup "$parent"
		client=("${DOCKER[@]}" run --rm --network host --cgroup-parent "$parent" "$RT_IMAGE")
		echo "demo: dockerd $(/usr/sbin/dockerd --version | sed 's/^Docker version //') started with its own state in $RT_DIR (vfs, no bridge)"
	else
		rt=podman glob='/libpod_parent/*'
		podman_start
		client=("${PODMAN[@]}" run --rm --network host "${PODMAN_RUN_OPTS[@]}" "localhost/$RT_IMAGE")
	fi
	port=$(rt_free_port) || { echo "demo: no free port on 127.0.0.1" >&2; exit 1; }
	echo "demo: $runs boots of a busybox httpd container through \`$rt run\`, from the client's start until it listens on 127.0.0.1:$port"
	if "$OUTPUT/collector" -c "$glob" --runs "$runs" --until listen -o "$out/$rt.tsv" -- \
		"${client[@]}" sh -c "httpd -f -p 127.0.0.1:$port & sleep 60" 2> "$out/$rt.log"; then
		"$OUTPUT/analyze" "$out/$rt.tsv" | tee "$out/$rt-phases.txt"
		"$OUTPUT/analyze" "$out/$rt.tsv" --hist > "$out/$rt-hist.txt"
		"$OUTPUT/analyze" "$out/$rt.tsv" --critical-path > "$out/$rt-critical-path.txt"
		"$OUTPUT/analyze" "$out/$rt.tsv" --plot "$out/$rt-plots" > /dev/null
		"$OUTPUT/analyze" "$out/$rt.tsv" --by state > "$out/$rt-states.txt"
		where_the_time_went "$out/$rt-critical-path.txt"
		by_process "$out/$rt-critical-path.txt"
		echo "demo: the containers' own tasks by state (analyze --by state):"
		sed -n '/^time by scheduler state/,$p' "$out/$rt-states.txt" | sed 's/^/  /'
		echo "demo: $rt report in $out/: $rt.tsv $rt-phases.txt $rt-hist.txt $rt-critical-path.txt $rt-states.txt $rt-plots/index.html"
	else
		echo "demo: collector -c '$glob' --runs $runs -- $rt run ... failed; $out/$rt.log:" >&2
		tail -5 "$out/$rt.log" >&2
		exit 1
	fi
	rt_cleanup
	echo "demo: the $rt daemon, its containers, images and cgroups removed"
else
	echo "demo: neither docker nor podman (scripts/install-deps.sh installs them): the real runtime left out"
fi
