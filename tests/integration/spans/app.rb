# The Ruby app of test_spans: a require that raises (no return probe), a
# load that burns 300 ms, one that sleeps 200 ms (a config service call),
# a file with a hostile name, then it listens.
begin
  require 'no_such_feature_here'
rescue LoadError
end
dir = ARGV[0]
load File.join(dir, 'slow.rb')
load File.join(dir, 'sleepy.rb')
load File.join(dir, "we\tird\nname\\N.rb")
require 'socket'
TCPServer.new('127.0.0.1', 0)
