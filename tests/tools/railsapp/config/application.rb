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
  end
end
