# Sleeps 200 ms, as a call to a config service would.
sleep 0.200
