"""Run the test provider: `python -m tests.oidc_provider.serve DIR CONFIG_JSON`.

Makes the provider's store in DIR (its signing key, its tables, the users and the one
client CONFIG_JSON names), then serves on 127.0.0.1 and a free port, printing
`listening http://127.0.0.1:PORT` once it accepts requests. Started and stopped by
tests/oidc_provider/process.py.
"""

import json
import os
import sys
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


def _signing_key(store: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    (store / "signing-key.pem").write_bytes(pem)


def _populate(config: dict) -> None:
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0)
    for person in config["users"]:
        user = User.objects.create_user(
            person["username"], email=person.get("email", ""), password=person["password"]
        )
        for name in person.get("groups", []):
            user.groups.add(Group.objects.get_or_create(name=name)[0])
    Application.objects.create(
        name="memadmin",
        client_id=config["client_id"],
        client_secret=config["client_secret"],
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=" ".join(config["redirect_uris"]),
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main(directory: str, config_json: str) -> None:
    store = Path(directory)
    os.environ["OIDC_PROVIDER_DIR"] = str(store)
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    _signing_key(store)
    import django

    django.setup()
    _populate(json.loads(config_json))
    from django.core.wsgi import get_wsgi_application

    server = make_server(
        "127.0.0.1", 0, get_wsgi_application(), server_class=_Server, handler_class=_Quiet
    )
    print(f"listening http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:3])
