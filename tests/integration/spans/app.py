# The Python app of test_spans: a stdlib import, then the slow module.
import json  # noqa: F401
import slowmod  # noqa: F401
print("ok")
