#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench/replay.sh's fixed workload, run as the traced container: one
# process at a time (no two tasks race, so each run makes the same
# syscalls), each kind of row the collector writes for a boot: execs,
# forks, files opened, a pipe, a listen on a port the kernel chooses,
# Ruby requires and Python imports (span rows; no .pyc written: a second
# run would read it), exits. $1: its directory
# (bench/replay.sh makes it: the Ruby files required, the Python modules).
d=$1
cd "$d" || exit 1
cat /etc/hostname > out.txt
ls -l rb > /dev/null
printf 'a\nb\nc\n' > lines.txt
sort -r lines.txt > sorted.txt
wc -l < sorted.txt > /dev/null
if [ -x /usr/bin/ruby3.1 ]; then
	/usr/bin/ruby3.1 --disable-gems -I"$d/rb" -e '20.times { |i| require "r#{i}" }; require "r0"
		require "socket"; s = TCPServer.new("127.0.0.1", 0); s.close'
fi
if [ -x /usr/bin/python3.11 ]; then
	/usr/bin/python3.11 -B -S -I -c "import sys; sys.path.insert(0, '$d/py')
for i in range(20): __import__('m%d' % i)"
fi
exit 0
