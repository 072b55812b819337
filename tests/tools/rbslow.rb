# SPDX-License-Identifier: BSD-2-Clause
# rbslow.rb: a Ruby app that requires rbslowlib.rb (beside it), whose
# require sleeps 150 ms in slow_require_sleep, then listens on
# 127.0.0.1:0 and exits: test_collector_offcpu's Ruby truth.
require 'socket'

# the collector registers the interpreter at its first stack (off-CPU or
# sample) and reads its frames from then on: this first sleep is it
sleep 0.1
require_relative 'rbslowlib'
s = TCPServer.new('127.0.0.1', 0)
s.close
