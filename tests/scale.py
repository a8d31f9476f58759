"""How long the reliability runs are. `RELIABILITY_LONG=1` asks for the longer run: more
writers and more time in the concurrency test, 1,000 examples an operation in schemathesis."""

import os

LONG = os.environ.get("RELIABILITY_LONG", "") not in ("", "0")
