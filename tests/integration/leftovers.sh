# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# What a run of tests (or of the demo) leaves on the host: cgroups, mounts,
# processes, temp directories. Sourced by tests/run.sh (the suite's
# suite_leaves_nothing), lib.sh (leftovers_own) and test_demo.sh.
#
#   leftovers_begin DIR  snapshot the host into DIR (made): every cgroup
#                        directory of every hierarchy (v1 and v2), the
#                        mounts, the processes; and mark the run: exports
#                        BOOTTRACE_RUN, which everything the run starts
#                        inherits (a run begun inside another -- the demo's
#                        test in the suite -- gets a mark under its parent's,
#                        so the parent counts its processes as its own too),
#                        and BOOTTRACE_RUN_DIR=DIR
#   leftovers_own PATH   PATH (a test's $TMP) is the run's: a mount under it
#                        is the run's, and PATH must be gone at the end
#                        (unless KEEP_TMP is set)
#   leftovers_end DIR    print what the run left, one line each, and return
#                        1 if anything; what is still going away (a daemon
#                        stopping) has 5 s to go first
#   lo_daemons           the container runtime daemons running: "PID COMM"
#
# The host has other things that change meanwhile (other test runs of other
# checkouts, their collectors, daemons and cgroups): only what is the run's
# is counted --
#   - a process carrying the run's mark (but the checker itself and its
#     children), or, carrying no mark at all, new since the snapshot and
#     either a runtime daemon (dockerd, containerd, containerd-shim, conmon,
#     podman, docker-proxy, runc) or an nginx whose working directory is
#     this checkout's (nginx overwrites its environment with its title);
#   - a cgroup directory made since the snapshot, in any hierarchy, under
#     a directory (at any depth) of the names the tests, the collector and
#     the runtimes make ($LO_CGROUPS: the host's own, other software's, are
#     not looked at), unless another run's: that directory is NAME.PID
#     (boottrace-test.PID, boottrace.PID, boottrace-rt.PID, ...) of a live
#     process without the run's mark, or docker, libpod_parent or the
#     kubelet's kubepods(.slice) while a daemon without the run's mark runs;
#   - a mount made since the snapshot, unless another run's: under a
#     /tmp/boottrace-* directory not the run's own, or under a runtime's
#     state (/run/docker, /var/lib/containers, ...) while a daemon without
#     the run's mark runs; tracefs, debugfs and bpf are left out (the
#     collector mounts tracefs where nothing did, as perf does, on purpose);
#   - a directory given to leftovers_own that is still there.

LO_DAEMONS='dockerd containerd containerd-shim* conmon podman docker-proxy runc'
LO_CGROUPS='boottrace* bt-* docker libpod_parent kubepods kubepods.slice'

leftovers_own() {
	if [ -n "${BOOTTRACE_RUN_DIR:-}" ] && [ -d "$BOOTTRACE_RUN_DIR" ]; then
		echo "$1" >> "$BOOTTRACE_RUN_DIR/paths"
	fi
	return 0
}

# Each cgroup directory of every hierarchy, one a line.
lo_cgroups() {
	local m
	for m in $(awk '$3 == "cgroup2" || $3 == "cgroup" { print $2 }' /proc/self/mounts); do
		find "$m" -mindepth 1 -type d 2> /dev/null
	done
	return 0
}

# "ID MOUNTPOINT FSTYPE" of each mount.
lo_mounts() {
	awk '{ for (i = 7; i <= NF && $i != "-"; i++); print $1, $5, $(i + 1) }' /proc/self/mountinfo
}

# lo_procs: fills lo_ppid, lo_start, lo_comm (by pid) from /proc/PID/stat
# (read whole: a comm may hold a newline) and lo_mark (by pid, for those
# with a BOOTTRACE_RUN in their environment: its value).
lo_procs() {
	local f p s rest l
	lo_ppid=() lo_start=() lo_comm=() lo_mark=()
	for f in /proc/[0-9]*/stat; do
		s=
		read -r -d '' s 2> /dev/null < "$f" || true	# (status 1 at the end of the file)
		[ -n "$s" ] || continue	# (gone meanwhile)
		p=${f#/proc/}
		p=${p%/stat}
		rest=${s##*) }
		# shellcheck disable=SC2086 # (the fields after the comm, split)
		set -- $rest
		lo_ppid[$p]=$2 lo_start[$p]=${20}
		s=${s#*(}
		lo_comm[$p]=${s%)*}
	done
	while IFS= read -r l; do
		p=${l#/proc/}
		lo_mark[${p%%/*}]=${l#*:BOOTTRACE_RUN=}
	done < <(grep -Haz '^BOOTTRACE_RUN=' /proc/[0-9]*/environ 2> /dev/null | tr '\0' '\n')
	return 0
}

# lo_ours PID: the process carries the run's mark ($lo_run) or one under it.
lo_ours() {
	local m=${lo_mark[$1]-}
	[ -n "${lo_mark[$1]+set}" ] && { [ "$m" = "$lo_run" ] || [[ $m == "$lo_run"/* ]]; }
}

# lo_matches NAME 'GLOB...': NAME matches one of the globs.
lo_matches() {
	local g gs
	read -ra gs <<< "$2"	# (split, not expanded as file names)
	for g in "${gs[@]}"; do
		# shellcheck disable=SC2053 # (a glob)
		[[ $1 == $g ]] && return 0
	done
	return 1
}

lo_is_daemon() { lo_matches "$1" "$LO_DAEMONS"; }

lo_daemons() {
	local p
	declare -A lo_ppid lo_start lo_comm lo_mark
	lo_procs
	for p in "${!lo_comm[@]}"; do
		if lo_is_daemon "${lo_comm[$p]}"; then echo "$p ${lo_comm[$p]}"; fi
	done
	return 0
}

leftovers_begin() {
	local dir=$1 p
	declare -A lo_ppid lo_start lo_comm lo_mark
	mkdir -p "$dir" || return 1
	BOOTTRACE_RUN=${BOOTTRACE_RUN:+$BOOTTRACE_RUN/}$$.$(date +%s%N)
	BOOTTRACE_RUN_DIR=$dir
	export BOOTTRACE_RUN BOOTTRACE_RUN_DIR
	echo "$BOOTTRACE_RUN" > "$dir/run"
	: > "$dir/paths"
	lo_cgroups > "$dir/cgroups"
	lo_mounts > "$dir/mounts"
	lo_procs
	for p in "${!lo_start[@]}"; do echo "$p ${lo_start[$p]}"; done > "$dir/procs"
}

# lo_new FILE: the lines of stdin that FILE does not hold.
lo_new() { awk 'NR == FNR { old[$0] = 1; next } !($0 in old)' "$1" -; }

# lo_scan DIR: what is left now, one line each.
lo_scan() {
	local dir=$1 top p n c d m rel first mp fs path foreign='' changed=1 line
	local lo_run
	declare -A lo_ppid lo_start lo_comm lo_mark before mine
	lo_run=$(cat "$dir/run")
	top=$(pwd -P)
	lo_procs
	while read -r p n; do before[$p]=$n; done < "$dir/procs"
	# the checker: this shell and its children
	mine[$$]=1
	while [ -n "$changed" ]; do
		changed=
		for p in "${!lo_ppid[@]}"; do
			if [ -n "${mine[${lo_ppid[$p]}]-}" ] && [ -z "${mine[$p]-}" ]; then mine[$p]=1 changed=1; fi
		done
	done
	for p in "${!lo_comm[@]}"; do
		[ -z "${mine[$p]-}" ] || continue
		c=${lo_comm[$p]}
		if [ -n "${lo_mark[$p]+set}" ]; then
			if ! lo_ours "$p"; then
				lo_is_daemon "$c" && foreign=1
				continue
			fi
		else
			[ "${before[$p]-}" != "${lo_start[$p]}" ] || continue
			if ! lo_is_daemon "$c"; then
				[ "$c" = nginx ] || continue
				[ "$(readlink "/proc/$p/cwd" 2> /dev/null)" = "$top" ] || continue
			fi
		fi
		echo "process $p (${c//[^[:graph:]]/?}): $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c1-160 | tr -c '[:print:]\n' '?')"
	done
	# cgroups: the top of each new tree, once for all its hierarchies
	lo_cgroups | lo_new "$dir/cgroups" | sort | while read -r d; do
		m=$(awk -v d="$d" '($3 == "cgroup2" || $3 == "cgroup") && index(d, $2 "/") == 1 { print $2 }' /proc/self/mounts)
		rel=${d#"$m"}
		# the first of its directories of a name of $LO_CGROUPS, at any
		# depth (a relative path given to a runtime lands under the
		# caller's own cgroup in a v1 hierarchy)
		first=
		IFS=/ read -ra parts <<< "${rel#/}"
		for c in "${parts[@]}"; do
			lo_matches "$c" "$LO_CGROUPS" && { first=$c; break; }
		done
		[ -n "$first" ] || continue
		if [[ $first =~ \.([0-9]+)$ || $first =~ ^bt-([0-9]+)- ]]; then
			p=${BASH_REMATCH[1]}
			# another run's, alive (maybe started after the table was read)
			if [ -d "/proc/$p" ] && ! lo_ours "$p"; then continue; fi
		else
			case $first in
			docker|libpod_parent|kubepods|kubepods.slice)
				[ -z "$foreign" ] || continue ;;	# another run's daemon makes them
			esac
		fi
		echo "$rel ${m##*/}"
	done | awk '{ for (i = split($1, c, "/"); i > 1; i--) { p = ""; for (j = 2; j < i; j++) p = p "/" c[j]; if (p in top) next }
		top[$1] = 1; h[$1] = h[$1] (h[$1] == "" ? "" : ",") $2 }
		END { for (d in h) print "cgroup " d " (" h[d] ")" }' | sort
	# mounts
	lo_mounts | lo_new "$dir/mounts" | while read -r _ mp fs; do
		case $fs in tracefs|debugfs|bpf) continue ;; esac
		line="mount $mp ($fs)"
		while read -r path; do
			case $mp in "$path"|"$path"/*) echo "$line"; continue 2 ;; esac
		done < "$dir/paths"
		case $mp in
		/tmp/boottrace-*) continue ;;	# another run's temp directory
		/run/docker*|/run/containerd*|/run/containers*|/run/netns*|/run/runc*|/var/lib/docker*|/var/lib/containers*)
			[ -z "$foreign" ] || continue ;;
		esac
		echo "$line"
	done
	# the run's temp directories
	if [ -z "${KEEP_TMP:-}" ]; then
		while read -r path; do
			if [ -e "$path" ]; then echo "directory $path"; fi
		done < "$dir/paths"
	fi
	return 0
}

leftovers_end() {
	local out _
	for _ in $(seq 10); do
		out=$(lo_scan "$1")
		[ -n "$out" ] || return 0
		sleep 0.5
	done
	printf '%s\n' "$out"
	return 1
}
