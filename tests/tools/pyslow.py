# SPDX-License-Identifier: BSD-2-Clause
# pyslow.py [import|gil]: a Python app that blocks in functions of its
# own, for test_collector_offcpu (off-CPU stacks with interpreter frames).
#  import: imports pyslowmod (beside it), whose import sleeps 150 ms in
#          slow_import_sleep;
#  gil:    a thread sleeps 150 ms in nap_in_thread while the main thread
#          burns CPU in Python code (burn_holding_gil) holding the GIL:
#          the sleeper is not the GIL holder, its stacks must name its
#          own function, never the burner's. Prints `nap_in_thread
#          tid=N ms=M`.
# Either way it then listens on 127.0.0.1:0 and exits.
import socket
import sys
import threading
import time


def nap_in_thread(out):
    t0 = time.monotonic_ns()
    time.sleep(0.15)
    out.append((threading.get_native_id(), (time.monotonic_ns() - t0) / 1e6))


def burn_holding_gil(stop):
    n = 0
    while not stop:
        for _ in range(1000):
            n += 1
    return n


def main():
    # the collector registers the interpreter at its first stack (off-CPU
    # or sample) and reads its frames from then on: this first sleep is it
    time.sleep(0.1)
    if sys.argv[1:] == ["gil"]:
        out, stop = [], []
        th = threading.Thread(target=nap_in_thread, args=(out,))
        th.start()
        t = threading.Timer(0.25, lambda: stop.append(1))
        t.start()
        burn_holding_gil(stop)
        th.join()
        t.join()
        sys.stdout.write("nap_in_thread tid=%d ms=%.1f\n" % out[0])
        sys.stdout.flush()
    else:
        import pyslowmod  # noqa: F401 (its import is the truth)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    s.close()


main()
