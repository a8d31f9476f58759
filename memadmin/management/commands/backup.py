"""`manage.py backup DEST`: a consistent online copy of the whole store."""

from memadmin.cli import commands as cli
from memadmin.cli.faults import StoreCommand


class Command(StoreCommand):
    help = (
        "Copy the whole store, consistently, while the server and writers run, to DEST (a new "
        "file, or a directory to put a dated file in); the copy is checked before it is kept."
    )

    def add_arguments(self, parser):
        parser.add_argument("destination", metavar="DEST")

    def handle(self, *args, destination: str, **options):
        cli.backup(self.stdout, destination=destination)
