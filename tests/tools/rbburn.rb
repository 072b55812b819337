# SPDX-License-Identifier: BSD-2-Clause
# rbburn.rb: a Ruby app whose two methods burn 200 and 100 ms of CPU in
# Ruby code of their own (spin, below them), then listens on
# 127.0.0.1:0 and exits: test_collector_profile_ruby's known truth.
require 'socket'

def cpu_ms
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :millisecond)
end

def spin(ms)
  stop = cpu_ms + ms
  n = 0
  while true
    i = 0
    while i < 20000
      n += 1
      i += 1
    end
    return n if cpu_ms >= stop
  end
end

def burn_long
  spin(200)
end

def burn_short
  spin(100)
end

def main
  burn_long
  burn_short
  s = TCPServer.new('127.0.0.1', 0)
  s.close
end

main
