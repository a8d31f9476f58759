"""detect-secrets 1.5.0 (Yelp) against our rule, on the same cases and the same 16 KiB body.

Run in a virtualenv of its own holding detect-secrets (the project does not depend on it):

    python3 -m venv /tmp/ds-venv && /tmp/ds-venv/bin/pip install detect-secrets==1.5.0
    /tmp/ds-venv/bin/python bench/results/2026-12-05-secrets/detect_secrets_compare.py

Scans each text line by line with every default plugin (detect_secrets.core.scan.scan_line,
filters included, as `detect-secrets scan --string` does), then with its high-confidence
plugins alone (no entropy, no keyword plugin), and times one scan of the 16 KiB body of
bench/secrets_bench.py, in CPU time.
"""

import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from detect_secrets.core.scan import scan_line  # noqa: E402
from detect_secrets.settings import default_settings, transient_settings  # noqa: E402
from secrets_bench import _body  # noqa: E402

from tests.secret_cases import LOOKALIKES, SHAPES  # noqa: E402

NOISY = {"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector"}


def flagged(text: str) -> set[str]:
    kinds = set()
    for line in text.split("\n"):
        kinds.update(secret.type for secret in scan_line(line))
    return kinds


def scan_cpu_ms(text: str, count: int = 5) -> float:
    started = time.process_time()
    for _ in range(count):
        flagged(text)
    return (time.process_time() - started) * 1000 / count


def run(label: str, plugins: list[dict] | None) -> dict:
    config = {"plugins_used": plugins} if plugins is not None else None
    with default_settings() if config is None else transient_settings(config):
        missed = [case.id for case in SHAPES if not flagged(case.text)]
        noisy = {key: sorted(flagged(text)) for key, text in LOOKALIKES.items()}
        noisy = {key: kinds for key, kinds in noisy.items() if kinds}
        body = _body(random.Random(1))
        return {
            "plugins": label,
            "shapes_missed": missed,
            "lookalikes_flagged": noisy,
            "scan_16kib_cpu_ms": round(scan_cpu_ms(body), 2),
        }


def main() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    names = sorted(cls.__name__ for cls in get_mapping_from_secret_type_to_class().values())
    confident = [{"name": name} for name in names if name not in NOISY]
    result = [run("every default plugin", None), run("without entropy and keyword", confident)]
    result.append({"load_average": [round(x, 2) for x in os.getloadavg()]})
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
