# SPDX-License-Identifier: BSD-2-Clause
# The smallest Rails 6.1 app Debian's ruby-railties runs in production:
# Action Controller only, eager loading on, no log file, no database.
require 'action_controller/railtie'

module RailsApp
  class Application < Rails::Application
    config.load_defaults 6.1
    config.eager_load = true
    config.secret_key_base = 'boottrace-test-only' * 4
    config.logger = Logger.new(nil)
    # test_collector_profile_rails's off-CPU truth, with RAILSAPP_NAP set
    # (the benches and test_spans boot the app without it): a hook asleep
    # 150 ms, how long to stderr (`after_initialize ms=N`)
    config.after_initialize do
      next unless ENV['RAILSAPP_NAP']

      t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      sleep 0.15
      $stderr.write(format("after_initialize ms=%.1f\n", (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) * 1000))
    end
  end
end
