#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# pipe, pipe2, read, readv, write and writev rows name the pipe behind
# their fd in detail, `pipe:[INO]` as /proc/PID/fd shows it (`fifo:[INO]`
# for a named FIFO), so that the analyzer can match a read blocked on a
# pipe with the writes that woke it (docs/tsv-format.md, "Pipes"). The
# legacy and compat objects name none: \N.
# modes: cgroup compat pidtree legacy
. "$(dirname "$0")/lib.sh"
need_root

legacy=; perf_object && legacy=1	# the legacy and compat objects (no BTF)
# want VALUE: what a detail should be in this mode
want() { if [ -n "$legacy" ]; then echo '\N'; else echo "$1"; fi; }
# detail TSV PID NAME RET: the detail of PID's syscall row NAME that
# returned RET, from pipe_probe's first case on ($t0, the start of its
# pipe(2)): before it, in pidtree mode, the spawned child reads a byte
# from the collector's pipe, and under ASan the runtime reads
# /proc/self/maps in pieces of any size, 4 bytes among them
detail() {
	rows "$1" syscall "$3" |
		awk -F'\t' -v p="$2" -v r="$4" -v t0="$t0" \
			'$1 >= t0 && $4 == p && $7 == "pipe_probe" && $10 == r { print $12 }'
}

# tests/tools/pipe_probe: every case told apart by its byte count, and
# what the kernel calls each pipe on its stdout
mkdir "$TMP/dir"
"$COLLECTOR" -o "$TMP/probe.tsv" -- "$TOOLS/pipe_probe" "$TMP/dir" > "$TMP/probe.out" ||
	fail "collector -- pipe_probe exited $?"
check_tsv "$TMP/probe.tsv"
pipe=$(awk '$1 == "pipe" { print $2 }' "$TMP/probe.out")
pipe2=$(awk '$1 == "pipe2" { print $2 }' "$TMP/probe.out")
fifo=$(awk '$1 == "fifo" { print $2 }' "$TMP/probe.out")
[[ "$pipe" =~ ^pipe:\[[0-9]+\]$ && "$pipe2" =~ ^pipe:\[[0-9]+\]$ && "$fifo" =~ ^fifo:\[[0-9]+\]$ ]] ||
	fail "pipe_probe said: $(cat "$TMP/probe.out")"
[ "$pipe" != "$pipe2" ] || fail "two pipes, one name: $pipe"
p=$(rows "$TMP/probe.tsv" exec | awk -F'\t' '$12 ~ /pipe_probe$/ { print $4; exit }')
[ -n "$p" ] || fail "no exec row of pipe_probe"
# the child that writes 4 bytes: pipe_probe's only fork
c=$(rows "$TMP/probe.tsv" fork process | awk -F'\t' -v p="$p" '$6 == p { print $4 }')
[ -n "$c" ] || fail "no fork row of pipe_probe's child"
t0=$(rows "$TMP/probe.tsv" syscall pipe | awk -F'\t' -v p="$p" '$4 == p && $10 == 0 { print $1; exit }')
[ -n "$t0" ] || fail "no pipe row of pipe_probe"

check() { # check PID NAME RET WANT
	local got
	got=$(detail "$TMP/probe.tsv" "$1" "$2" "$3")
	[ "$got" = "$(want "$4")" ] || fail "$2 returning $3 (pid $1): detail '$got', not '$(want "$4")'"
}
check "$p" pipe 0 "$pipe"
check "$p" write 1 "$pipe"
check "$p" read 1 "$pipe"
check "$p" pipe2 0 "$pipe2"
check "$p" writev 2 "$pipe2"
check "$p" readv 2 "$pipe2"
check "$p" write 3 "$pipe2"
check "$p" read 3 "$pipe2"	# through a dup at fd 300
check "$c" write 4 "$pipe2"	# the child's
check "$p" read 4 "$pipe2"	# blocked until the child wrote
check "$p" write 5 "$fifo"
check "$p" read 5 "$fifo"
check "$p" pipe2 -22 '\N'	# no pipe made
check "$p" read 6 '\N'		# /dev/zero
check "$p" read -9 '\N'		# fd 999: EBADF
# the blocked read's row: written at its end, 200 ms after its start
dur=$(rows "$TMP/probe.tsv" syscall read | awk -F'\t' -v p="$p" -v t0="$t0" '$1 >= t0 && $4 == p && $10 == 4 { print $11 }')
[ "${dur:-0}" -ge 150000000 ] || fail "the blocking read took ${dur:-?} ns, not >= 150 ms"
# a pipe row is a plain, batched row: none is missing its detail
n=$(rows "$TMP/probe.tsv" syscall | awk -F'\t' '$7 == "pipe_probe" && $12 ~ /^(pipe|fifo):/' | wc -l)
[ -n "$legacy" ] || [ "$n" -eq 12 ] || fail "$n rows of pipe_probe name a pipe, not 12"
ok "pipe, pipe2, read, readv, write, writev: the pipe /proc names (a FIFO, fd 300, a blocked read)"

# the shell's x=$(cmd): its pipe2, the child's write and the shell's
# blocked read name one pipe
"$COLLECTOR" -o "$TMP/sh.tsv" -- /bin/sh -c 'x=$(sleep 0.2; echo hi); [ "$x" = hi ]' ||
	fail "collector -- sh exited $?"
check_tsv "$TMP/sh.tsv"
# (by its filename: the legacy object's rows of two CPUs may come out of order)
sh=$(rows "$TMP/sh.tsv" exec | awk -F'\t' '$12 == "/bin/sh" { print $4; exit }')
[ -n "$sh" ] || fail "no exec row of /bin/sh"
made=$(rows "$TMP/sh.tsv" syscall | awk -F'\t' -v p="$sh" '$4 == p && ($9 == "pipe" || $9 == "pipe2") && $10 == 0 { print $12 }')
[ -n "$made" ] && [ "$(echo "$made" | wc -l)" -eq 1 ] || fail "the shell made not one pipe: $made"
[ -n "$legacy" ] || [[ "$made" =~ ^pipe:\[[0-9]+\]$ ]] || fail "the shell's pipe: '$made'"
[ -z "$legacy" ] || [ "$made" = '\N' ] || fail "legacy: the shell's pipe row says '$made'"
# the blocked read: the shell's longest read, which returned "hi\n"
rd=$(rows "$TMP/sh.tsv" syscall read | awk -F'\t' -v p="$sh" '$4 == p && $10 == 3 && $11 >= 150000000 { print $12 }')
[ -n "$rd" ] || fail "no read of 3 bytes by the shell that waited 150 ms or more"
wr=$(rows "$TMP/sh.tsv" syscall write | awk -F'\t' -v p="$sh" '$4 != p && $10 == 3 { print $12 }')
[ -n "$wr" ] || fail "no write of 3 bytes by the shell's child"
[ "$rd" = "$made" ] && [ "$wr" = "$made" ] || fail "pipe2 '$made', the blocked read '$rd', the child's write '$wr'"
ok "sh: x=\$(sleep 0.2; echo hi): pipe2, the child's write and the blocked read name one pipe"
