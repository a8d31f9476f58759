"""The test provider in a process of its own, started and stopped by the tests."""

import json
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CLIENT_ID, CLIENT_SECRET = "memadmin-tests", "the client secret of the tests"
PASSWORD = "provider password"
# The provider's people: ada is an operator by her group, bob's groups map to no role here,
# carol is an admin by hers.
USERS = [
    {"username": "ada", "email": "ada@example.org", "groups": ["engineering", "mem-operators"]},
    {"username": "bob", "email": "bob@example.org", "groups": ["marketing"]},
    {"username": "carol", "email": "carol@example.org", "groups": ["mem-admins"]},
]


@dataclass
class Provider:
    url: str  # where it serves, the issuer at url + "/o"
    directory: Path

    @property
    def issuer(self) -> str:
        return f"{self.url}/o"

    def expire_code(self, code: str) -> int:
        """Age the authorization code the provider issued past its expiry, as time would;
        how many codes that was (1, or 0 for a code it does not hold)."""
        with sqlite3.connect(self.directory / "provider.db") as store:
            changed = store.execute(
                "UPDATE oauth2_provider_grant SET expires = '2000-01-01 00:00:00' WHERE code = ?",
                [code],
            ).rowcount
        return changed


@contextmanager
def running(directory: Path, redirect_uris: list[str]):
    """The provider serving on 127.0.0.1, stopped when the block ends."""
    directory.mkdir(parents=True, exist_ok=True)
    users = [{**person, "password": PASSWORD} for person in USERS]
    config = {
        "users": users,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "redirect_uris": redirect_uris,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.oidc_provider.serve", str(directory), json.dumps(config)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        if not line.startswith("listening "):
            process.kill()
            raise RuntimeError(f"The test provider did not start: {process.stderr.read()}")
        yield Provider(line.split()[1], directory)
    finally:
        process.terminate()
        process.wait(timeout=10)
