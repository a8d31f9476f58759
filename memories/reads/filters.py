"""The filters of the list, search, API, MCP and the commands, declared once.

Each filter is an object in FILTERS holding its query parameter, the form field that reads
it, its condition, its words ("unverified for 90 days"), its OpenAPI schema, its choices
(which the list's form and facets show) and whether MCP and `memory list` offer it. The
filters object (MemoryFilters, one field per filter), its form (MemoryFilterForm), its
summary, the facets' links, the OpenAPI parameters and the tool's and the command's options
are derived from that list, as Datasette's filters carry their `where_clause()` beside their
`human_clause()`.

Query parameter names and values are the API's (`project`, `expired=true`, `unverified=90d`,
`referencing`, `tag`, `load`, `read=never`, `q`), so a URL moves between a page and /v1.
"""

import datetime as dt
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, make_dataclass, replace

from django import forms
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone

from memories.engine.hints import Unindexed, likelihood
from memories.models import Memory, Reference, Revision, Tag
from memories.reads.params import FirstErrorMixin
from memories.rules import fields as memory_fields
from memories.rules import reach, tiers
from memories.rules.errors import InvalidField
from memories.rules.tiers import ANY_TIER
from projects.models import Project, among

# The share of rows a condition is declared to admit when it admits most of them, or few.
DENSE, SPARSE = 0.9, 0.05
NO_NUL = "^[^\\u0000]*$"  # a text parameter holds no NUL character (refused: 400)

# The periods the pages offer for `unverified=`, which takes any period (`12h`, `2w`).
PERIOD_CHOICES = [
    ("7d", "a week"),
    ("30d", "30 days"),
    ("90d", "90 days"),
    ("180d", "180 days"),
    ("365d", "a year"),
]
BOOL_CHOICES = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


@dataclass(frozen=True)
class Scan:
    """How the conditions of one query are written (see MemoryFilters.apply)."""

    now: dt.datetime
    walk_order: bool = False
    sparse: bool = False

    def compare(self, name: str, lookup: str, value) -> Q:
        """`name <lookup> value` as a condition: walked (the planner will not look it up
        through the column's index), declared sparse, or as it is."""
        if self.walk_order:
            column = Unindexed(F(name), output_field=Memory._meta.get_field(name))
            return Q(column.get_lookup(lookup)(column, value))
        condition = Q(**{f"{name}__{lookup}": value})
        return Q(likelihood(condition, SPARSE)) if self.sparse else condition


class Filter(ABC):
    """One filter. `key` is its query parameter and its field on MemoryFilters; `default`
    the value that filters nothing. A filter whose narrowing is one condition on the row is
    a ConditionFilter; the others (a tier and a session's band, a period, a tag) apply
    themselves."""

    key: str
    default = None
    title = ""  # the form's label and the facet's heading
    description = ""  # the parameter in the OpenAPI document, MCP and the command's help
    schema: dict = {"type": "string"}  # the query parameter's JSON schema (OpenAPI)
    choices: tuple[tuple[str, str], ...] = ()  # (value, words) the list's form offers
    any_choice = "any"  # the form's words for no value
    in_mcp = False  # an argument of MCP's memory_search
    argument_schema: dict = {"type": "string"}  # its JSON schema there
    in_command = False  # an option of `memory list` and `memory search`
    metavar: str | None = None  # the command option's placeholder

    @property
    def command_help(self) -> str:
        return self.description

    @abstractmethod
    def form_field(self) -> forms.Field:
        """The form field that reads the parameter (blank: the default)."""

    @abstractmethod
    def apply(self, queryset: QuerySet, filters, scan: Scan) -> QuerySet:
        """`queryset` narrowed by this filter's value in `filters`."""

    @abstractmethod
    def words(self, filters) -> str | None:
        """The filter in words when it narrows, for summaries ('12 memories, expired')."""

    def choice_words(self, value) -> str:
        return dict(self.choices).get(value, str(value))


class ConditionFilter(Filter):
    """A filter that narrows by one condition on the row, when its value is not the default."""

    @abstractmethod
    def condition(self, value, scan: Scan) -> Q:
        """The condition its value sets."""

    def apply(self, queryset: QuerySet, filters, scan: Scan) -> QuerySet:
        value = getattr(filters, self.key)
        if value == self.default:
            return queryset
        return queryset.filter(self.condition(value, scan))


class _TierField(forms.Field):
    """`project` absent is every tier (ANY_TIER), empty the global tier (None), else a name."""

    def clean(self, value):
        try:
            return memory_fields.tier(value)
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None


class TierFilter(Filter):
    key = "project"
    default = ANY_TIER
    title = "Tier"
    description = "absent: every tier; empty: the global tier; a name: that tier"
    schema = {
        "type": "string",
        "pattern": f"^({memory_fields.NAME_RE.pattern})?$",
        "maxLength": memory_fields.PROJECT_NAME_MAX,
    }

    def form_field(self):
        return _TierField(required=False)

    def apply(self, queryset, filters, scan):
        """The tier, and the band of the session the filters are asked within."""
        tier = filters.tier_key()
        if tier is not None:
            queryset = queryset.filter(tier=tier)
        band = filters.band_tiers()
        return queryset if band is None else among(queryset, "tier", band)

    def words(self, filters):
        return None if filters.project is ANY_TIER else tiers.where(filters.project)


class _TrueOrFalseField(forms.CharField):
    def clean(self, value):
        value = (value or "").strip().lower()
        if value == "":
            return None
        if value not in BOOL_CHOICES:
            raise forms.ValidationError("expired is true or false.")
        return BOOL_CHOICES[value]


class ExpiredFilter(ConditionFilter):
    key = "expired"
    title = "Expiry"
    description = "true: only expired memories; false: only those in force"
    schema = {"type": "string", "enum": ["", *BOOL_CHOICES]}
    choices = (("true", "expired"), ("false", "in force"))
    in_mcp = in_command = True
    argument_schema = {"type": "boolean"}
    command_help = "only expired memories"

    def form_field(self):
        return _TrueOrFalseField(required=False)

    def condition(self, value, scan):
        if value:
            return scan.compare("expires_at", "lte", scan.now)
        return Q(expires_at__isnull=True) | scan.compare("expires_at", "gt", scan.now)

    def words(self, filters):
        return {True: "expired", False: "not expired"}.get(filters.expired)


class _PeriodField(forms.CharField):
    def to_python(self, value):
        value = super().to_python(value)
        try:
            memory_fields.period(value)
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None
        return value


class UnverifiedFilter(Filter):
    key = "unverified"
    title = "Unverified for"
    description = "not verified within this period: minutes, hours, days or weeks (90d, 12h, 2w)"
    schema = {"type": "string", "pattern": f"^({memory_fields.PERIOD_RE.pattern})?$"}
    choices = tuple(PERIOD_CHOICES)
    any_choice = "any time"
    in_mcp = in_command = True
    metavar = "PERIOD"

    def form_field(self):
        return _PeriodField(required=False, max_length=10, strip=False, empty_value=None)

    def apply(self, queryset, filters, scan):
        if not filters.unverified:
            return queryset
        try:
            cutoff = scan.now - memory_fields.period(filters.unverified)
        except OverflowError:
            # A period reaching back before year 1: nothing was verified that long ago.
            return queryset.none()
        return queryset.filter(scan.compare("verified_at", "lt", cutoff))

    def words(self, filters):
        if filters.unverified:
            return f"unverified for {memory_fields.period_words(filters.unverified)}"
        return None


class ReferencingFilter(ConditionFilter):
    key = "referencing"
    title = "Referencing"
    description = "memories whose references include this memory name, path, URL or id"
    schema = {"type": "string", "maxLength": memory_fields.MAX_REFERENCE_LENGTH, "pattern": NO_NUL}
    in_mcp = in_command = True
    metavar = "TARGET"

    def form_field(self):
        return forms.CharField(
            required=False, max_length=memory_fields.MAX_REFERENCE_LENGTH, empty_value=None
        )

    def condition(self, value, scan):
        citing = Reference.objects.filter(target=value).values("memory_id")
        return scan.compare("id", "in", citing)

    def words(self, filters):
        return f"referencing ‘{filters.referencing}’" if filters.referencing else None


class TagFilter(Filter):
    key = "tag"
    title = "Tag"
    description = "memories with this tag"
    schema = {"type": "string", "maxLength": memory_fields.MAX_TAG_LENGTH, "pattern": NO_NUL}
    in_command = True

    def form_field(self):
        return forms.CharField(
            required=False, max_length=memory_fields.MAX_TAG_LENGTH, empty_value=None
        )

    @staticmethod
    def rows(tag: str) -> QuerySet:
        """The tag's rows in any spelling: the filter finds a tag in any case."""
        return Tag.objects.alias(folded=Lower("tag")).filter(folded=Lower(Value(tag)))

    def apply(self, queryset, filters, scan):
        if not filters.tag:
            return queryset
        tagged = self.rows(filters.tag)
        if scan.walk_order:
            # Each row walked looks its own tags up: `id IN (...)` would first gather every
            # memory carrying the tag (bench/results/2026-12-02-quiet-9).
            return queryset.filter(Exists(tagged.filter(memory_id=OuterRef("id"))))
        return queryset.filter(scan.compare("id", "in", tagged.values("memory_id")))

    def words(self, filters):
        return f"tagged {filters.tag}" if filters.tag else None


class LoadFilter(ConditionFilter):
    key = "load"
    title = "Load"
    description = "memories of this load"
    schema = {"type": "string", "enum": ["", *memory_fields.LOADS]}
    choices = tuple((load, load) for load in memory_fields.LOADS)
    in_command = True
    metavar = "{" + ",".join(memory_fields.LOADS) + "}"

    def form_field(self):
        return forms.TypedChoiceField(
            required=False, choices=[("", "any load"), *self.choices], empty_value=None
        )

    def condition(self, value, scan):
        return scan.compare("load", "exact", value)

    def words(self, filters):
        return f"load {filters.load}" if filters.load else None


PRIORITY_BOUND = {
    "type": "integer",
    "minimum": memory_fields.PRIORITY_MIN,
    "maximum": memory_fields.PRIORITY_MAX,
}


class PriorityBound(ConditionFilter):
    """priority_min or priority_max; the lower bound's words say both."""

    schema = PRIORITY_BOUND

    def __init__(self, key: str, lookup: str, title: str, description: str):
        self.key, self.lookup, self.title, self.description = key, lookup, title, description

    def form_field(self):
        return forms.IntegerField(
            required=False,
            label=self.title,
            min_value=memory_fields.PRIORITY_MIN,
            max_value=memory_fields.PRIORITY_MAX,
        )

    def condition(self, value, scan):
        return Q(**{f"priority__{self.lookup}": value})

    def words(self, filters):
        low, high = filters.priority_min, filters.priority_max
        if self.lookup == "lte":
            return f"priority {high} or less" if high is not None and low is None else None
        if low is None:
            return None
        return f"priority {low}–{high}" if high is not None else f"priority {low} or more"


class ReadFilter(ConditionFilter):
    """Whether the agent ever read a memory through its read door."""

    key = "read"
    title = "Read by the agent"
    description = "never: memories the agent has never read through its read door"
    choices = (("never", "never read"),)
    schema = {"type": "string", "enum": ["", *dict(choices)]}
    argument_schema = {"type": "string", "enum": list(dict(choices))}
    in_mcp = in_command = True
    metavar = "{never}"

    def form_field(self):
        return forms.TypedChoiceField(
            required=False, choices=[("", self.any_choice), *self.choices], empty_value=None
        )

    def condition(self, value, scan):
        return Q(read_count=0)

    def words(self, filters):
        return self.choice_words(filters.read) if filters.read else None


class _MomentField(forms.CharField):
    """A date filter's bound as given (a date, an RFC 3339 moment or a period), checked here
    and read into a moment when applied, so a period counts from the moment of the read."""

    widget = forms.DateInput(attrs={"type": "date"})

    def __init__(self, bound: "DateBound", **kwargs):
        self.bound = bound
        super().__init__(required=False, max_length=64, empty_value=None, **kwargs)

    def to_python(self, value):
        value = super().to_python(value)
        if value is not None:
            try:
                self.bound.moment(value, timezone.now())
            except InvalidField as error:
                raise forms.ValidationError(error.message) from None
        return value


DATE_BOUND_SCHEMA = {
    "type": "string",
    "maxLength": 64,
    "pattern": (
        f"^$|^{memory_fields.PERIOD_RE.pattern}$|^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}"
        "([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?$"
    ),
    "description": "a date (2026-11-24: the whole day, server time), an RFC 3339 moment or a "
    "period from now (7d)",
}


class DateBound(ConditionFilter):
    """One end of a date range on a memory's moment: `recorded_since`, `verified_until`...

    `since` admits the memories whose moment is at or after the bound, `until` those at or
    before it (before the next day starts, for a date). A period counts back from now, or
    forward for the expiry (`expires_until=7d`: expiring within a week). A memory without the
    moment (never read, no expiry) is admitted by neither end."""

    schema = DATE_BOUND_SCHEMA
    argument_schema = DATE_BOUND_SCHEMA
    in_mcp = in_command = True
    metavar = "WHEN"

    def __init__(self, name: str, column: str, words: str, end: str, *, ahead: bool = False):
        self.name, self.column, self.verb, self.end, self.ahead = name, column, words, end, ahead
        self.key = f"{name}_{end}"
        self.title = f"{words.capitalize()} {end}"
        towards = "from now on" if ahead else "back from now"
        self.description = (
            f"memories {words} {'on or after' if end == 'since' else 'on or before'} this: a "
            f"date (the whole day, server time), an RFC 3339 moment or a period {towards} (7d)"
        )

    @property
    def until(self) -> bool:
        return self.end == "until"

    def moment(self, value, now) -> tuple[dt.datetime, str]:
        return memory_fields.moment_bound(
            value, now, field=self.key, until=self.until, ahead=self.ahead
        )

    def form_field(self):
        return _MomentField(self)

    def condition(self, value, scan):
        moment, lookup = self.moment(value, scan.now)
        return scan.compare(self.column, lookup, moment)

    def words(self, filters):
        value = getattr(filters, self.key)
        if value is None:
            return None
        if memory_fields.PERIOD_RE.fullmatch(value):
            span = memory_fields.period_words(value)
            if self.ahead:
                return f"{self.verb} {'within' if self.until else 'no sooner than'} {span}"
            return f"{self.verb} {'more than' if self.until else 'in the last'} {span}" + (
                " ago" if self.until else ""
            )
        return f"{self.verb} {self.end} {value}"


# A memory's moments a date range filters on: (parameter prefix, column, words).
DATES = (
    ("recorded", "created_at", "recorded"),
    ("verified", "verified_at", "verified"),
    ("updated", "updated_at", "updated"),
    ("read", "last_read_at", "last read"),
    ("expires", "expires_at", "expiring"),
)


class ChangedByFilter(ConditionFilter):
    """The memories a user or a token changed, from the revisions: a username as recorded
    (kept when the user is deleted), or `token:<id>` for one API token's changes."""

    key = "changed_by"
    title = "Changed by"
    description = "memories a user (a username) or a token (token:<id>) changed, by the history"
    schema = {"type": "string", "maxLength": 150, "pattern": NO_NUL}
    in_command = True
    metavar = "USER"

    def form_field(self):
        return _ChangedByField(required=False, max_length=150, empty_value=None)

    def condition(self, value, scan):
        if value.startswith("token:"):
            changed = Revision.objects.filter(token_id=int(value.removeprefix("token:")))
        else:
            changed = Revision.objects.filter(username=value)
        return scan.compare("id", "in", changed.values("memory_id"))

    def words(self, filters):
        value = filters.changed_by
        if value is None:
            return None
        if value.startswith("token:"):
            return f"changed with token {value.removeprefix('token:')}"
        return f"changed by {value}"


class _ChangedByField(forms.CharField):
    def to_python(self, value):
        value = super().to_python(value)
        if value is not None and value.startswith("token:"):
            number = value.removeprefix("token:")
            if not number.isdigit() or len(number) > 18:
                raise forms.ValidationError(
                    "a username or token:<id> (the token's number) is expected, not "
                    f"'{value[:40]}'."
                )
        return value


# In the order the form, the summary, the facets and the OpenAPI document list them.
FILTERS: tuple[Filter, ...] = (
    TierFilter(),
    ExpiredFilter(),
    UnverifiedFilter(),
    ReferencingFilter(),
    TagFilter(),
    LoadFilter(),
    PriorityBound("priority_min", "gte", "Priority from", "priority at least this"),
    PriorityBound("priority_max", "lte", "Priority to", "priority at most this"),
    ReadFilter(),
    *(
        DateBound(name, column, words, end, ahead=name == "expires")
        for name, column, words in DATES
        for end in ("since", "until")
    ),
    ChangedByFilter(),
)
BY_KEY = {flt.key: flt for flt in FILTERS}
TAG = BY_KEY["tag"]


class _Filtering:
    """The behaviour of MemoryFilters, whose fields are FILTERS' keys and `band`."""

    def tier_key(self) -> int | None:
        """The tier column's value for `project`, or None for every tier.

        A project's id is looked up once per filters object, however often they are applied.
        """
        if self.project is ANY_TIER:
            return None
        if self.project is None:
            return 0
        if "_project_id" not in self.__dict__:
            project = Project.objects.only("id").named(self.project)
            object.__setattr__(self, "_project_id", project.id)
        return self.__dict__["_project_id"]

    def band_tiers(self) -> tuple[int, ...] | None:
        """The tier keys of `band` within the caller's reach (memories.rules.reach), or None
        when neither a session's band nor a reach narrows the store."""
        band = self._session_tiers()
        seen = reach.current().seen
        if seen is None:
            return band
        if band is None:
            return tuple(sorted(seen))
        return tuple(tier for tier in band if tier in seen)

    def _session_tiers(self) -> tuple[int, ...] | None:
        if self.band is ANY_TIER:
            return None
        if self.band is None:
            return (tiers.GLOBAL_TIER,)
        if "_band_id" not in self.__dict__:
            project = Project.objects.only("id").named(self.band)
            object.__setattr__(self, "_band_id", project.id)
        return (tiers.GLOBAL_TIER, self.__dict__["_band_id"])

    def apply(
        self,
        queryset: QuerySet,
        now: dt.datetime | None = None,
        *,
        walk_order: bool = False,
        sparse: bool = False,
    ) -> QuerySet:
        """The filters' conditions on `queryset`.

        `walk_order` writes the conditions on expiry, verification, load, references and tags
        so that SQLite cannot look them up through their own indexes, and walks the sort's
        index instead, testing each row. Same rows; for a filter that admits many memories
        (unverified for 90 days on an old store) a page then reads about its own rows, where
        the lookup would fetch and sort every match.

        `sparse` is the other way round: it declares those conditions to admit few rows
        (see `likelihood`), so that SQLite looks them up rather than walking the sort's index
        past every row they reject (`load=inline`, 0.2% of the benchmark's store:
        bench/results/2026-12-01-pages).
        """
        scan = Scan(now or timezone.now(), walk_order, sparse and not walk_order)
        for flt in FILTERS:
            queryset = flt.apply(queryset, self, scan)
        return queryset

    def _without_tag(self) -> "MemoryFilters":
        """These filters but the tag, sharing the project ids they look up (once, here)."""
        self.tier_key(), self.band_tiers()
        untagged = replace(self, tag=None)
        for key in ("_project_id", "_band_id"):
            if key in self.__dict__:
                object.__setattr__(untagged, key, self.__dict__[key])
        return untagged

    def count_up_to(self, queryset: QuerySet, now: dt.datetime, bound: int) -> int:
        """How many rows of `queryset` the filters admit, up to `bound` + 1.

        A tag's are read off its rows in the tag index, each memory tested, as far as the
        bound: `id IN (...)` first gathered every memory of the tag, walking the memories
        testing the tag read far more rows, and a rare tag's walk every memory
        (bench/results/2026-12-03-run-17).
        """
        if not self.tag:
            return self.apply(queryset, now).order_by()[: bound + 1].count()
        others = self._without_tag().apply(queryset, now).filter(id=OuterRef("memory_id"))
        # A memory holding the tag in two spellings counts at its first: DISTINCT had SQLite
        # read the tag rows in memory order, every tag of every memory until the bound.
        earlier = TAG.rows(self.tag).filter(
            memory_id=OuterRef("memory_id"), position__lt=OuterRef("position")
        )
        tagged = TAG.rows(self.tag).filter(Exists(others.order_by().values("id")), ~Exists(earlier))
        return tagged.order_by()[: bound + 1].count()

    def count_bounded(self, queryset: QuerySet, now: dt.datetime, bound: int) -> tuple[int, bool]:
        """count_up_to as (at most `bound`, whether there are more)."""
        counted = self.count_up_to(queryset, now, bound)
        return min(counted, bound), counted > bound

    @property
    def active(self) -> bool:
        """Whether any filter narrows the store (the global tier, project None, does), or the
        caller's reach does."""
        return self.asks_anything or not reach.current().whole

    @property
    def asks_anything(self) -> bool:
        """Whether any filter or a session's band narrows the store, whatever the caller's
        reach: a count kept for every tier (memories.reads.tallies) is summed over the tiers
        the reach sees, so it answers for filters that ask nothing."""
        if self.band is not ANY_TIER:
            return True
        return any(getattr(self, flt.key) != flt.default for flt in FILTERS)

    def asks_only(self, *keys: str) -> bool:
        """Whether the filters narrow by nothing but these (and the session's band), so that
        a count kept for them (memories.reads.tallies) counts what the filters admit."""
        return all(getattr(self, flt.key) == flt.default for flt in FILTERS if flt.key not in keys)

    def labels(self) -> list[str]:
        """Each active filter in words, for summaries such as '12 memories in webdev, ...'."""
        return [words for flt in FILTERS if (words := flt.words(self))]

    def summary(self, count: int, *, searched: bool = False, more: bool = False) -> str:
        """`more`: there are more than `count` (a bounded count)."""
        noun = "memory" if count == 1 and not more else "memories"
        counted = f"more than {count}" if more else str(count)
        text = " ".join([f"{counted} {noun}", ", ".join(self.labels())]).strip()
        return text + ("" if searched else ", most important first")


# One field per filter, and `band`: what a session sees, ANY_TIER (no session), None (a
# session on no project: the global tier) or a project name (its tier and the global one).
# A session's own scope, so no filter of its own and no words.
MemoryFilters = make_dataclass(
    "MemoryFilters",
    [(flt.key, object, field(default=flt.default)) for flt in FILTERS]
    + [("band", object, field(default=ANY_TIER))],
    bases=(_Filtering,),
    frozen=True,
)
MemoryFilters.__module__ = __name__


class QueryListWidget(forms.MultipleHiddenInput):
    def value_from_datadict(self, data, files, name):
        getlist = getattr(data, "getlist", None)
        values = getlist(name) if getlist else data.get(name, [])
        if isinstance(values, str):
            values = [values]
        return [value for value in values if value.strip()]


class QueryListField(forms.Field):
    """`q` repeated for synonyms: q=terse&q=brevity is one search over both."""

    widget = QueryListWidget
    max_length = memory_fields.MAX_QUERY_CHARS  # of each synonym

    def to_python(self, value):
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        if len(value) > memory_fields.MAX_QUERIES:
            raise forms.ValidationError(
                f"At most {memory_fields.MAX_QUERIES} synonyms in one search."
            )
        if any(len(item) > self.max_length for item in value):
            raise forms.ValidationError(f"A search is at most {self.max_length} characters.")
        return [item.replace("\x00", " ") for item in value]


class _ModeField(forms.CharField):
    """Absent or empty: the default; given, exactly one of the modes (the document's enum)."""

    def clean(self, value):
        value = super().clean(value) or memory_fields.SEARCH_MODES[0]
        if value not in memory_fields.SEARCH_MODES:
            raise forms.ValidationError(memory_fields.SEARCH_MODE_MESSAGE)
        return value


class _SharedFields(dict):
    """The fields of a form whose instances change none of them (no choices or widgets set
    per request): shared by its instances where Django deep-copies them for each, which cost
    a filter form more than validating its parameters."""

    def __deepcopy__(self, memo):
        return dict(self)


class _FilterFormBase(FirstErrorMixin, forms.Form):
    def __init__(self, *args, **kwargs):
        form = type(self)
        if not isinstance(form.__dict__.get("base_fields"), _SharedFields):
            form.base_fields = _SharedFields(form.base_fields)
        super().__init__(*args, **kwargs)

    def filters(self) -> MemoryFilters:
        """The validated filters; call after is_valid()."""
        return MemoryFilters(
            **{flt.key: self.cleaned_data[flt.key] for flt in FILTERS if flt.key in self.fields}
        )


# The filters' fields, then a search's and a page's.
MemoryFilterForm = type(
    "MemoryFilterForm",
    (_FilterFormBase,),
    {
        "__module__": __name__,
        "__doc__": "Every filter's parameter, `q` (synonyms), `mode` and an offset page.",
        **{flt.key: flt.form_field() for flt in FILTERS},
        "q": QueryListField(required=False),
        "mode": _ModeField(required=False, max_length=10, strip=False),
        "limit": forms.IntegerField(required=False, min_value=1, max_value=500),
        "offset": forms.IntegerField(required=False, min_value=0, max_value=10_000_000),
    },
)
