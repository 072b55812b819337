# SPDX-License-Identifier: BSD-2-Clause
# pyburn.py: a Python app whose two functions burn 200 and 100 ms of CPU
# in Python code of their own (spin, below them), then listens on
# 127.0.0.1:0 and exits: test_collector_profile_python's known truth.
# Each function prints the CPU time its thread spent in it, `burn_long
# cpu_ns=N`, measured by the thread itself: what the test compares its
# samples with.
import socket
import sys
import time


def spin(ms):
    end = time.process_time() + ms / 1000.0
    n = 0
    while True:
        for _ in range(20000):
            n += 1
        if time.process_time() >= end:
            return n


def report(name, ns):
    """a line with the thread CPU time @name took (after it: not on its stacks)"""
    sys.stdout.write("%s cpu_ns=%d\n" % (name, ns))
    sys.stdout.flush()


def burn_long():
    t0 = time.thread_time_ns()
    spin(200)
    report("burn_long", time.thread_time_ns() - t0)


def burn_short():
    t0 = time.thread_time_ns()
    spin(100)
    report("burn_short", time.thread_time_ns() - t0)


def main():
    # the collector registers an interpreter when it reads the process's
    # first sample (collector/profile/samples.c): before that, a few ms
    # to some tens under load, its samples have native frames only; the
    # burns start once it has (test_collector_profile_java and _node check
    # a process's first milliseconds)
    time.sleep(0.1)
    burn_long()
    burn_short()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    s.close()


main()
