#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The --mark / --start mistakes a user makes, each a clear message and its
# exit status: 2 for what the command line names wrongly (a bad spec, no
# such binary, a symbol a stripped binary lacks, a USDT probe that is not
# there, --until mark: of no label), 1 for what the machine lacks (uprobes).
. "$(dirname "$0")/lib.sh"
need_root

B=$(realpath "$OUTPUT/samples/bootsvc")

# expect STATUS PATTERN ARGS...: the collector exits STATUS, says PATTERN
# (a fixed string) on stderr and writes no TSV
expect() {
	local want=$1 pat=$2 rc
	shift 2
	rm -f "$TMP/out.tsv"
	"$COLLECTOR" -o "$TMP/out.tsv" "$@" 2> "$TMP/err" < /dev/null; rc=$?
	[ "$rc" -eq "$want" ] || fail "exit $rc, not $want, for $*: $(cat "$TMP/err")"
	grep -qF -- "$pat" "$TMP/err" || fail "no '$pat' for $*: $(cat "$TMP/err")"
	[ -e "$TMP/out.tsv" ] && fail "a TSV written for $*"
	return 0
}

# --help documents them (the help must not drift from the behaviour)
"$COLLECTOR" --help > "$TMP/help" || fail "--help exit $?"
for o in --mark --start 'mark:<label>' 'uprobe:<binary>:<symbol>' 'uretprobe:<binary>:<symbol>' \
	'usdt:<binary>:<provider>:<name>'; do
	grep -qF -- "$o" "$TMP/help" || fail "--help does not document $o"
done
ok "--help documents --mark, --start, --until mark:"

# bad specs: usage errors
expect 2 "--mark 'kprobe:/bin/true:main': unknown probe kind 'kprobe'" --mark kprobe:/bin/true:main -- true
expect 2 "--mark 'uprobe:/bin/true': expected uprobe:BINARY:SYMBOL" --mark uprobe:/bin/true -- true
expect 2 "--mark 'usdt:$B:config_loaded': expected usdt:BINARY:PROVIDER:NAME" --mark "usdt:$B:config_loaded" -- true
expect 2 "the label 'a b' must be letters" --mark "uprobe:$B:bootsvc_tick=a b" -- true
expect 2 "Try 'collector --help'" --mark nonsense -- true
expect 2 "--until mark:nope: no --mark has the label 'nope'" --mark "uprobe:$B:bootsvc_tick" --until mark:nope -- true
expect 2 "--until takes exec, listen, end (or exit) or mark:LABEL" --until mark: -- true
expect 2 "--start may be given once" --start "uprobe:$B:bootsvc_launch" --start "uprobe:$B:bootsvc_tick" -- true
ok "bad specs: exit 2 with the expected form"

# no such binary
expect 2 "--mark uprobe:boottrace-no-such-program:f: no binary 'boottrace-no-such-program': not a program on PATH, nor a library in /etc/ld.so.cache" \
	--mark uprobe:boottrace-no-such-program:f -- true
expect 2 "--mark uprobe:/nonexistent/server:f: no binary '/nonexistent/server': no such readable file" \
	--mark uprobe:/nonexistent/server:f -- true
expect 2 "--start usdt:/nonexistent/rt:p:n: no binary" --start usdt:/nonexistent/rt:p:n -- true
# a name on PATH is found (and then its symbol checked)
expect 2 "--mark uprobe:true:boottrace_nope: no function 'boottrace_nope' in /" --mark uprobe:true:boottrace_nope -- true
ok "binary not found: exit 2"

# a symbol the binary does not have, with and without a symbol table
expect 2 "no function 'bootsvc_nope' in $B (its symbol table does not have it)" --mark "uprobe:$B:bootsvc_nope" -- true
objcopy --strip-all "$B" "$TMP/bootsvc-stripped" || fail "objcopy failed"
expect 2 "no function 'bootsvc_ready' in $TMP/bootsvc-stripped: the binary is stripped (no .symtab" \
	--mark "uprobe:$TMP/bootsvc-stripped:bootsvc_ready" -- true
grep -qF "use a build with symbols, or a USDT probe (--mark usdt:BINARY:PROVIDER:NAME)" "$TMP/err" ||
	fail "the stripped message does not say the fix: $(cat "$TMP/err")"
# ... while its USDT probes survive stripping (notes are not symbols)
"$COLLECTOR" --mark "usdt:$TMP/bootsvc-stripped:bootsvc:config_loaded=config" -o "$TMP/s.tsv" -- \
	"$TMP/bootsvc-stripped" --ticks-only 2> "$TMP/err" || fail "USDT on the stripped copy: $(cat "$TMP/err")"
[ "$(rows "$TMP/s.tsv" mark config | wc -l)" -eq 1 ] || fail "no USDT mark from the stripped binary"
# Debian's nginx is stripped: its static functions are not visible
if [ -x /usr/sbin/nginx ]; then
	expect 2 "no function 'ngx_worker_process_cycle' in /usr/sbin/nginx: the binary is stripped" \
		--mark uprobe:nginx:ngx_worker_process_cycle -- true
elif [ "${CI:-}" = true ]; then
	fail "no /usr/sbin/nginx (scripts/install-deps.sh installs it)"
fi
ok "missing symbol: exit 2; stripped binaries say so and name the fix"

# a USDT probe that does not exist: the ones that do are listed
expect 2 "--mark usdt:$B:bootsvc:nope: no USDT probe bootsvc:nope in $B; it has: bootsvc:launch, bootsvc:config_loaded" \
	--mark "usdt:$B:bootsvc:nope" -- true
expect 2 "has no USDT probes (no .note.stapsdt notes)" --mark usdt:true:p:n -- true
expect 2 "cannot read /etc/hostname as an ELF file" --mark uprobe:/etc/hostname:f -- true
ok "missing USDT probe: exit 2, the existing ones listed"

# a kernel without uprobes: hide the PMU in a private mount namespace
unshare --mount --propagation private /bin/sh -c \
	"mount -t tmpfs none /sys/bus/event_source/devices && exec '$(realpath "$COLLECTOR")' -o '$TMP/out.tsv' --mark 'uprobe:$B:bootsvc_tick' -- true" \
	2> "$TMP/err" < /dev/null
rc=$?
[ $rc -eq 1 ] || fail "no uprobes: exit $rc, not 1: $(cat "$TMP/err")"
grep -qF "collector: this kernel has no uprobes (/sys/bus/event_source/devices/uprobe is missing: CONFIG_UPROBE_EVENTS): --mark and --start need them" \
	"$TMP/err" || fail "no message for missing uprobes: $(cat "$TMP/err")"
ok "no uprobes in the kernel: exit 1, said so"
