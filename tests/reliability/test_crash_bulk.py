"""A bulk action of many rows, and an import, killed with SIGKILL part way: all or nothing,
the change set whole or absent, and `memory verify` clean after, on either engine."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from memories import engine
from memories.models import ChangeSet, Memory
from memories.writes import doors
from tests.reliability.conftest import integrity_problems
from tests.scale import LONG

SCRIPT = Path(__file__).with_name("crash_bulk.py")
ROWS = 200
ROUNDS = 150 if LONG else 30


@pytest.mark.django_db(transaction=True)
def test_killed_bulk_actions_and_imports_keep_all_or_nothing(capsys):
    with transaction.atomic():
        for i in range(ROWS):
            doors.write(f"bulk-{i}", description=f"bulk row {i}", body=f"row {i}", priority=100)
    connection.close()  # the script's processes own the store while they run
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(connection.settings_dict["NAME"]), str(ROUNDS), "11"],
        capture_output=True,
        text=True,
        timeout=ROUNDS * 20,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"rounds {ROUNDS}" in result.stdout
    outcomes = re.findall(r"^round \d+ (bulk|import) (.*)$", result.stdout, re.M)
    assert len(outcomes) == ROUNDS
    assert [line for line in outcomes if line[1] not in ("whole", "absent")] == []
    # Kills landed both before the commit and after it, for each kind of action.
    for kind in ("bulk", "import"):
        assert {seen for k, seen in outcomes if k == kind} == {"whole", "absent"}, outcomes

    with connection.cursor() as cursor:
        assert integrity_problems(cursor, connection.vendor) == []
    report = engine.of(connection).index.check()
    assert report.ok, report.problems
    call_command("memory", "verify")
    assert "The search index is sound" in capsys.readouterr().out
    imported = Memory.objects.filter(name__startswith="imp-").count()
    assert imported == ROWS * ChangeSet.objects.filter(summary__startswith="Import of").count()
