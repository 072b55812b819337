# SPDX-License-Identifier: BSD-2-Clause
# rbburn.rb [threads|deep]: a Ruby app whose two methods burn 200 and 100 ms
# of CPU in Ruby code of their own (spin, below them), then listens on
# 127.0.0.1:0 and exits: test_collector_profile_ruby's known truth. With
# `threads`, each method runs in a thread of its own, both at once (they
# take turns holding the GVL). Each method prints the CPU time its thread
# spent in it, `burn_long cpu_ns=N`, measured by the thread itself: what
# the test compares its samples with. With `deep`, leaf_long and
# leaf_short take turns, 20 and 10 ms of CPU at a time, ten times each,
# each under the same DEEP + 1 frames of down: the same deep stack whose
# innermost frames change (`leaf_long cpu_ns=N`, their sums).
require 'socket'

def cpu_ms
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :millisecond)
end

def cpu_ns
  Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
end

# a line with the thread CPU time @name took (after it: not on its stacks)
def report(name, ns)
  $stdout.write("#{name} cpu_ns=#{ns}\n")
  $stdout.flush
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
  t0 = cpu_ns
  spin(200)
  report('burn_long', cpu_ns - t0)
end

def burn_short
  t0 = cpu_ns
  spin(100)
  report('burn_short', cpu_ns - t0)
end

DEEP = 60

def leaf_long(ms)
  spin(ms)
end

def leaf_short(ms)
  spin(ms)
end

def down(n, leaf, ms)
  return send(leaf, ms) if n.zero?

  down(n - 1, leaf, ms)
end

def burn_deep
  sum = { leaf_long: 0, leaf_short: 0 }
  10.times do
    [[:leaf_long, 20], [:leaf_short, 10]].each do |leaf, ms|
      t0 = cpu_ns
      down(DEEP, leaf, ms)
      sum[leaf] += cpu_ns - t0
    end
  end
  sum.each { |leaf, ns| report(leaf, ns) }
end

def main
  # the collector registers an interpreter when it reads the process's
  # first sample (collector/profile/samples.c): before that, a few ms to
  # some tens under load, its samples have native frames only; the burns
  # start once it has
  sleep 0.1
  if ARGV[0] == 'threads'
    [Thread.new { burn_long }, Thread.new { burn_short }].each(&:join)
  elsif ARGV[0] == 'deep'
    burn_deep
  else
    burn_long
    burn_short
  end
  s = TCPServer.new('127.0.0.1', 0)
  s.close
end

main
