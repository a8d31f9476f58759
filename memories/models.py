import datetime as dt
import hashlib
import json
from functools import lru_cache
from urllib.parse import quote_plus

from django.db import models
from django.db.models.functions import Coalesce, Lower
from django.urls import get_script_prefix, reverse
from django.utils import timezone

from memories.engine.lookups import name_shape
from memories.rules.fields import rfc3339
from memories.rules.tiers import GLOBAL_TIER
from projects.models import Project, Reached

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
# A memory's view reversed once with this for the name serves every memory of a page: a
# reverse() for each of the two links of each of a list's rows cost the page more
# (bench/results/2026-12-04-figures-from-comments).
NAME_SLOT = "__name__"


@lru_cache(maxsize=256)
def tier_query(project_name: str | None) -> str:
    """`?project=...` naming a memory's tier as the API names it (empty: the global tier).

    Kept per tier: quoting it afresh for each link slowed building a page's rows
    (bench/results/2026-12-04-figures-from-comments).
    """
    return "?project=" + quote_plus(project_name or "")


def memory_url(view_path: str, name: str, project_name: str | None) -> str:
    """A memory's address at a view reversed with NAME_SLOT for the name, its tier named.

    A memory's name is made of URL-safe characters (fields.NAME_RE): it goes in as it is.
    """
    return view_path.replace(NAME_SLOT, name) + tier_query(project_name)


@lru_cache(maxsize=64)
def _slot_path(viewname: str, script_prefix: str) -> str:
    return reverse(viewname, args=[NAME_SLOT])


def memory_view_url(viewname: str, name: str, project_name: str | None) -> str:
    """A memory's address at one of its views, its tier named: the view reversed once for
    each script prefix, where a reverse() for each link was a measurable share of the budget
    page (bench/results/2026-12-04-figures-from-comments)."""
    return memory_url(_slot_path(viewname, get_script_prefix()), name, project_name)


# What a memory's ETag covers: every field a write sets (its identity, its tier, its content
# and its stamps), not read_count, which the agent's read moves (the OpenAPI document lists
# them).
ETAG_FIELDS = (
    "id",
    "project_id",
    "name",
    "description",
    "body",
    "tags",
    "references",
    "priority",
    "load",
    "source",
    "created_at",
    "updated_at",
    "verified_at",
    "expires_at",
    "superseded_by",
)

# Index order: most important first, then the most recently recorded within a priority.
INDEX_ORDER = ("priority", "-created_at", "-id")


class Load(models.TextChoices):
    INLINE = "inline", "inline"
    INDEX = "index", "index"
    SEARCH = "search", "search"


class Memory(models.Model):
    """One durable note, written only through the doors (memories.writes); see the seed."""

    objects = Reached("tier")  # what the caller's grants reach (projects.models.Reached)
    every = models.Manager()  # the whole store, for the rules that span it

    name = models.CharField(max_length=128)
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.PROTECT, related_name="memories"
    )
    # The global tier is project NULL; a non-null key lets one index serve a band
    # ("tier IN (0, ?)") where "project IS NULL OR project = ?" needs a multi-index OR.
    tier = models.GeneratedField(
        expression=Coalesce("project_id", models.Value(GLOBAL_TIER)),
        output_field=models.BigIntegerField(),
        db_persist=False,
    )
    description = models.TextField()
    body = models.TextField(blank=True, default="")
    tags = models.JSONField(default=list)
    references = models.JSONField(default=list, db_column="refs")
    priority = models.IntegerField(default=5)
    load = models.CharField(max_length=6, choices=Load.choices, default=Load.INDEX)
    source = models.TextField(blank=True, default="")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    verified_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)
    read_count = models.PositiveIntegerField(default=0)
    # When the agent's read door last read it (None: never), for the `read_since`/`read_until`
    # filters; moved by that door alone, as read_count, and outside the ETag likewise.
    last_read_at = models.DateTimeField(null=True, blank=True)
    # The name of the memory of the same tier that supersedes this one (memories.writes.doors):
    # a name, as a reference is, so a revision's snapshot says it in words. A supersession
    # also ends the memory's force through its expiry, which every reader of the band and
    # the index already honours.
    superseded_by = models.CharField(max_length=128, null=True, blank=True)

    class Meta:
        constraints = [
            # The conflict target of the write door's upsert: a name once per tier.
            models.UniqueConstraint(fields=["tier", "name"], name="memory_name_once_per_tier"),
            models.CheckConstraint(condition=name_shape(128), name="memory_name_shape"),
            models.CheckConstraint(
                condition=models.Q(load__in=["inline", "index", "search"]), name="memory_load"
            ),
            models.CheckConstraint(condition=models.Q(read_count__gte=0), name="memory_read_count"),
        ]
        indexes = [
            models.Index(
                fields=["tier", "priority", "-created_at", "-id"], name="memory_tier_order"
            ),
            models.Index(fields=["priority", "-created_at", "-id"], name="memory_index_order"),
            # A name's holders with their tier on the index: the graph resolves every
            # reference by band (memories.reads.graph) without reading a memory's row. The id
            # is a key column for PostgreSQL, whose indexes do not hold the row's key as
            # SQLite's do (an `include` SQLite would ignore, with a warning at every command).
            models.Index(fields=["name", "project", "id"], name="memory_name_project"),
            # A band's inline bodies, index entries and search-only count (agent_view): one
            # range per tier in index order, with expiry read off the index.
            models.Index(
                fields=["load", "tier", "priority", "-created_at", "-id", "expires_at"],
                name="memory_band",
            ),
            # With the verification: the facets' spans of the expired, off the index alone.
            models.Index(fields=["expires_at", "verified_at"], name="memory_expires"),
            # A tier's expired memories by load, off the index alone: what the tallies, which
            # count every memory, give back when a view counts those in force.
            models.Index(
                fields=["tier", "expires_at", "load", "verified_at"], name="memory_tier_expiry"
            ),
            models.Index(fields=["verified_at"], name="memory_verified"),
            # The drift sections (reads.drift) in their order off one range: the never read
            # by priority and age, the most read first; load and expiry on it too, so the
            # sections' bounded counts read no row (bench/results/2026-12-01-pages;
            # bench/results/2026-12-04-figures-from-comments).
            models.Index(
                fields=["read_count", "priority", "created_at", "id", "load", "expires_at"],
                name="memory_read_order",
            ),
            # A tier's never-read memories as one range, expiry, load and verification on it
            # too (the read filter's facet under expired or unverified, counted up to a bound).
            models.Index(
                fields=["read_count", "tier", "expires_at", "load", "verified_at"],
                name="memory_read_tier",
            ),
            # A tier's verification spans (the list's facets) as ranges of one index.
            models.Index(fields=["tier", "verified_at"], name="memory_tier_verified"),
            # Those verified since a time in each tier and load, a range per band tally (the
            # facets of the unverified, counted without reading a row).
            models.Index(fields=["tier", "load", "verified_at"], name="memory_band_verified"),
            # The date filters' ranges (recorded, updated, last read); verified and expires
            # have theirs above.
            models.Index(fields=["created_at"], name="memory_created"),
            models.Index(fields=["updated_at"], name="memory_updated"),
            models.Index(
                fields=["last_read_at"],
                name="memory_last_read",
                condition=models.Q(last_read_at__isnull=False),
            ),
            # The memories a memory supersedes, named on its page.
            models.Index(
                fields=["superseded_by", "tier"],
                name="memory_superseded_by",
                condition=models.Q(superseded_by__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def project_name(self) -> str | None:
        return self.project.name if self.project_id else None

    def get_absolute_url(self) -> str:
        """The memory's page: /memories/<name>/?project=<its project, empty for global>."""
        return memory_view_url("memories:detail", self.name, self.project_name)

    def successor_url(self) -> str:
        """The page of the memory that supersedes this one, in its tier ("" when none does)."""
        if not self.superseded_by:
            return ""
        return memory_view_url("memories:detail", self.superseded_by, self.project_name)

    def is_expired(self, now=None) -> bool:
        return self.expires_at is not None and self.expires_at <= (now or timezone.now())

    @property
    def body_bytes(self) -> int:
        return len(self.body.encode("utf-8"))

    @property
    def etag(self) -> str:
        """A strong validator over ETAG_FIELDS: what a write can conflict with. The agent's
        read moves read_count alone, so a writer's If-Match still holds after it."""
        state = json.dumps(
            [
                str(value) if isinstance(value, dt.datetime) else value
                for value in (getattr(self, name) for name in ETAG_FIELDS)
            ],
            ensure_ascii=False,
        )
        return '"' + hashlib.sha256(state.encode("utf-8")).hexdigest()[:32] + '"'

    def to_dict(self, now=None) -> dict:
        """The fields of GET /v1/memories (list form: no body, no backlinks)."""
        return list_dict([getattr(self, field) for field in LIST_FIELDS], self.project_name, now)


# The stored fields of a memory's list form (to_dict), in its order; a page of /v1's list
# reads them as plain rows (values_list), a model object built for each row costing several
# times the statement (bench/results/2026-12-04-figures-from-comments).
LIST_FIELDS = (
    "name",
    "project_id",
    "description",
    "priority",
    "load",
    "tags",
    "references",
    "source",
    "created_at",
    "updated_at",
    "verified_at",
    "expires_at",
    "read_count",
    "superseded_by",
)
# The keys of the list form, in its order (the columns of the list's CSV).
LIST_KEYS = tuple("project" if key == "project_id" else key for key in LIST_FIELDS[:-1]) + (
    "expired",
    "superseded_by",
)


def list_dict(row, project_name: str | None, now=None) -> dict:
    """A memory's list form from the values of LIST_FIELDS (its project named)."""
    (name, _, description, priority, load, tags, references, source, created_at, updated_at,
     verified_at, expires_at, read_count, superseded_by) = row  # fmt: skip
    now = now or timezone.now()
    return {
        "name": name,
        "project": project_name,
        "description": description,
        "priority": priority,
        "load": load,
        "tags": list(tags),
        "references": list(references),
        "source": source,
        "created_at": rfc3339(created_at),
        "updated_at": rfc3339(updated_at),
        "verified_at": rfc3339(verified_at),
        "expires_at": rfc3339(expires_at),
        "read_count": read_count,
        "expired": expires_at is not None and expires_at <= now,
        "superseded_by": superseded_by,
    }


class Reference(models.Model):
    """One row per reference, kept from Memory.references by triggers; indexed by target."""

    memory = models.ForeignKey(Memory, on_delete=models.DO_NOTHING, related_name="+")
    position = models.PositiveSmallIntegerField()
    target = models.TextField()
    # The citing memory's tier, kept by the triggers as the memory moves: which band the
    # target is resolved in, read without the citing memory's row (the dangling count).
    tier = models.BigIntegerField(null=True)
    # And its place in the index order, kept as its priority changes: a dangling target's
    # first citers are the first rows of reference_citer_order, where ranking every citer
    # of the 50 most cited grew with the store (bench/results/2026-12-02-targets-11).
    priority = models.IntegerField(null=True)
    created_at = models.DateTimeField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "position"], name="reference_position")
        ]
        indexes = [
            models.Index(
                fields=["target", "priority", "-created_at", "-memory", "tier"],
                name="reference_citer_order",
            ),
            # Covering: `referencing` and backlinks read the citing ids off the index alone.
            models.Index(fields=["target", "memory"], name="reference_target_memory"),
            # Covering: the dangling references, each target and the band citing it.
            models.Index(fields=["target", "tier"], name="reference_target_tier"),
        ]


class Tag(models.Model):
    """One row per tag, kept from Memory.tags by triggers; serves the tag filter and histograms."""

    memory = models.ForeignKey(Memory, on_delete=models.DO_NOTHING, related_name="+")
    position = models.PositiveSmallIntegerField()
    tag = models.TextField()
    # The memory's tier and verification, kept by the triggers as it moves and is verified:
    # the facets count a tag's memories per tier and verification span off tag_facets alone,
    # where reading each memory's row cost a row per match (bench/results/2026-12-01-facets-4).
    tier = models.BigIntegerField(null=True)
    verified_at = models.DateTimeField(null=True)
    # And its expiry: the facets count the expired memories' tags and a tag's expired memories
    # off tag_expiry / tag_tier_expiry, where seeking each expired memory's tags cost several
    # times the index's range (bench/results/2026-12-01-facets-5).
    expires_at = models.DateTimeField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["memory", "position"], name="tag_position")]
        # tag_folded serves the tag filter, which finds a tag in any case (reads.filters).
        indexes = [
            models.Index(Lower("tag"), name="tag_folded"),
            models.Index(fields=["tag", "tier", "verified_at", "memory"], name="tag_facets"),
            models.Index(fields=["tag", "expires_at", "tier", "memory"], name="tag_expiry"),
            models.Index(fields=["tier", "expires_at", "tag"], name="tag_tier_expiry"),
            # Covering: the tags of the memories a filter admits, without the tag's row.
            models.Index(fields=["memory", "tag"], name="tag_memory_tag"),
        ]


class BandTally(models.Model):
    """How many memories of one load and priority a tier holds, the UTF-8 bytes of their
    bodies, and how many of them the agent never read (its first read moves that count).

    Kept by the database in the statement that writes a memory (the engine's triggers, so
    every write, through the doors or past them, moves it in its own transaction), expired
    memories included: a read takes those off through `memory_tier_expiry`. A view then
    costs what it shows, not what the tier holds. `memory verify` recounts them.
    """

    tier = models.BigIntegerField()
    load = models.CharField(max_length=6)
    priority = models.IntegerField()
    memories = models.BigIntegerField(default=0)
    body_bytes = models.BigIntegerField(default=0)
    never_read = models.BigIntegerField(default=0)  # of them, those the agent never read

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tier", "load", "priority"], name="band_tally_once"),
        ]

    def __str__(self) -> str:
        return f"tier {self.tier} {self.load} priority {self.priority}: {self.memories}"


class TagTally(models.Model):
    """How many memories of one load in a tier carry a tag; kept as BandTally is."""

    tier = models.BigIntegerField()
    load = models.CharField(max_length=6)
    tag = models.TextField()
    memories = models.BigIntegerField(default=0)
    never_read = models.BigIntegerField(default=0)  # of them, those the agent never read

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tier", "load", "tag"], name="tag_tally_once"),
        ]

    def __str__(self) -> str:
        return f"tier {self.tier} {self.load} {self.tag}: {self.memories}"


class VerifiedTally(models.Model):
    """How many memories of one load in a tier were last verified on one day (UTC); kept as
    BandTally is. The facets' verification spans read a few of these rows and count the
    memories of the span's edge days alone, where counting a span's memories stepped every
    index entry of it (bench/results/2026-12-01-facets-4)."""

    tier = models.BigIntegerField()
    load = models.CharField(max_length=6)
    day = models.DateField()
    memories = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tier", "day", "load"], name="verified_tally_once"),
        ]
        # Covering: the days since a moment over every tier, and one tier's (read off the
        # constraint's index, each day's row was looked up for its count, nearly twice as slow:
        # bench/results/2026-12-04-figures-from-comments).
        indexes = [
            models.Index(fields=["day", "tier", "load", "memories"], name="verified_tally_day"),
            models.Index(fields=["tier", "day", "load", "memories"], name="verified_tally_tier"),
        ]

    def __str__(self) -> str:
        return f"tier {self.tier} {self.load} verified {self.day}: {self.memories}"


class TagVerifiedTally(models.Model):
    """How many memories of a tier carrying a tag were last verified on one day (UTC); kept
    as BandTally is."""

    tier = models.BigIntegerField()
    tag = models.TextField()
    day = models.DateField()
    memories = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tag", "tier", "day"], name="tag_verified_tally_once"),
        ]
        # Covering: every tag's days since a moment, and one tag's over every tier.
        indexes = [
            models.Index(fields=["day", "tier", "tag", "memories"], name="tag_verified_tally_day"),
            models.Index(fields=["tag", "day", "tier", "memories"], name="tag_verified_tally_tag"),
        ]

    def __str__(self) -> str:
        return f"tier {self.tier} {self.tag} verified {self.day}: {self.memories}"


class TagPairTally(models.Model):
    """How many memories of a tier carry both `tag` and `other` (each pair in both orders);
    kept as BandTally is. A tag's facets read its memories' other tags here, where reading
    them off the tag table sought each memory's tags (bench/results/2026-12-01-facets-5)."""

    tier = models.BigIntegerField()
    tag = models.TextField()
    other = models.TextField()
    memories = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tag", "tier", "other"], name="tag_pair_tally_once"),
        ]

    def __str__(self) -> str:
        return f"tier {self.tier} {self.tag} with {self.other}: {self.memories}"


class DanglingTally(models.Model):
    """How many references of a tier's memories name `target` while no memory of their band
    holds it (the rule of reads.backlinks.resolve_in_band); kept as BandTally is, its rows
    only for targets that dangle. The hygiene section of a tier reads these rows, and the
    overview their sums (DanglingTarget, DanglingTotal), where resolving every reference
    grew with the store (bench/results/2026-12-04-figures-from-comments).

    A write moves it by the references it adds or takes off, and a memory added, removed,
    renamed or moved recounts the references naming it, whose resolution that changes.
    """

    target = models.TextField()
    tier = models.BigIntegerField()
    refs = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["target", "tier"], name="dangling_tally_once"),
        ]
        # A tier's dangling targets, most cited first: a page of them read in index order.
        indexes = [
            models.Index(fields=["tier", "-refs", "target"], name="dangling_tally_most_cited")
        ]


class DanglingTarget(models.Model):
    """Each dangling target's references over every tier: the sum of its DanglingTally rows,
    kept by the tally's own triggers, a row only while the sum is above 0. The overview's ten
    most cited are the first ten of its index, where summing the tally's rows per target
    followed the dangling targets (bench/results/2026-12-02-dangling-10)."""

    target = models.TextField(unique=True)
    refs = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["-refs", "target"], name="dangling_target_most_cited")]


class DanglingTotal(models.Model):
    """The store's dangling targets and the references naming them: the row of id 1, kept by
    DanglingTarget's triggers, there only while a target dangles. Writers hold the store's
    write lock in turn, so a row every write may move holds none of them up."""

    targets = models.BigIntegerField()
    refs = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.targets} dangling targets, {self.refs} references"


class Orphan(models.Model):
    """A memory that references nothing and that no reference resolves to (the graph's rule),
    with its tier: kept by triggers deciding again, on each write, the memories it can
    change (itself and the holders of its names and of the names it cites). The hygiene
    page walks its memories in index order testing this table, where resolving every
    reference to find them grew with the store (bench/results/2026-12-04-figures-from-comments)."""

    # No constraint in the database: the triggers take a memory's row out in the statement
    # deleting it, after the check an immediate constraint would make.
    memory = models.OneToOneField(
        Memory, on_delete=models.DO_NOTHING, primary_key=True, related_name="+", db_constraint=False
    )
    tier = models.BigIntegerField()


class OrphanTally(models.Model):
    """How many orphans each tier holds, a row only while it holds one: kept by Orphan's
    triggers, the count the hygiene page shows for the store (their sum) or a tier."""

    tier = models.BigIntegerField(unique=True)
    memories = models.BigIntegerField()


class Wording(models.Model):
    """Each memory's wording key (rules.similarity.wording of its description), NULL until a
    door or `memory verify --rebuild` works it out: the triggers give a new memory a row and
    empty it when the description changes. The hygiene page's near-copies read only the
    memories whose key another shares, or is unknown, where numbering every description grew
    with the store (bench/results/2026-12-04-figures-from-comments)."""

    # No constraint in the database, as Orphan's: the triggers keep and drop the rows.
    memory = models.OneToOneField(
        Memory, on_delete=models.DO_NOTHING, primary_key=True, related_name="+", db_constraint=False
    )
    wording = models.CharField(max_length=32, null=True)

    class Meta:
        indexes = [models.Index(fields=["wording"], name="wording_key")]


class WordingTally(models.Model):
    """How many memories hold each wording key, a row only while one does: kept by
    Wording's triggers. The keys held twice or more are what the partial index lists."""

    wording = models.CharField(max_length=32, unique=True)
    memories = models.BigIntegerField()

    class Meta:
        indexes = [
            models.Index(
                fields=["wording"], name="wording_shared", condition=models.Q(memories__gte=2)
            )
        ]


class Door(models.TextChoices):
    """Which way a change came in."""

    PAGE = "page", "page"
    BULK = "bulk", "bulk"
    API = "api", "API"
    MCP = "mcp", "MCP"
    COMMAND = "command", "command"
    IMPORT = "import", "import"
    DIRECT = "direct", "direct"  # no context set: a test, the shell, a script


class Action(models.TextChoices):
    CREATE = "create", "created"
    UPDATE = "update", "updated"
    MOVE = "move", "moved"
    EDIT = "edit", "edited"
    DELETE = "delete", "deleted"
    RESTORE = "restore", "restored from the trash"
    REVERT = "revert", "restored a version"
    UNDO = "undo", "undone"
    IMPORT = "import", "imported"
    PURGE = "purge", "purged"


class Acted(models.Model):
    """Who changed the store, through which door, and why: kept on every history row."""

    door = models.CharField(max_length=8, choices=Door.choices)
    actor = models.CharField(max_length=200)  # a label that survives the user's deletion
    username = models.CharField(max_length=150, blank=True, default="")
    user_id = models.BigIntegerField(null=True, blank=True)
    token_id = models.BigIntegerField(null=True, blank=True)
    reason = models.TextField(blank=True, default="")

    class Meta:
        abstract = True


class ChangeSet(Acted):
    """The revisions of one bulk action or one import: inspected and undone as a whole."""

    at = models.DateTimeField()
    summary = models.CharField(max_length=200)
    undoes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="undone_by"
    )

    def __str__(self) -> str:
        return f"#{self.id} {self.summary}"


class Revision(Acted):
    """One write to one memory: the state before and after it, who, through which door, when.

    Snapshots are whole (every field, created_at, verified_at and read_count included), so any
    version can be shown, diffed and put back without replaying the others. `memory_id` is a
    plain number, not a key: the history outlives the row, and a restored memory keeps its id.
    """

    objects = Reached("tier", "previous_tier?")
    every = models.Manager()

    at = models.DateTimeField()
    memory_id = models.BigIntegerField()
    name = models.CharField(max_length=128)
    # The tier the memory is in after the change (before it, for a delete); previous_tier is
    # the one a move left. 0 is the global tier, as Memory.tier.
    tier = models.BigIntegerField()
    previous_tier = models.BigIntegerField(null=True, blank=True)
    project_name = models.CharField(max_length=64, null=True, blank=True)
    action = models.CharField(max_length=8, choices=Action.choices)
    change_set = models.ForeignKey(
        ChangeSet, null=True, blank=True, on_delete=models.PROTECT, related_name="revisions"
    )
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    purged = models.BooleanField(default=False)  # its snapshots were erased by a purge

    class Meta:
        # Each single-column index also holds the rowid, so "WHERE x = ? ORDER BY id DESC"
        # walks one index backwards.
        indexes = [
            models.Index(fields=["memory_id"], name="revision_memory"),
            models.Index(fields=["name"], name="revision_name"),
            models.Index(fields=["tier"], name="revision_tier"),
            models.Index(
                fields=["previous_tier"],
                name="revision_previous_tier",
                condition=models.Q(previous_tier__isnull=False),
            ),
            models.Index(fields=["username"], name="revision_username"),
            models.Index(fields=["door"], name="revision_door"),
            # With the memory: the memories changed since a moment (the agent view as it
            # stood then, memories.reads.past_view) off the index alone, where looking each
            # revision's row up cost most of a rebuild (bench/results/2026-12-05-asof).
            models.Index(fields=["at", "memory_id"], name="revision_at_memory"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(action__in=[a.value for a in Action]),
                name="revision_action_known",
            ),
            models.CheckConstraint(
                condition=models.Q(door__in=[d.value for d in Door]), name="revision_door_known"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.id} {self.action} {self.name}"


class MemoryState(models.Model):
    """What a memory was from one revision of it to the next: what places it in an agent view
    (tier, load, order, expiry, whether it has a body, tags), kept by the history beside each
    revision (memories.writes.states), so the view at any moment reads the states that stood
    then off an index, whatever changed since (memories.reads.past_view).

    Its text is not copied: the revision that ended it holds it whole as its `before`, and
    the row itself while it stands (`until` None). `since` None: since before the history
    kept. `joins` and `leaves` mark where the memory entered or left a tier, load or tag (a
    create, a move, a load or tags changed, a delete): the tallies at a moment are those of
    now less what joined since and plus what left since.
    """

    memory_id = models.BigIntegerField()
    tier = models.BigIntegerField()  # 0 is the global tier, as Memory.tier
    load = models.CharField(max_length=6)
    priority = models.IntegerField()
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)
    has_body = models.BooleanField()
    tags = models.JSONField(default=list)
    since = models.DateTimeField(null=True, blank=True)
    until = models.DateTimeField(null=True, blank=True)
    ended_by = models.BigIntegerField(null=True, blank=True)  # the revision that ended it
    joins = models.BooleanField()
    leaves = models.BooleanField(default=False)
    purged = models.BooleanField(default=False)  # its memory was purged: its text is gone

    class Meta:
        indexes = [
            models.Index(fields=["memory_id"], name="state_memory"),
            # A tier's states of a load in index order, with when each stood: the first of a
            # view's index at a moment are the first entries that stood then.
            models.Index(
                fields=["tier", "load", "priority", "-created_at", "-memory_id", "since", "until"],
                name="state_band",
            ),
            models.Index(
                fields=["tier", "expires_at", "since", "until"],
                name="state_expiry",
                condition=models.Q(expires_at__isnull=False),
            ),
            # What joined or left each tier since a moment, grouped by load and tags: the
            # tallies then, off these alone.
            models.Index(
                fields=["tier", "since", "load", "tags"],
                name="state_joins",
                condition=models.Q(joins=True),
            ),
            models.Index(
                fields=["tier", "until", "load", "tags"],
                name="state_leaves",
                condition=models.Q(leaves=True),
            ),
            models.Index(
                fields=["tier", "until", "since"],
                name="state_purged",
                condition=models.Q(purged=True),
            ),
            models.Index(fields=["until"], name="state_until"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["memory_id"], condition=models.Q(until__isnull=True), name="state_open_once"
            ),
        ]

    def __str__(self) -> str:
        return f"memory {self.memory_id} from {self.since} to {self.until}"


class ProjectAction(models.TextChoices):
    ADD = "add", "added"
    RENAME = "rename", "renamed"
    REMOVE = "remove", "removed"


class ProjectRevision(Acted):
    """One change to the projects (added, renamed, removed): who, through which door, when.

    Recorded by the project doors in the change's own transaction, with the acting context
    the memory doors record (memories.writes.history). `project_id` is a plain number: the
    history outlives the project.
    """

    objects = Reached("project_id")
    every = models.Manager()

    at = models.DateTimeField()
    project_id = models.BigIntegerField()
    name = models.CharField(max_length=64)  # the project's name after the change (a removal's)
    previous_name = models.CharField(max_length=64, blank=True, default="")  # a rename's
    action = models.CharField(max_length=8, choices=ProjectAction.choices)

    class Meta:
        indexes = [models.Index(fields=["at"], name="project_revision_at")]

    def __str__(self) -> str:
        return f"#{self.id} {self.action} {self.name}"


class Change(models.Model):
    """One committed change to the store, the change feed's entry (memories.reads.changes).

    Written by the doors beside the change's own history row, in its transaction, so a
    change rolled back leaves none and one committed is read by every app server. Its id
    is the feed's order: writers hold the store's write lock from the start of their
    transaction to its commit (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so
    ids are taken in the order the changes commit, and a reader that has seen one id has
    seen every smaller one.
    """

    at = models.DateTimeField()
    # A memory revision's action, or a project's: project-add, project-rename, project-remove.
    kind = models.CharField(max_length=16)
    tier = models.BigIntegerField()  # 0 global, else the project's id (as Memory.tier)
    previous_tier = models.BigIntegerField(null=True, blank=True)  # the tier a move left
    project_name = models.CharField(max_length=64, null=True, blank=True)
    name = models.CharField(max_length=128)  # the memory's, or the project's
    previous_name = models.CharField(max_length=64, blank=True, default="")  # a rename's
    memory_id = models.BigIntegerField(null=True, blank=True)  # as Revision.memory_id
    revision_id = models.BigIntegerField(null=True, blank=True)  # a memory change's revision
    door = models.CharField(max_length=8)
    actor = models.CharField(max_length=200)
    tags = models.JSONField(default=list)  # the memory's tags before and after the change

    class Meta:
        indexes = [models.Index(fields=["at"], name="change_at")]

    def __str__(self) -> str:
        return f"#{self.id} {self.kind} {self.name}"


class TrashedMemory(models.Model):
    """A deleted memory, restorable until purged: its state is its deletion's `before`."""

    objects = Reached("revision__tier")
    every = models.Manager()

    revision = models.OneToOneField(Revision, on_delete=models.PROTECT, related_name="trashed")
    memory_id = models.BigIntegerField(unique=True)

    def __str__(self) -> str:
        return f"{self.revision.name} (in the trash)"


class MemoryVector(models.Model):
    """A memory's meaning: its name, description and body as the embedded model reads them
    (memories.embedding), kept by the doors in the write's own transaction.

    A change is a new row (a new id and a new random `stamp`), never an update in place, so a
    process holding the vectors (memories.reads.meaning) tells what changed from the highest
    id, its stamp and the count; the stamp also tells a row rolled back and its id reused.
    """

    # Deleted with its memory by the ORM's cascade (the delete door); no constraint in the
    # database, so a memory removed behind the doors leaves a row `memory verify` reports
    # and mends rather than a failing commit.
    memory = models.OneToOneField(
        Memory, on_delete=models.CASCADE, db_constraint=False, related_name="+"
    )
    model = models.CharField(max_length=100)  # embedding.MODEL_VERSION when it was made
    digest = models.CharField(max_length=32)  # of the text embedded (embedding.digest)
    stamp = models.BigIntegerField()
    vector = models.BinaryField()  # embedding.to_bytes

    def __str__(self) -> str:
        return f"vector of memory #{self.memory_id}"
