#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/spans.sh's Rails boot: prints T0 (the launch, ns since the epoch),
# then runs puma on the test's app (tests/integration/spans/rails) in the
# foreground; the bench reads puma's "Listening on" line for the listen.
cd "$(dirname "$0")/../../tests/integration/spans/rails" || exit 1
echo "PID=$$"	# puma's, after the exec
echo "T0=$(date +%s%N)"
SECRET_KEY_BASE=$(printf 'k%.0s' $(seq 64)) exec puma -b tcp://127.0.0.1:0 -e production config.ru
