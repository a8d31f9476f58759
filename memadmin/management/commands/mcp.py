"""`manage.py mcp [--project NAME] [--user NAME]`: the MCP tools over stdio."""

from django.core.management.base import CommandError

from memadmin.cli.faults import StoreCommand
from memadmin.mcp import stdio
from memories.rules.errors import DomainError


class Command(StoreCommand):
    help = (
        "Serve the memory tools (memory_write, memory_edit, memory_read, memory_search, "
        "memory_delete) and memory://index over MCP on stdin and stdout."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--project", metavar="NAME", help="the session's project (absent: no project)"
        )
        parser.add_argument(
            "--user",
            metavar="NAME",
            help="the account the writes are recorded as; its role decides whether it may write",
        )

    def handle(self, *args, project, user, **options):
        try:
            stdio.serve(project, user)
        except DomainError as error:
            raise CommandError(error.message) from None
