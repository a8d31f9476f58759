"""The WSGI application gunicorn serves."""

import subprocess
import sys
from pathlib import Path

from tests.reliability.conftest import store_env

ROOT = Path(__file__).resolve().parent.parent


def test_what_setting_django_up_made_is_kept_out_of_the_collectors_sweeps(tmp_path):
    """The application's import freezes the objects made so far (gc.freeze): they live as long
    as the process, and a full collection would otherwise walk them all."""
    probe = "import gc, memadmin.wsgi; print(gc.get_freeze_count())"
    env = store_env(tmp_path / "store")
    env.pop("DJANGO_SETTINGS_MODULE", None)  # memadmin.wsgi names its own
    found = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    assert int(found.stdout) > 10_000  # Django and the app's modules, models and settings
