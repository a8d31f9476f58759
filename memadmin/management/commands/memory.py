"""`manage.py memory ...`: the operator's commands on the memory store.

Each subcommand is one add_parser block below and one handle_<name> method; the bodies live
in memadmin.cli.commands.
"""

from memadmin.cli import as_user
from memadmin.cli import commands as cli
from memadmin.cli.faults import StoreCommand
from memories.reads.filters import FILTERS

FORMATS = ("table", "json")


def _tier_option(parser, what: str) -> None:
    parser.add_argument(
        "--project",
        metavar="NAME",
        help=f'the tier {what}: a project\'s name, or "" for the global tier',
    )


def _filter_options(parser) -> None:
    """The filters `memory list` and `memory search` offer, as the filters declare them."""
    for flt in FILTERS:
        if not flt.in_command:
            continue
        if flt.argument_schema.get("type") == "boolean":
            parser.add_argument(f"--{flt.key}", action="store_true", help=flt.command_help)
        else:
            parser.add_argument(
                f"--{flt.key.replace('_', '-')}", metavar=flt.metavar, help=flt.command_help
            )


class Command(StoreCommand):
    help = (
        "Work with the memory store: list, get, show, add, edit, remove, move, export, import, "
        "verify [--rebuild], embed [--rebuild], search QUERY..."
    )

    def add_arguments(self, parser):
        as_user.add_option(parser)
        commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

        verify = commands.add_parser(
            "verify",
            help="check the search index, reference tables and vectors against the memories",
        )
        verify.add_argument(
            "--rebuild", action="store_true", help="regenerate them from the memories table"
        )
        embed = commands.add_parser(
            "embed", help="give every memory lacking a sound vector one (search by meaning)"
        )
        embed.add_argument(
            "--rebuild", action="store_true", help="embed every memory again, sound or not"
        )

        listing = commands.add_parser("list", help="list memories in index order")
        _tier_option(listing, "to list (absent: every tier)")
        _filter_options(listing)
        listing.add_argument("--format", choices=FORMATS, default="table")

        get = commands.add_parser("get", help="every stored field of a memory, backlinks too")
        get.add_argument("name")
        _tier_option(get, "holding it, when several projects hold the name")
        get.add_argument("--format", choices=FORMATS, default="table")

        show = commands.add_parser("show", help="the body of a memory, as stored")
        show.add_argument("name")
        _tier_option(show, "holding it, when several projects hold the name")
        show.add_argument("--format", choices=("text", "json"), default="text")

        add = commands.add_parser(
            "add", help="add a memory (or update one with --force, keeping what is not given)"
        )
        add.add_argument("name")
        add.add_argument("--description", help="one line: what the index lists")
        body = add.add_mutually_exclusive_group()
        body.add_argument("--body", help='the body ("" clears it)')
        body.add_argument("--from-file", metavar="PATH", help="the body from a file (- for stdin)")
        add.add_argument("--priority", help="0 (most important) to 100; 5 unless given")
        add.add_argument(
            "--tag", dest="tags", action="append", metavar="TAG", help='repeat for more; "" clears'
        )
        add.add_argument(
            "--reference",
            dest="references",
            action="append",
            metavar="TARGET",
            help='a memory, path, URL or id it depends on; repeat for more; "" clears',
        )
        add.add_argument("--load", metavar="{inline,index,search}", help="index unless given")
        add.add_argument("--expires", help='RFC 3339 or YYYY-MM-DD ("" clears it)')
        add.add_argument("--source", help="where the fact came from, one line")
        _tier_option(add, "to file it in (absent: the global tier, or wherever it is)")
        add.add_argument(
            "--force", action="store_true", help="update an existing memory, keeping the rest"
        )
        add.add_argument("--verified", action="store_true", help="the fact was checked just now")
        add.add_argument(
            "--supersedes",
            metavar="NAME",
            help="a memory of the same tier this one corrects: it leaves the index and the "
            "inline band, still found by search",
        )
        add.add_argument(
            "--allow-secret",
            action="store_true",
            help="store it although it holds a credential (recorded in the history)",
        )

        edit = commands.add_parser("edit", help="open the body in $VISUAL, then $EDITOR")
        edit.add_argument("name")
        _tier_option(edit, "holding it, when several projects hold the name")
        edit.add_argument("--verified", action="store_true", help="the fact was checked just now")

        remove = commands.add_parser("remove", help="delete a memory, naming what still cites it")
        remove.add_argument("name")
        _tier_option(remove, "holding it, when several projects hold the name")

        move = commands.add_parser(
            "move", help="re-file a memory in another tier, keeping everything else"
        )
        move.add_argument("name")
        _tier_option(move, "holding it, when several projects hold the name")
        move.add_argument(
            "--to",
            required=True,
            metavar="PROJECT",
            help='the tier to move it to: a project\'s name, or "" for the global tier',
        )

        export = commands.add_parser("export", help="write one Markdown file per memory")
        export.add_argument(
            "--directory", required=True, metavar="DIR", help="a new or empty directory"
        )
        _tier_option(export, "to export (absent: every tier)")

        restore = commands.add_parser("import", help="read a snapshot back into this store")
        restore.add_argument("directory", metavar="DIR")
        restore.add_argument(
            "--force", action="store_true", help="overwrite memories the store already holds"
        )
        restore.add_argument(
            "--dry-run", action="store_true", help="say what would happen; change nothing"
        )

        search = commands.add_parser(
            "search", help="ranked search; several queries are synonyms, searched as one"
        )
        search.add_argument("queries", nargs="+", metavar="QUERY")
        search.add_argument(
            "--project", help='one project\'s tier; "" for the global tier (default: every tier)'
        )
        _filter_options(search)
        search.add_argument("--limit", type=int, default=50)
        search.add_argument(
            "--mode",
            metavar="{hybrid,words,meaning}",
            help="find by words and meaning fused (the default), words alone, or meaning alone",
        )
        search.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args, action, user=None, **options):
        label = f"manage.py memory {action}"
        with cli.piped(), as_user.acting(user, label):
            getattr(self, f"handle_{action}")(**options)

    def handle_verify(self, **options):
        cli.verify(self.stdout, self.stderr, **options)

    def handle_embed(self, **options):
        cli.embed(self.stdout, self.stderr, **options)

    def handle_list(self, **options):
        cli.list_memories(self.stdout, **options)

    def handle_get(self, **options):
        cli.get_memory(self.stdout, **options)

    def handle_show(self, **options):
        cli.show_memory(self.stdout, **options)

    def handle_add(self, **options):
        cli.add_memory(self.stdout, **options)

    def handle_edit(self, **options):
        cli.edit_memory(self.stdout, **options)

    def handle_remove(self, **options):
        cli.remove_memory(self.stdout, **options)

    def handle_move(self, **options):
        cli.move_memory(self.stdout, **options)

    def handle_export(self, **options):
        cli.export(self.stdout, self.stderr, **options)

    def handle_import(self, **options):
        cli.import_(self.stdout, self.stderr, **options)

    def handle_search(self, **options):
        cli.search_memories(self.stdout, **options)
