#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# bench/boot.sh's boot: bench/boot/listen.sh APPDIR prints PID= (puma's,
# after the exec) and T0= (the launch, seconds since the epoch, to the
# microsecond: bash's clock, no fork), then runs puma on the app in
# APPDIR in the foreground; the bench takes the listen from puma's
# "Listening on" line.
cd "$1" || exit 1
echo "PID=$$"
echo "T0=$EPOCHREALTIME"
exec puma -b tcp://127.0.0.1:0 -e production config.ru
