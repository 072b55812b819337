#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tests/stages.sh: what `make test` runs after building, every stage even
# when one fails, then one closing line "N passed, N failed, N skipped"
# adding up the stages' own closing lines:
#   1. tests/run.sh: unit suites, integration tests (valgrind on analyze
#      and the soak among them), fuzz regression inputs;
#   2. tests/vm/vmtest.sh (make vmtest): the kernel matrix, the integration
#      tests that matter on Debian's 6.1 and 6.12 kernels under QEMU and on
#      the host's, one result per kernel x test x mode;
#   3. make test-asan: stage 1 built with ASan + UBSan, again (but valgrind
#      and the soak; and not the matrix: the sanitizers check user-space
#      code, which is the same on every kernel and is checked on the host's
#      here, while the kernel side, which differs, gets nothing from them;
#      and ASan's binaries under TCG would cost minutes more);
#   4. make fuzz: each fuzz target for FUZZ_SECONDS.
# A stage that fails without a closing line of its own (a build error)
# counts as one failure. Exit 0 only when nothing failed.
set -u
cd "$(dirname "$0")/.." || exit 1
OUTPUT=${OUTPUT:-build}
MAKE=${MAKE:-make}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
export OUTPUT
tp=0 tf=0 ts=0
summary=()
log=$(mktemp /tmp/boottrace-stage.XXXXXX)
trap 'rm -f "$log"' EXIT

stage() { # stage NAME COMMAND...
	local name=$1 rc start p f s line
	shift
	echo "######## stage: $name"
	start=$(date +%s)
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1)
	if [ -n "$line" ]; then
		read -r p _ f _ s _ <<< "${line//,/}"
	else
		p=0 f=0 s=0
	fi
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	summary+=("$(printf '%-28s %4d passed, %d failed, %d skipped, exit %d, %ds' "$name" "$p" "$f" "$s" "$rc" $(($(date +%s) - start)))")
}

# test_dist_systemd's Debian rootfs, built meanwhile (once: 80 s of
# downloads and dpkg on a fresh machine; the test waits for it)
tests/integration/nspawn_rootfs.sh > /dev/null 2>&1 &
# and the kernels of the matrix (stage 2 fetches what is not there yet)
mkdir -p "$OUTPUT/vm" && flock "$OUTPUT/vm/kernels.lock" tests/vm/kernels.sh "$OUTPUT/vm/kernels" stock backports > /dev/null 2>&1 &
stage "unit+integration+regress" tests/run.sh
stage "vmtest (kernel matrix)" tests/vm/vmtest.sh
# shellcheck disable=SC2086 # $MAKE may hold arguments
stage "asan+ubsan" $MAKE --no-print-directory test-asan
# shellcheck disable=SC2086
stage "fuzz (${FUZZ_SECONDS}s each)" $MAKE --no-print-directory fuzz FUZZ_SECONDS="$FUZZ_SECONDS"

echo "######## make test"
printf '%s\n' "${summary[@]}"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
