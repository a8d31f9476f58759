"""How long the reliability runs are. `RELIABILITY_LONG=1` asks for the longer run: 90 s
and twice the writers in the concurrency test, 1,000 SIGKILLed writers, 1,000 property
examples, 1,000 schemathesis examples an operation."""

import os

LONG = os.environ.get("RELIABILITY_LONG", "") not in ("", "0")
