#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/spans.sh's Rails boot: bench/spans/rails-listen.sh APPDIR prints T0
# (the launch, ns since the epoch), then runs puma on the app in APPDIR
# (bench/spans.sh makes it: tests/tools/railsapp with test_spans'
# initializers) in the foreground; the bench reads puma's "Listening on"
# line for the listen.
cd "$1" || exit 1
echo "PID=$$"	# puma's, after the exec
echo "T0=$(date +%s%N)"
exec puma -b tcp://127.0.0.1:0 -e production config.ru
