# SPDX-License-Identifier: BSD-2-Clause
# Helpers for the tests of collector --metrics (sourced after lib.sh).

# metrics_addr FILE: the host:port a collector said it serves on (its stderr in FILE)
metrics_addr() {
	local a
	for _ in $(seq 100); do
		a=$(sed -n 's|^collector: metrics on http://\(.*\)/metrics$|\1|p' "$1")
		[ -n "$a" ] && { echo "$a"; return 0; }
		sleep 0.05
	done
	fail "no 'metrics on' line in $1: $(cat "$1")"
}

# scrape ADDR: the text of /metrics (fails the test when the server does not answer 200)
scrape() {
	curl -sf -m 5 "http://$1/metrics" || fail "GET http://$1/metrics failed ($?)"
}

# sample TEXT NAME{LABELS}: the value of one sample in TEXT (the labels as written), or nothing
sample() {
	awk -v k="$2" '$1 == k { print $2; exit }' <<< "$1"
}

# phase_values TSV PHASE: each container's PHASE (exec or listen) in ns, one a
# line, by the analyzer's rules (DESIGN.md §4): from its earliest start row;
# exec: its earliest exec named init, else its earliest that is no runtime's
# re-exec (common/entrypoint.h); listen: the earliest ts + dur_ns of a
# successful listen.
phase_values() {
	awk -F'\t' -v ph="$2" '
	function runtime(f,  b) {
		if (f == "/proc/self/exe" || f ~ /^\/(dev|proc\/self)\/fd\/[0-9]+$/) return 1
		b = f; sub(/.*\//, "", b)
		return b ~ /^(runc|crun|youki|conmon)$/ || b ~ /^containerd-shim/
	}
	/^#/ || $1 == "ts_ns" { next }
	$8 == "start" { if (!($2 in st) || $1 < st[$2]) st[$2] = $1 }
	$8 == "exec" && $9 == "init" { if (!($2 in ini) || $1 < ini[$2]) ini[$2] = $1 }
	$8 == "exec" && !runtime($12) { if (!($2 in ex) || $1 < ex[$2]) ex[$2] = $1 }
	$8 == "syscall" && $9 == "listen" && $10 == "0" {
		t = $1 + ($11 == "\\N" ? 0 : $11)
		if (!($2 in li) || t < li[$2]) li[$2] = t
	}
	END {
		for (c in st) {
			if (ph == "exec" && (c in ini)) print ini[c] - st[c]
			else if (ph == "exec" && (c in ex)) print ex[c] - st[c]
			else if (ph == "listen" && (c in li)) print li[c] - st[c]
		}
	}' "$1"
}

# buckets_agree TEXT VALUES-FILE PHASE RUNTIME: every bucket of
# boottrace_phase_seconds{phase=PHASE,runtime=RUNTIME} in TEXT counts exactly
# the values (ns) in VALUES-FILE at or below its bound; so do _count and
# _sum (to the ns). Fails the test otherwise.
buckets_agree() {
	local text=$1 values=$2 ph=$3 rt=$4 bad
	bad=$(awk -v ph="$ph" -v rt="$rt" '
	FNR == NR { v[++n] = $1; sum += $1; next }
	index($0, "boottrace_phase_seconds_bucket{phase=\"" ph "\",runtime=\"" rt "\",le=\"") == 1 {
		le = $0; sub(/.*le="/, "", le); sub(/".*/, "", le)
		want = 0
		for (i = 1; i <= n; i++) if (le == "+Inf" || v[i] <= int(le * 1e9 + 0.5)) want++
		if ($2 != want) print "le=" le ": " $2 " not " want
		buckets++
	}
	index($0, "boottrace_phase_seconds_count{phase=\"" ph "\",runtime=\"" rt "\"}") == 1 && $2 != n {
		print "count " $2 " not " n }
	index($0, "boottrace_phase_seconds_sum{phase=\"" ph "\",runtime=\"" rt "\"}") == 1 &&
		int($2 * 1e9 + 0.5) != sum { print "sum " $2 " not " sum / 1e9 }
	END { if (buckets != 55) print buckets " buckets, not 55" }' "$values" - <<< "$text")
	[ -z "$bad" ] || fail "$ph/$rt: the histogram and the TSV disagree: $(tr '\n' ';' <<< "$bad")"
}
