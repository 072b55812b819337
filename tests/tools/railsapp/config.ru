# SPDX-License-Identifier: BSD-2-Clause
# tests/tools/railsapp: puma -e production config.ru
require_relative 'config/environment'
run Rails.application
