"""`manage.py project ...`: add, list, rename and remove the projects memories are filed in."""

from memadmin.cli import as_user
from memadmin.cli import commands as cli
from memadmin.cli.faults import StoreCommand


class Command(StoreCommand):
    help = "Work with projects: add, list, rename (its memories move with it), remove."

    def add_arguments(self, parser):
        as_user.add_option(parser)
        commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

        add = commands.add_parser("add", help="add a project")
        add.add_argument("name")

        listing = commands.add_parser("list", help="every project with its memory count")
        listing.add_argument("--format", choices=("table", "json"), default="table")

        rename = commands.add_parser("rename", help="rename a project; its memories move with it")
        rename.add_argument("name")
        rename.add_argument("new_name", metavar="NEW_NAME")

        remove = commands.add_parser("remove", help="remove a project that holds no memories")
        remove.add_argument("name")

    def handle(self, *args, action, user=None, **options):
        label = f"manage.py project {action}"
        with cli.piped(), as_user.acting(user, label):
            getattr(self, f"handle_{action}")(**options)

    def handle_add(self, **options):
        cli.add_project(self.stdout, **options)

    def handle_list(self, **options):
        cli.list_projects(self.stdout, **options)

    def handle_rename(self, **options):
        cli.rename_project(self.stdout, **options)

    def handle_remove(self, **options):
        cli.remove_project(self.stdout, **options)
