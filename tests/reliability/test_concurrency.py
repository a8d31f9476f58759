"""Many writers at once on the same memories: 4 gunicorn workers serving HTTP clients, and
writer processes beside them going through the doors, for a bounded time.

Half of the changes are read-modify-writes guarded by If-Match (a 412 sends the writer back
to read again); the other half append a line through the edit door with no precondition,
which is safe only because the door reads and rewrites the body inside one IMMEDIATE
transaction. Afterwards every memory holds exactly what was acknowledged: its counter equals
the acknowledged increments, its lines are the acknowledged appends, each once, and nothing
else changed. No answer is a 5xx and no "database is locked" reaches anyone.
"""

import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from tests.scale import LONG

from .conftest import manage, store_env, store_integrity_problems, store_rows

WRITER = Path(__file__).with_name("door_writer.py")
NAMES = ["shared-a", "shared-b", "shared-c", "shared-d"]
SECONDS = 90 if LONG else 6
CLIENTS = 12 if LONG else 6
WRITERS = 4 if LONG else 2
START_BODY = "count 0\nlines:\nEND"
ENOUGH = 50  # acknowledged changes below which the run would prove little
# On a loaded machine the seconds may acknowledge too few changes: the HTTP clients go on, for
# at most this long more, until they alone have acknowledged ENOUGH.
PROOF_GRACE_SECONDS = 30


class Ledger:
    """What the writers were told landed, and every status they were answered with."""

    def __init__(self):
        self.lock = threading.Lock()
        self.increments: Counter = Counter()
        self.lines: dict[str, list[str]] = {name: [] for name in NAMES}
        self.statuses: Counter = Counter()
        self.problems: list[str] = []

    def acknowledged(self) -> int:
        return sum(self.increments.values()) + sum(map(len, self.lines.values()))

    def answered(self, answer) -> None:
        with self.lock:
            self.statuses[answer.status] += 1
            if answer.status >= 500 or b"locked" in answer.body:
                self.problems.append(f"{answer.status} {answer.headers} {answer.body[:300]!r}")


def _path(name: str, suffix: str = "") -> str:
    return f"/v1/memories/{quote(name)}{suffix}?project="


def _increment(served, ledger: Ledger, name: str) -> None:
    """Read, add one, write back naming the ETag read; again from the read on a 412."""
    while True:
        got = served.request("GET", _path(name))
        ledger.answered(got)
        assert got.status == 200, got.body
        first, rest = got.json()["body"].split("\n", 1)
        count = int(first.removeprefix("count "))
        put = served.request(
            "PUT",
            _path(name),
            {"body": f"count {count + 1}\n{rest}"},
            headers={"If-Match": got.headers["ETag"]},
        )
        ledger.answered(put)
        if put.status == 412:
            continue
        assert put.status == 200, put.body
        with ledger.lock:
            ledger.increments[name] += 1
        return


def _append(served, ledger: Ledger, name: str, line: str) -> None:
    answer = served.request(
        "POST", _path(name, "/edit"), {"old_string": "\nEND", "new_string": f"\n{line}\nEND"}
    )
    ledger.answered(answer)
    assert answer.status == 200, answer.body
    with ledger.lock:
        ledger.lines[name].append(line)


def _client(served, ledger: Ledger, number: int, deadline: float) -> None:
    rng = random.Random(number)
    done = 0
    try:
        while time.monotonic() < deadline or (
            ledger.acknowledged() <= ENOUGH and time.monotonic() < deadline + PROOF_GRACE_SECONDS
        ):
            name = rng.choice(NAMES)
            if rng.random() < 0.5:
                _increment(served, ledger, name)
            else:
                _append(served, ledger, name, f"http{number}-{done}")
            done += 1
    except Exception as problem:  # noqa: BLE001  (the test reports it below)
        with ledger.lock:
            ledger.problems.append(f"client {number}: {problem!r}")


def test_concurrent_writers_lose_nothing_acknowledged_and_no_one_sees_a_5xx(served):
    for name in NAMES:
        created = served.request(
            "PUT", _path(name), {"description": f"shared {name}", "body": START_BODY}
        )
        assert created.status == 201, created.body
    before = store_rows(served.data_dir)

    ledger = Ledger()
    deadline = time.monotonic() + SECONDS
    writers = [
        subprocess.Popen(
            [sys.executable, str(WRITER), str(served.data_dir), f"cmd{n}", str(SECONDS), str(n)]
            + NAMES,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=store_env(served.data_dir),
        )
        for n in range(WRITERS)
    ]
    clients = [
        threading.Thread(target=_client, args=(served, ledger, n, deadline)) for n in range(CLIENTS)
    ]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    for writer in writers:
        out, err = writer.communicate(timeout=SECONDS + 120)
        assert writer.returncode == 0, err[-3000:]
        assert out.endswith("done\n"), err[-3000:]
        for kind, name, *line in (entry.split() for entry in out.splitlines()[:-1]):
            if kind == "inc":
                ledger.increments[name] += 1
            else:
                ledger.lines[name].append(line[0])
    log = served.stop()

    assert not ledger.problems, ledger.problems[:5]
    assert set(ledger.statuses) <= {200, 412}, ledger.statuses
    assert "Traceback" not in log and "locked" not in log, log[-3000:]
    acknowledged = ledger.acknowledged()
    # Shown with `pytest -rP`: what the run amounted to.
    print(
        f"{SECONDS} s, {CLIENTS} HTTP clients, {WRITERS} door writers: {acknowledged} changes "
        f"acknowledged ({sum(ledger.increments.values())} If-Match increments, "
        f"{sum(map(len, ledger.lines.values()))} appends); HTTP answers {dict(ledger.statuses)}"
    )
    assert acknowledged > ENOUGH, f"only {acknowledged} changes: the test would prove little"

    after = store_rows(served.data_dir)
    assert set(after) == set(before)
    for name in NAMES:
        first, *lines = after[name]["body"].split("\n")
        assert first == f"count {ledger.increments[name]}", name
        assert lines[0] == "lines:" and lines[-1] == "END", name
        assert Counter(lines[1:-1]) == Counter(ledger.lines[name]), name
        assert all(n == 1 for n in Counter(lines[1:-1]).values()), f"a line twice in {name}"
        for column, value in before[name].items():
            # PostgreSQL's search column is the body's, in words.
            if column not in ("body", "updated_at", "search"):
                assert after[name][column] == value, (name, column)

    assert store_integrity_problems(served.data_dir) == []
    assert "The search index is sound" in manage(served.data_dir, "memory", "verify")
