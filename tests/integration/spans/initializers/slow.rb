# Burns 300 ms (wall clock, busy: the same under load) building a table, in a method of its own.
module SlowTable
  def self.build
    t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    table = {}
    i = 0
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) - t < 0.300
      table[i % 4096] = i * i
      i += 1
    end
    table
  end
end
SLOW_TABLE = SlowTable.build
