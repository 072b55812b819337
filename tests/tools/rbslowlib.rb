# SPDX-License-Identifier: BSD-2-Clause
# rbslowlib.rb: a file whose require blocks 150 ms in a method of its own
# (slow_require_sleep, asleep in Kernel#sleep), required by rbslow.rb:
# the known truth of test_collector_offcpu's Ruby part. It prints how
# long the sleep took, `slow_require_sleep ms=N`, as the thread measured it.
def slow_require_sleep
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  sleep 0.15
  $stdout.write(format("slow_require_sleep ms=%.1f\n", (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1000))
  $stdout.flush
end

slow_require_sleep
