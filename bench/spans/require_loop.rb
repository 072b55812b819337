# bench/spans.sh's per-span cost: `require` of a feature already loaded
# fires require__entry and require__return (Ruby checks $LOADED_FEATURES
# after the entry probe) and does little else: N of them, ns each, by the
# clock and by the process's CPU time (the probes' traps and programs run
# in the task: its CPU time has them, and the rest of a busy machine
# disturbs it less).
require 'set'
n = Integer(ARGV[0] || 20000)
t = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
c = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
n.times { require 'set' }
puts "per_require_ns=#{(Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - t) / n}"
puts "per_require_cpu_ns=#{(Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond) - c) / n}"
