# SPDX-License-Identifier: BSD-2-Clause
# bench/boot.sh: 40 requires of 5 ms each (lib/bootbench/rN.rb, each burns
# 5 ms as it loads; bench/boot.sh writes them).
$LOAD_PATH.unshift(File.expand_path('../../lib', __dir__))
40.times { |i| require "bootbench/r#{i}" }
