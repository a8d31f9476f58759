import io
import time

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_seed():
    t = time.perf_counter()
    call_command("seed_demo", stdout=io.StringIO())
    print("seed s", time.perf_counter() - t)
