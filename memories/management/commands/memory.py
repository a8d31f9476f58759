"""`manage.py memory ...`: the operator's commands on the memory store."""

from django.core.management.base import BaseCommand, CommandError

from memories import fts


class Command(BaseCommand):
    help = "Work with the memory store: verify [--rebuild], search QUERY..."

    def add_arguments(self, parser):
        commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        verify = commands.add_parser(
            "verify",
            help="check the search index and reference tables against the memories",
        )
        verify.add_argument(
            "--rebuild", action="store_true", help="regenerate them from the memories table"
        )

        search = commands.add_parser(
            "search", help="ranked search; several queries are synonyms, searched as one"
        )
        search.add_argument("queries", nargs="+", metavar="QUERY")
        search.add_argument(
            "--project", help='one project\'s tier; "" for the global tier (default: every tier)'
        )
        search.add_argument("--expired", action="store_true", help="only expired memories")
        search.add_argument("--unverified", metavar="PERIOD", help="not verified within, e.g. 90d")
        search.add_argument("--referencing", metavar="TARGET", help="a memory, path, URL or id")
        search.add_argument("--tag")
        search.add_argument("--load", choices=["inline", "index", "search"])
        search.add_argument("--limit", type=int, default=50)
        search.add_argument("--format", choices=["text", "json"], default="text")

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

    def handle_search(self, *, queries, limit, format, **options):
        import json

        from memories.captions import short_age
        from memories.errors import DomainError
        from memories.filters import MemoryFilterForm
        from memories.search import search

        data = {"q": queries, "limit": str(limit)}
        for name in ("project", "unverified", "referencing", "tag", "load"):
            if options[name] is not None:
                data[name] = options[name]
        if options["expired"]:
            data["expired"] = "true"
        form = MemoryFilterForm(data)
        if not form.is_valid():
            raise CommandError(form.first_error())
        filters = form.filters()
        try:
            result = search(form.cleaned_data["q"], filters, limit=form.cleaned_data["limit"])
        except DomainError as error:
            raise CommandError(error.message) from None
        if format == "json":
            memories = [hit.to_dict() for hit in result.hits]
            self.stdout.write(json.dumps({"memories": memories}, ensure_ascii=False, indent=2))
            return
        wanted = ", ".join(f"‘{query}’" for query in form.cleaned_data["q"])
        summary = filters.summary(result.count, searched=True)
        self.stdout.write(f"{summary} matching {wanted}, best first")
        if result.last_resort:
            self.stdout.write("Nothing matched as words; the whole query was scanned as text.")
        if result.capped:
            self.stdout.write("A text scan stopped at its limit: there may be more.")
        for hit in result.hits:
            memory = hit.memory
            marks = [f"{memory.read_count} reads", f"age {short_age(memory.created_at)}"]
            if hit.verified_since_recorded:
                marks.append("verified")
            if memory.is_expired():
                marks.append("EXPIRED")
            self.stdout.write(
                f"{memory.name}  [{memory.project_name or 'global'}]  p{memory.priority}  "
                f"{hit.matched_by} {hit.score:.3f}  {', '.join(marks)}"
            )
            self.stdout.write(f"    {memory.description}")
            if hit.scanned_terms:
                self.stdout.write("    found as text: " + ", ".join(hit.scanned_terms))
