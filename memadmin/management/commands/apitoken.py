"""`manage.py apitoken create|list|pause|resume|rotate|revoke`: API tokens from the shell.

`create` and `rotate` print the secret as the last line of their output, so a script can
take it with `tail -n 1`.
"""

import datetime as dt

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from memadmin.accounts import grants, roles, tokens
from memadmin.cli.faults import StoreCommand
from memadmin.models import ApiToken
from memories.rules import tiers
from memories.rules.errors import DomainError


def _minute(moment) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _state(token: ApiToken, states: tokens.States) -> str:
    state = states.of(token)
    if state == "revoked":
        return "revoked " + token.revoked_at.strftime("%Y-%m-%d")
    return state


class Command(StoreCommand):
    help = "Create, list, pause, resume, rotate and revoke API tokens for /v1 and MCP."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = actions.add_parser("create", help="make a token and print it (last line)")
        create.add_argument("user", metavar="USER")
        create.add_argument("--scope", choices=ApiToken.Scope.values, required=True)
        create.add_argument("--label", default="")
        create.add_argument(
            "--expires",
            help="when it stops working: YYYY-MM-DD (the end of that day) or RFC 3339",
        )
        create.add_argument(
            "--project",
            action="append",
            metavar="NAME",
            help='limit the token to this project\'s tier ("" the global tier); repeat for '
            "several, each one USER holds a grant on; absent: whatever USER's grants reach",
        )
        create.add_argument(
            "--create-user",
            action="store_true",
            help="create USER if missing (a sign-in without a password), in the --role group",
        )
        create.add_argument(
            "--role",
            choices=roles.ROLES,
            default=roles.OPERATOR,
            help="the role of a user made by --create-user (default: operator)",
        )
        listing = actions.add_parser("list", help="every token, newest first")
        listing.add_argument("--user", help="only this user's tokens")
        for name, doing in [
            ("pause", "pause a token by its id: refused (401) until resumed"),
            ("resume", "resume a paused token by its id"),
            (
                "rotate",
                "a new secret for a token by its id (printed, last line); the old one "
                "is accepted for MEMADMIN_TOKEN_ROTATION_GRACE_MINUTES more",
            ),
            ("revoke", "revoke a token by its id"),
        ]:
            actions.add_parser(name, help=doing).add_argument("id", type=int, metavar="ID")

    def handle(self, *args, action, **options):
        try:
            return getattr(self, f"handle_{action}")(**options)
        except DomainError as error:
            raise CommandError(error.message) from None

    def handle_create(self, *, user, scope, label, expires, create_user, role, project, **options):
        users = get_user_model()
        with transaction.atomic():
            account = users.objects.filter(username=user).first()
            if account is None:
                if not create_user:
                    raise CommandError(
                        f"There is no user '{user}'; pass --create-user to make one."
                    )
                account = users.objects.create_user(username=user)
                account.groups.add(Group.objects.get(name=role))
                self.stdout.write(f"Created user '{user}' ({role}).")
            places = None if project is None else [name or None for name in project]
            token, secret = tokens.create_token(account, scope, label, expires, places)
        limited = ""
        if places:
            limited = " limited to " + ", ".join(tiers.phrase(place) for place in places)
        self.stdout.write(
            f"Created {scope} token {token.id} ({token.prefix}…) for '{user}'{limited}. "
            "It is shown this once; keep it somewhere safe:"
        )
        self.stdout.write(secret)

    def handle_list(self, *, user, **options):
        queryset = tokens.all_tokens()
        if user:
            queryset = queryset.filter(user__username=user)
        found = list(queryset)
        states = tokens.states(found, timezone.now())
        rows = [
            (
                str(t.id),
                t.user.get_username(),
                ",".join(tiers.column(place) for place in grants.token_places(t)) or "(owner's)",
                t.scope,
                t.prefix + "…",
                _minute(t.created_at),
                _minute(t.last_used_at) if t.last_used_at else "never",
                _minute(t.expires_at) if t.expires_at else "never",
                _state(t, states),
                t.label,
            )
            for t in found
        ]
        if not rows:
            self.stdout.write("No API tokens.")
            return
        header = (
            "ID",
            "USER",
            "TIERS",
            "SCOPE",
            "PREFIX",
            "CREATED",
            "LAST USED",
            "EXPIRES",
            "STATE",
            "LABEL",
        )
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            self.stdout.write(
                "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            )

    def _token(self, id) -> ApiToken:
        try:
            return tokens.all_tokens().get(id=id)
        except ApiToken.DoesNotExist:
            raise CommandError(f"There is no API token {id}.") from None

    def handle_pause(self, *, id, **options):
        token = tokens.pause(self._token(id))
        self.stdout.write(f"Paused token {id} ({token.prefix}…) of '{token.user}'.")

    def handle_resume(self, *, id, **options):
        token = tokens.pause(self._token(id), paused=False)
        self.stdout.write(f"Resumed token {id} ({token.prefix}…) of '{token.user}'.")

    def handle_rotate(self, *, id, **options):
        token, secret = tokens.rotate(self._token(id))
        self.stdout.write(
            f"Rotated token {id} of '{token.user}': its old secret is accepted until "
            f"{_minute(token.previous_valid_until)}. The new one is shown this once:"
        )
        self.stdout.write(secret)

    def handle_revoke(self, *, id, **options):
        token = self._token(id)
        was_revoked = token.revoked
        tokens.revoke(token)
        if was_revoked:
            self.stdout.write(f"Token {id} ({token.prefix}…) was already revoked.")
        else:
            self.stdout.write(f"Revoked token {id} ({token.prefix}…) of '{token.user}'.")
