# Imported by app.py: burns 150 ms of wall time at import (busy, so the
# figure does not depend on a timer's slack).
import time

_end = time.monotonic() + 0.150
while time.monotonic() < _end:
    pass
