# SPDX-License-Identifier: BSD-2-Clause
# bench/pysleep.py N [alt]: N short sleeps (time.sleep(0.0001)) of a
# Python 3.11 loop, for bench/offcpu.sh: what off-CPU stacks cost an
# interpreter's thread, whose every block now walks its interpreter
# frames. One function sleeping each time (the same place: a 48-byte
# record after the first), or with alt two taking turns (a new place
# every block: the walk, the copy and a record each). Prints
# `NS ns/round-trip`, the loop's wall time per sleep.
import sys
import time


def nap_a():
    time.sleep(0.0001)


def nap_b():
    time.sleep(0.0001)


def main():
    n = int(sys.argv[1])
    alt = sys.argv[2:] == ["alt"]
    t0 = time.monotonic_ns()
    for i in range(n):
        if alt and i & 1:
            nap_b()
        else:
            nap_a()
    sys.stderr.write("%.1f ns/round-trip\n" % ((time.monotonic_ns() - t0) / n))


main()
