"""A writer killed with SIGKILL in the middle of write transactions, at least 200 times."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from memories import engine
from memories.models import Memory
from tests.reliability.conftest import integrity_problems
from tests.scale import LONG

WRITER = Path(__file__).with_name("crash_writer.py")
ROUNDS = 1000 if LONG else 200


@pytest.mark.django_db(transaction=True)
def test_sigkilled_writers_lose_no_acknowledged_write_and_leave_no_half_transaction():
    connection.close()  # the writer processes own the file while they run
    result = subprocess.run(
        [sys.executable, str(WRITER), connection.settings_dict["NAME"], str(ROUNDS), "7"],
        capture_output=True,
        text=True,
        timeout=ROUNDS * 1.5,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"rounds {ROUNDS}" in result.stdout
    acknowledged = {int(n) for n in re.findall(r"^ack (\d+)$", result.stdout, re.M)}
    assert acknowledged, "the writers committed nothing: the test would prove nothing"

    with connection.cursor() as cursor:
        assert integrity_problems(cursor, connection.vendor) == []
    report = engine.of(connection).index.check()
    assert report.ok, report.problems

    names = set(Memory.objects.values_list("name", flat=True))
    firsts = {int(n[2:]) for n in names if n.startswith("a-")}
    seconds = {int(n[2:]) for n in names if n.startswith("b-")}
    assert firsts == seconds, "a transaction is half there"
    assert acknowledged <= firsts, "an acknowledged write is missing"
    for memory in Memory.objects.filter(name__startswith="a-"):
        number = memory.name[2:]
        assert memory.body == f"alpha {number}" and memory.references == [f"b-{number}"]
