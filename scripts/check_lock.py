"""Whether a lock pins, with hashes, what its requirement files ask for.

    python3 scripts/check_lock.py requirements.lock requirements.txt

Prints each problem and exits non-zero when there is one (scripts/setup.sh runs it before
installing; scripts/lock.sh writes the locks). The standard library only: it runs before the
virtualenv exists.
"""

import re
import sys
from pathlib import Path

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^]]*\])?\s*(?:==\s*([^\s;#\\]+))?")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(lock_text: str) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of every pin in a lock."""
    pins: dict[str, tuple[str, int]] = {}
    current = None
    for line in lock_text.splitlines():
        match = PIN.match(line)
        if match and match.group(2):
            current = canonical(match.group(1))
            pins[current] = (match.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = pins[current]
            pins[current] = (version, hashes + 1)
        elif not line.startswith(" "):
            current = None
    return pins


def problems(lock: str, inputs: list[str]) -> list[str]:
    pins = locked(Path(lock).read_text())
    found = [
        f"{lock} pins {name}=={version} without a hash."
        for name, (version, hashes) in pins.items()
        if not hashes
    ]
    for path in inputs:
        for line in Path(path).read_text().splitlines():
            match = PIN.match(line.strip())
            if not match:
                continue
            name, version = canonical(match.group(1)), match.group(2)
            if name not in pins or (version and pins[name][0] != version):
                found.append(f"{path} asks for {line.strip()}, which {lock} does not pin.")
    return found


if __name__ == "__main__":
    found = problems(sys.argv[1], sys.argv[2:])
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        sys.exit(f"{sys.argv[1]} is out of date: run scripts/lock.sh.")
