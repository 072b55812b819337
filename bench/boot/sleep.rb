# SPDX-License-Identifier: BSD-2-Clause
# bench/boot.sh: an initializer that sleeps 150 ms, as a call to a config service would.
sleep 0.150
