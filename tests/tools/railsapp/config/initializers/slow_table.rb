# SPDX-License-Identifier: BSD-2-Clause
# An initializer that builds a table for 300 ms of this thread's CPU, in
# a method of its own: test_collector_profile_rails's known truth. The
# CPU time it took, as the thread measured it, goes to stderr after it
# (`build_table cpu_ns=N`).
module SlowTable
  def self.build_table
    stop = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :millisecond) + 300
    table = {}
    i = 0
    while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :millisecond) < stop
      table[i % 1000] = i * i
      i += 1
    end
    table
  end
end

t0 = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
SlowTable.build_table
$stderr.write("build_table cpu_ns=#{Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond) - t0}\n")
