import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from memories import engine
from memories.models import Memory
from memories.reads import backlinks, budget
from memories.rules.budget import band_total, budget_bytes
from memories.rules.errors import InlineBudgetExceeded
from memories.writes import doors
from projects.models import Project


def test_seed_demo_loads_a_realistic_store_once_and_the_same_store_each_time(db, capsys):
    call_command("seed_demo")
    assert "Loaded the demo store" in capsys.readouterr().out
    assert Memory.objects.count() > 250
    assert Project.objects.count() >= 4
    assert Memory.objects.filter(expires_at__lte=timezone.now()).exists()
    assert Memory.objects.filter(description__contains="東京").exists()
    dangling = {ref.target for ref in backlinks.dangling_references()}
    assert {"write-me-later", "JIRA-4312"} & dangling
    assert Memory.objects.filter(verified_at__lt=timezone.now() - dt.timedelta(days=90)).exists()
    assert engine.of(connection).index.check().ok
    totals = budget.inline_totals(timezone.now())
    legacy = Project.objects.get(name="legacy")
    assert band_total(totals, legacy.id) > budget_bytes(), "one band over budget"
    call_command("seed_demo", "--if-empty")
    assert "already holds memories" in capsys.readouterr().out
    with pytest.raises(CommandError):
        call_command("seed_demo")

    first = sorted(Memory.objects.values_list("name", "project__name", "body"))
    Memory.objects.all().delete()
    with pytest.raises(CommandError, match="a project of the demo's name"):
        call_command("seed_demo")  # the projects alone: a sentence, not a traceback
    Project.objects.all().delete()
    call_command("seed_demo")
    assert sorted(Memory.objects.values_list("name", "project__name", "body")) == first


def test_first_login_prints_the_password_once_and_forgets_it_once_changed(
    db, settings, tmp_path, capsys
):
    settings.DATA_DIR = tmp_path
    login_file = tmp_path / "first-login.txt"
    call_command("first_login")
    first = capsys.readouterr().out
    assert first.startswith("Sign in as admin with password ")
    password = first.split()[-1]
    assert login_file.stat().st_mode & 0o777 == 0o600
    assert login_file.read_text().split("\n")[:2] == ["admin", password]

    call_command("first_login")
    later = capsys.readouterr().out
    assert password not in later
    assert str(login_file) in later

    admin = User.objects.get(username="admin")
    admin.last_name = "Kept"
    admin.save()
    assert login_file.exists()  # a save that leaves the password as it was
    admin.set_password("another long password")
    admin.save()
    assert not login_file.exists()  # forgotten as soon as the password is changed
    call_command("first_login")
    assert password not in capsys.readouterr().out


def test_the_demo_keeps_one_band_over_and_the_rest_writable(db):
    """legacy is over the budget, to show it; every other band has room to spare, so only
    inline writes to legacy and to the global tier (in every band, legacy's too) are refused."""
    call_command("seed_demo")
    over = [band.project for band in budget.bands(timezone.now()) if band.over]
    assert over == ["legacy"]
    for project in ("webdev", "infra", "movie", "research"):
        doors.write(
            f"new-{project}", project=project, description="d", body="x" * 2048, load="inline"
        )
    doors.write("new-global-index", description="an index memory spends nothing inline", body="x")
    for project in ("legacy", None):
        with pytest.raises(InlineBudgetExceeded):
            doors.write("refused", project=project, description="d", body="x", load="inline")
