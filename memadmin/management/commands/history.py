"""`manage.py history ...`: the revision history's upkeep."""

from django.core.management.base import CommandError

from memadmin.cli.faults import StoreCommand
from memories.writes import history


class Command(StoreCommand):
    help = "Work with the revision history: prune [--days N]."

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        prune = commands.add_parser(
            "prune",
            help="remove revisions older than MEMADMIN_HISTORY_RETENTION_DAYS (0 keeps all)",
        )
        prune.add_argument(
            "--days",
            type=int,
            help="this retention instead of the setting's, for this run",
        )

    def handle(self, *args, action, **options):
        return getattr(self, f"handle_{action}")(**options)

    def handle_prune(self, *, days: int | None, **options):
        if days is not None and days < 1:
            raise CommandError("--days is a number of days, 1 or more.")
        pruned = history.prune(days=days)
        if pruned is None:
            self.stdout.write(
                "Retention keeps every revision (MEMADMIN_HISTORY_RETENTION_DAYS is 0); "
                "nothing was removed."
            )
            return
        self.stdout.write(
            f"Removed {pruned.revisions} revisions and {pruned.change_sets} change sets "
            f"older than {pruned.cutoff:%Y-%m-%d %H:%M} UTC; the deletions of memories "
            "still in the trash were kept."
        )
