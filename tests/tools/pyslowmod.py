# SPDX-License-Identifier: BSD-2-Clause
# pyslowmod.py: a module whose import blocks 150 ms in a function of its
# own (slow_import_sleep, asleep in time.sleep), imported by pyslow.py:
# the known truth of test_collector_offcpu's Python part. It prints how
# long the sleep took, `slow_import_sleep ms=N`, as the thread measured it.
import sys
import time


def slow_import_sleep():
    t0 = time.monotonic_ns()
    time.sleep(0.15)
    sys.stdout.write("slow_import_sleep ms=%.1f\n" % ((time.monotonic_ns() - t0) / 1e6))
    sys.stdout.flush()


slow_import_sleep()
