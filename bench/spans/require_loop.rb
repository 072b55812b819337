# bench/spans.sh's per-span cost: `require` of a feature already loaded
# fires require__entry and require__return (Ruby checks $LOADED_FEATURES
# after the entry probe) and does little else: N of them, ns each.
require 'set'
n = Integer(ARGV[0] || 20000)
t = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
n.times { require 'set' }
puts "per_require_ns=#{(Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - t) / n}"
