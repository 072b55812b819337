# 40 requires of 5 ms each from one file (test_spans): each goes through
# rubygems' Kernel#require, so its caller= is kernel_require.rb, not this
# file; --by span names this file as the one that asked, and by total
# time puts it first (~200 ms). The features are made by the test, in
# ARGV[0]/req: r00.rb ... r39.rb, each burning 5 ms of wall time.
$LOAD_PATH.unshift(File.join(ARGV[0], 'req'))
40.times { |i| require format('r%02d', i) }
