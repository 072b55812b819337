# The Rails app of test_spans (Debian's ruby-railties, no bundler): an API
# app in production mode with two initializers of its own.
require 'rails'
require 'action_controller/railtie'

module SpansApp
  class Application < Rails::Application
    config.load_defaults 6.1
    config.eager_load = true
    config.api_only = true
    config.logger = Logger.new(nil)
    config.hosts.clear
  end
end
