# Burns 300 ms of wall time, busy.
t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
x = 0
x += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 0.300
