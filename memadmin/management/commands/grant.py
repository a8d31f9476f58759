"""`manage.py grant USER ROLE [--project NAME ...]`: give an account a role on the whole
store (no --project) or on named tiers (`--project ""` the global tier); `manage.py grant
USER` lists what it holds. `manage.py revoke` takes grants back."""

from django.core.management.base import CommandError

from memadmin.accounts import grants, roles
from memadmin.cli.faults import StoreCommand
from memories.rules.errors import DomainError


def add_places(parser, what: str) -> None:
    parser.add_argument(
        "--project",
        action="append",
        metavar="NAME",
        help=f'{what} this project\'s tier ("" the global tier); repeat for several; '
        "absent: the whole store",
    )


def places(projects: list[str] | None) -> list:
    return [grants.WHOLE_STORE] if not projects else [p or None for p in projects]


class Command(StoreCommand):
    help = "Give an account a role on the whole store or on named tiers, or list its grants."

    def add_arguments(self, parser):
        parser.add_argument("user", metavar="USER")
        parser.add_argument("role", nargs="?", choices=roles.ROLES, metavar="ROLE")
        add_places(parser, "grant the role on")

    def handle(self, *args, user, role, project, **options):
        try:
            account = grants.user_named(user)
            if role is None:
                if project:
                    raise CommandError("Name the role to grant (auditor, operator or admin).")
                self._list(account)
                return
            for place in places(project):
                held = grants.grant(None, account, role, place)
                self.stdout.write(f"'{user}' is now {held.words}.")
        except DomainError as error:
            raise CommandError(error.message) from None

    def _list(self, account) -> None:
        held = grants.holdings_of(account)
        if not held:
            self.stdout.write(f"'{account.get_username()}' holds no grant.")
        for one in held:
            self.stdout.write(one.words)
