# Imported by app.py: burns 150 ms of wall time at import (busy, so the
# figure does not depend on a timer's slack), and says on stderr how much
# of it its thread was on a CPU (fewer ms on a busy machine): what a
# profile at 999 Hz has of it
import sys
import time

_cpu = time.thread_time_ns()
_end = time.monotonic() + 0.150
while time.monotonic() < _end:
    pass
sys.stderr.write("slowmod_cpu_ns=%d\n" % (time.thread_time_ns() - _cpu))
