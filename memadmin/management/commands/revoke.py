"""`manage.py revoke USER [--project NAME ...]`: take back an account's role on the whole
store (no --project) or its grants on named tiers (`--project ""` the global tier)."""

from django.core.management.base import CommandError

from memadmin.accounts import grants
from memadmin.cli.faults import StoreCommand
from memadmin.management.commands.grant import add_places, places
from memories.rules.errors import DomainError


class Command(StoreCommand):
    help = "Take back an account's role on the whole store or its grants on named tiers."

    def add_arguments(self, parser):
        parser.add_argument("user", metavar="USER")
        add_places(parser, "revoke the grant on")

    def handle(self, *args, user, project, **options):
        try:
            account = grants.user_named(user)
            for place in places(project):
                held = grants.revoke(None, account, place)
                if held is None:
                    self.stdout.write(f"'{user}' held nothing on {grants.where(place)}.")
                else:
                    self.stdout.write(f"'{user}' is no longer {held.words}.")
        except DomainError as error:
            raise CommandError(error.message) from None
