# SPDX-License-Identifier: BSD-2-Clause
# bench/boot.sh: an initializer that burns 250 ms (wall clock, busy).
module BootBench
  def self.burn(s)
    t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    i = 0
    i += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < s
    i
  end
end
BootBench.burn(0.250)
