"""`manage.py memory ...`: the operator's commands on the memory store."""

from django.core.management.base import BaseCommand, CommandError

from memories import fts


class Command(BaseCommand):
    help = "Work with the memory store: verify [--rebuild]."

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        verify = commands.add_parser(
            "verify",
            help="check the search index and reference tables against the memories",
        )
        verify.add_argument(
            "--rebuild", action="store_true", help="regenerate them from the memories table"
        )

    def handle(self, *args, action, **options):
        return getattr(self, f"handle_{action}")(**options)

    def handle_verify(self, *, rebuild: bool, **options):
        if rebuild:
            restored = fts.rebuild()
            if restored:
                self.stdout.write("Put back missing triggers: " + ", ".join(restored))
            self.stdout.write("Rebuilt the search index, references and tags from the table.")
        report = fts.check()
        if not report.ok:
            raise CommandError(
                "The search index is out of step: "
                + "; ".join(report.problems)
                + ". Run `manage.py memory verify --rebuild` to regenerate it."
            )
        self.stdout.write(
            f"The search index is sound and holds {report.documents} documents "
            f"for {report.rows} memories."
        )
