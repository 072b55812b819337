#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# load.sh [--remove] FILE... [-- CLICKHOUSE-CLIENT-OPTION...]
#
# Load the collector's TSV files into ClickHouse (schema.sql): each file's
# rows into boottrace.events with its host, run_id, part and kernel
# (INSERT ... FORMAT TabSeparatedWithNames), then one row of its metadata
# and trailer into boottrace.files. Idempotent: a file whose (host, run_id,
# part) boottrace.files already has is skipped, so the same glob can be
# given again and again. A file without its trailer (`# lost=N events=M`:
# still being written, or cut short) is skipped and said so.
#   --remove  delete each file once it is loaded (or found loaded before)
# Options after -- go to clickhouse-client (--host, --port, --user,
# --password, --database ...; CLICKHOUSE_CLIENT names another client).
#
# Where the files come from (collector(8), docs/tsv-format.md "A run in
# several files"; the collector has no hook of its own, these are the ways):
#   - collector --rotate SIZE -o /var/lib/boottrace/boot.tsv renames each
#     full file boot.tsv.N (N its part) and begins boot.tsv again; a timer
#     or cron job loads the finished ones:
#       load.sh --remove /var/lib/boottrace/boot.tsv.[0-9]*
#     (boot.tsv itself has no trailer yet: skipped until it is renamed);
#   - logrotate's create mode with a postrotate `systemctl reload
#     boottrace-collector` (SIGHUP: a new file at the same path): load
#     the moved file in the same postrotate, after the reload (the moved
#     file gets its trailer when the collector turns to the new one: the
#     script waits up to 10 s for it).
# Rows whose ts_ns is \N (the collector writes none; a hand-made file
# might) cannot be placed in time and are left out, counted on stderr.
# Exit: 0 all loaded or skipped, 1 a load failed, 2 usage.
set -eu

client=${CLICKHOUSE_CLIENT:-clickhouse-client}
remove=
files=
usage() { echo "usage: load.sh [--remove] FILE... [-- CLICKHOUSE-CLIENT-OPTION...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--remove) remove=1 ;;
	--) shift; break ;;
	-h|--help) sed -n '3,33s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) usage ;;
	*) files="$files
$1" ;;
	esac
	shift
done
[ -n "$files" ] || usage

ch() { # ch QUERY [INPUT]: clickhouse-client with the options given after --
	$client "$@"
}

# meta FILE KEY: a metadata line's value (TSV-escaped, as the file has it)
meta() { sed -n "/^[^#]/q; s/^# $2=//p" "$1" | head -1; }

# The trailer of FILE, or nothing; waits up to 10 s for a file just moved
# away by logrotate, whose collector writes its trailer at its next turn.
trailer() {
	n=0
	while :; do
		t=$(tail -n 1 "$1" | sed -n 's/^# lost=\([0-9]*\) events=\([0-9]*\)$/\1 \2/p')
		[ -n "$t" ] && { echo "$t"; return; }
		[ $n -ge 20 ] || [ "$(find "$1" -mmin -1 2>/dev/null)" = "" ] && return
		n=$((n + 1))
		sleep 0.5
	done
}

# sq VALUE: a metadata value (TSV-escaped: \t, \\, \xHH, which a ClickHouse
# string literal reads alike) as a quoted literal
sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/\\\\'/g")"; }

set -f	# the file names are words of $files, not globs
rc=0
old_ifs=$IFS
IFS='
'
for f in $files; do
	IFS=$old_ifs
	if [ ! -r "$f" ]; then
		echo "load.sh: cannot read $f" >&2
		rc=1
		continue
	fi
	head -n 1 "$f" | grep -q '^# boottrace-tsv 1$' || {
		echo "load.sh: $f: not a boottrace TSV (version 1)" >&2
		rc=1
		continue
	}
	t=$(trailer "$f")
	if [ -z "$t" ]; then
		echo "load.sh: $f: no trailer yet (being written, or cut short): skipped" >&2
		continue
	fi
	lost=${t% *} events=${t#* }
	host=$(meta "$f" host) run=$(meta "$f" run_id) part=$(meta "$f" part)
	started=$(meta "$f" started)
	# a file from before run ids: a run of its own, named by its start
	[ -n "$run" ] || run="started=$started"
	[ -n "$part" ] || part=1
	off=$(meta "$f" realtime_offset_ns)
	[ -n "$off" ] || off=0
	case $part$off in -*|*[!0-9-]*|*?-*) echo "load.sh: $f: bad part '$part' or offset '$off'" >&2; rc=1; continue ;; esac
	have=$(ch "$@" -q "SELECT count() FROM boottrace.files WHERE host = $(sq "$host") AND run_id = $(sq "$run") AND part = $part") || {
		echo "load.sh: $f: cannot ask ClickHouse (boottrace.files: schema.sql loaded?)" >&2
		rc=1
		continue
	}
	if [ "$have" != 0 ]; then
		echo "load.sh: $f: $host run $run part $part already loaded" >&2
	else
		# the rows, each behind its file's host, run, part, kernel and offset
		awk -F '\t' -v OFS='\t' -v host="$host" -v run="$run" -v part="$part" \
		    -v kernel="$(meta "$f" kernel)" -v off="$off" \
		    -v file="$f" '
			/^#/ { next }
			!hdr { hdr = 1; print "host", "run_id", "part", "kernel", "realtime_offset_ns", $0; next }
			$1 == "\\N" { dropped++; next }
			{ print host, run, part, kernel, off, $0 }
			END { if (dropped) printf "load.sh: %s: %d rows without ts_ns left out\n", file, dropped > "/dev/stderr" }
		' "$f" | ch "$@" -q "INSERT INTO boottrace.events (host, run_id, part, kernel,
			realtime_offset_ns, ts_ns, container, cgroup_id, pid, tid, ppid, comm, event,
			name, ret, dur_ns, detail) FORMAT TabSeparatedWithNames" || {
			echo "load.sh: $f: loading the rows failed" >&2
			rc=1
			continue
		}
		esc_path=$(printf '%s' "$f" | sed 's/\\/\\\\/g; s/	/\\t/g')
		day=$(printf '%s' "$started" | cut -c1-10)
		case $day in [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]) ;; *) day=0000-00-00 ;; esac
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$host" "$run" "$part" \
			"$(meta "$f" kernel)" "$started" "$(meta "$f" mode)" "$(meta "$f" bpf_object)" \
			"$off" "$events" "$lost" "$esc_path" "$day" |
			ch "$@" -q "INSERT INTO boottrace.files FORMAT TabSeparated" || {
			echo "load.sh: $f: its rows are in, but not its boottrace.files row: load it again after deleting run $run part $part's rows" >&2
			rc=1
			continue
		}
		echo "load.sh: $f: $host run $run part $part: $events rows, $lost lost" >&2
	fi
	[ -z "$remove" ] || rm -f "$f"
	IFS='
'
done
exit $rc
