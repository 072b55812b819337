# SPDX-License-Identifier: BSD-2-Clause
require_relative 'application'
Rails.application.initialize!
