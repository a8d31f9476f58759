"""What the memories app sets up for the whole process when Django starts."""

import subprocess
import sys
from pathlib import Path

from django.core import checks

ROOT = Path(__file__).resolve().parent.parent

# Started as a command starts, not under the test runner (whose own imports come first).
PROBE = """
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()
from threadpoolctl import threadpool_info
print(sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}))
"""


def test_numpy_products_run_on_one_blas_thread_in_a_started_process(tmp_path):
    # Two threads leave one spinning after every product: a core's CPU per search.
    env = {"PATH": "/usr/bin:/bin", "MEMADMIN_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[1]"


URLCONF_PROBE = """
import django, os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django.setup()
from django.urls import resolve
print(resolve("/mcp").url_name, "mcp" in sys.modules)
"""


def test_the_urlconf_loads_without_the_mcp_sdk(tmp_path):
    # Every command's system checks load the URLconf; the SDK's import is most of a second.
    env = {"PATH": "/usr/bin:/bin", "MEMADMIN_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", URLCONF_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "mcp False"


def test_the_system_checks_find_nothing_to_say(db):
    # Every command runs them: a warning there is printed before anything a user asked for.
    assert checks.run_checks(databases=["default"]) == []
