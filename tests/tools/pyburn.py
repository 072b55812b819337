# SPDX-License-Identifier: BSD-2-Clause
# pyburn.py: a Python app whose two functions burn 200 and 100 ms of CPU
# in Python code of their own (spin, below them), then listens on
# 127.0.0.1:0 and exits: test_collector_profile_python's known truth.
import socket
import time


def spin(ms):
    end = time.process_time() + ms / 1000.0
    n = 0
    while True:
        for _ in range(20000):
            n += 1
        if time.process_time() >= end:
            return n


def burn_long():
    return spin(200)


def burn_short():
    return spin(100)


def main():
    burn_long()
    burn_short()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    s.close()


main()
