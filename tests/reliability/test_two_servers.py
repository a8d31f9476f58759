"""Past one machine: two app servers (gunicorn, 2 workers each, data dirs of their own, one
MEMADMIN_SECRET_KEY) over one PostgreSQL database.

A write through one is read through the other at once; If-Match read-modify-writes and edit
door appends sent to both at once lose nothing acknowledged; a session signed in on one and
an API token made on one work on the other.
"""

import random
import re
import threading
import time
from collections import Counter

import pytest
import requests

from tests.scale import LONG

from .conftest import Served, manage

pytestmark = pytest.mark.engine("postgresql")

SECONDS = 60 if LONG else 5
CLIENTS = 8 if LONG else 4  # each sends every other request to the other server
# On a loaded machine the first seconds may acknowledge no increment (every PUT beaten to the
# version): the writers go on, for at most this long more, until the run has something to prove.
PROOF_GRACE_SECONDS = 30
START_BODY = "count 0\nlines:\nEND"
PATH = "/v1/memories/shared?project="


@pytest.fixture(scope="session")
def servers(tmp_path_factory):
    """One pair a worker (their start is most of this module's time, and worksteal may hand a
    worker the module's tests in more than one run): each test writes memories, and makes
    accounts, of names of its own. One secret key, so a session signed by one is good on the
    other."""
    env = {"MEMADMIN_SECRET_KEY": "one key for every app server " * 3}
    stores = tmp_path_factory.mktemp("two-servers")
    first = Served(stores / "first", workers=2, pages=True, env=env)
    second = Served(stores / "second", workers=2, shares=first, pages=True, env=env)
    yield first, second
    logs = [first.stop(), second.stop()]
    assert not [log for log in logs if "Traceback" in log], logs


def test_a_write_through_one_server_is_read_through_the_other_at_once(servers):
    first, second = servers
    put = first.request("PUT", "/v1/memories/release-freeze", {"description": "No deploys"})
    assert put.status == 201, put.body
    got = second.request("GET", "/v1/memories/release-freeze")
    assert got.status == 200 and got.json()["description"] == "No deploys"
    assert got.headers["ETag"] == put.headers["ETag"]
    assert (
        second.request("PUT", "/v1/memories/release-freeze", {"body": "Until the 25th."}).status
        == 200
    )
    edited = first.request(
        "POST",
        "/v1/memories/release-freeze/edit",
        {"old_string": "25th", "new_string": "26th"},
    )
    assert edited.status == 200, edited.body
    assert second.request("GET", "/v1/memories/release-freeze").json()["body"] == "Until the 26th."


def _proves_something(ledger: dict) -> bool:
    return bool(ledger["increments"] and ledger["lines"])


def _client(servers, number: int, deadline: float, ledger: dict, lock: threading.Lock):
    rng = random.Random(number)
    done = 0
    while time.monotonic() < deadline or (
        not _proves_something(ledger) and time.monotonic() < deadline + PROOF_GRACE_SECONDS
    ):
        reader, writer = rng.sample(servers, 2)
        if rng.random() < 0.5:
            got = reader.request("GET", PATH)
            first, rest = got.json()["body"].split("\n", 1)
            count = int(first.removeprefix("count "))
            put = writer.request(
                "PUT",
                PATH,
                {"body": f"count {count + 1}\n{rest}"},
                {"If-Match": got.headers["ETag"]},
            )
            with lock:
                ledger["statuses"][put.status] += 1
                if put.status == 200:
                    ledger["increments"] += 1
        else:
            line = f"c{number}-{done}"
            answer = writer.request(
                "POST",
                "/v1/memories/shared/edit?project=",
                {"old_string": "\nEND", "new_string": f"\n{line}\nEND"},
            )
            with lock:
                ledger["statuses"][answer.status] += 1
                if answer.status == 200:
                    ledger["lines"].append(line)
        done += 1


def test_writers_through_both_servers_lose_nothing_acknowledged(servers):
    first, second = servers
    assert first.request("PUT", PATH, {"description": "shared", "body": START_BODY}).status == 201
    ledger = {"increments": 0, "lines": [], "statuses": Counter()}
    lock = threading.Lock()
    deadline = time.monotonic() + SECONDS
    clients = [
        threading.Thread(target=_client, args=(servers, n, deadline, ledger, lock))
        for n in range(CLIENTS)
    ]
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    assert set(ledger["statuses"]) <= {200, 412}, ledger["statuses"]
    assert _proves_something(ledger), "the run acknowledged too little to prove"
    body = second.request("GET", PATH).json()["body"].split("\n")
    assert body[0] == f"count {ledger['increments']}"
    assert Counter(body[2:-1]) == Counter(ledger["lines"])
    assert body[1] == "lines:" and body[-1] == "END"


def test_a_session_and_a_token_work_on_both_servers(servers):
    first, second = servers
    manage(
        first.data_dir,
        "shell",
        "-c",
        "from django.contrib.auth.models import Group, User; "
        "u = User.objects.create_user('lead', password='a long enough password'); "
        "u.groups.add(Group.objects.get(name='auditor'))",
    )
    browser = requests.Session()
    sign_in = browser.get(f"http://127.0.0.1:{first.port}/sign-in/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', sign_in.text).group(1)
    signed = browser.post(
        f"http://127.0.0.1:{first.port}/sign-in/",
        data={
            "username": "lead",
            "password": "a long enough password",
            "csrfmiddlewaretoken": token,
        },
        allow_redirects=False,
    )
    assert signed.status_code == 302, signed.text[:500]
    page = browser.get(f"http://127.0.0.1:{second.port}/memories/", allow_redirects=False)
    assert page.status_code == 200, "the second server should know the first's session"
    assert "lead" in page.text
    # The token was made through the first server's store, and is sent to the second.
    assert second.request("GET", "/v1/memories").status == 200
    assert (
        second.request("GET", "/v1/memories", headers={"Authorization": "Bearer nope"}).status
        == 401
    )
