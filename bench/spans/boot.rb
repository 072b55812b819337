# bench/spans.sh's Ruby boot: a stack of stdlib requires (~250 spans), then
# listen; prints the ns from $T0 (the launch, CLOCK_REALTIME) to the listen.
%w[json yaml set optparse fileutils open3 net/http uri erb logger csv
   bigdecimal securerandom digest tempfile time date ostruct pp benchmark
   socket forwardable delegate singleton observer shellwords English
   ripper prime matrix rdoc].each do |f|
  begin
    require f
  rescue LoadError
  end
end
s = TCPServer.new('127.0.0.1', 0)
t = Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)
puts "listen_ns=#{t - Integer(ENV['T0'])}"
s.close
