"""Every package is pinned with its hashes (requirements.lock, requirements-dev.lock), the
locks hold everything the pinned packages need, and setup.sh installs from them alone."""

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import check_lock  # noqa: E402

LOCKS = {
    "requirements.lock": ["requirements.txt"],
    "requirements-dev.lock": ["requirements.txt", "requirements-dev.txt"],
}


@pytest.mark.parametrize(("lock", "inputs"), LOCKS.items())
def test_the_lock_pins_what_the_requirements_ask_for_with_hashes(lock, inputs):
    assert check_lock.problems(str(ROOT / lock), [str(ROOT / path) for path in inputs]) == []


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_holds_every_dependency_of_what_it_pins(lock):
    pins = check_lock.locked((ROOT / lock).read_text())
    missing = []
    for name in pins:
        for text in importlib.metadata.requires(name) or []:
            needed = Requirement(text)
            if needed.marker and not needed.marker.evaluate({"extra": ""}):
                continue
            if check_lock.canonical(needed.name) not in pins:
                missing.append(f"{name} needs {needed.name}")
    assert missing == []


@pytest.mark.parametrize("lock", LOCKS)
def test_the_locked_versions_are_those_installed(lock):
    pins = check_lock.locked((ROOT / lock).read_text())
    installed = {
        name: importlib.metadata.version(name) for name in pins if name not in {"pip", "setuptools"}
    }
    assert installed == {name: pins[name][0] for name in installed}


def test_a_lock_older_than_its_requirements_is_refused(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text((ROOT / "requirements.txt").read_text() + "nh3==9.9\nnewthing==1\n")
    result = subprocess.run(
        [sys.executable, "scripts/check_lock.py", "requirements.lock", str(requirements)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "asks for nh3==9.9" in result.stderr and "asks for newthing==1" in result.stderr
    assert "run scripts/lock.sh" in result.stderr


def test_a_pin_without_a_hash_is_refused(tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        re.sub(r"\\\n\s+--hash=sha256:\w+", "", (ROOT / "requirements.lock").read_text())
    )
    found = check_lock.problems(str(lock), [])
    assert found and all("without a hash" in problem for problem in found)


def test_setup_installs_from_the_locks_requiring_hashes():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert 'pip install --quiet --require-hashes -r "$lock"' in setup
    assert "-r requirements" not in setup.replace('-r "$lock"', "")
