"""The filters of the list, search, API and pages: one form parses them, one object applies them.

Query parameter names and values are the API's (`project`, `expired=true`, `unverified=90d`,
`referencing`, `tag`, `load`, `q`), so a URL moves between a page and /v1.
"""

import datetime as dt
from dataclasses import dataclass, fields, replace

from django import forms
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.utils import timezone

from memories.engine.hints import Unindexed, likelihood
from memories.models import Memory, Reference, Tag
from memories.reads.params import TierForm
from memories.rules import fields as memory_fields
from memories.rules import tiers
from memories.rules.errors import InvalidField
from memories.rules.tiers import ANY_TIER
from projects.models import Project

# The share of rows a condition is declared to admit when it admits most of them, or few.
DENSE, SPARSE = 0.9, 0.05


@dataclass(frozen=True)
class MemoryFilters:
    project: object = ANY_TIER  # ANY_TIER, None (the global tier) or a project name
    # What a session sees: ANY_TIER (no session), None (a session on no project: the global
    # tier) or a project name (its tier and the global one). A session's own scope, so no label.
    band: object = ANY_TIER
    expired: bool | None = None
    unverified: str | None = None  # a period such as "90d"
    referencing: str | None = None
    tag: str | None = None
    load: str | None = None
    priority_min: int | None = None
    priority_max: int | None = None

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
        """The tier keys of `band`, or None when no session's band narrows the store."""
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
        the lookup would fetch and sort every match (0.2 ms against 470 ms at 100,000).

        `sparse` is the other way round: it declares those conditions to admit few rows
        (see `likelihood`), so that SQLite looks them up rather than walking the sort's index
        past every row they reject (`load=inline`, 200 of 100,000 memories: 0.3 ms against
        22 ms walked).
        """
        now = now or timezone.now()
        column = _walked if walk_order else (_declared_sparse if sparse else F)
        tier = self.tier_key()
        if tier is not None:
            queryset = queryset.filter(tier=tier)
        band = self.band_tiers()
        if band is not None:
            queryset = queryset.filter(tier__in=band)
        if self.expired is True:
            queryset = queryset.filter(_compare(column, "expires_at", "lte", now))
        elif self.expired is False:
            queryset = queryset.filter(
                Q(expires_at__isnull=True) | _compare(column, "expires_at", "gt", now)
            )
        if self.unverified:
            try:
                cutoff = now - memory_fields.period(self.unverified)
            except OverflowError:
                # A period reaching back before year 1: nothing was verified that long ago.
                return queryset.none()
            queryset = queryset.filter(_compare(column, "verified_at", "lt", cutoff))
        if self.referencing:
            citing = Reference.objects.filter(target=self.referencing).values("memory_id")
            queryset = queryset.filter(_compare(column, "id", "in", citing))
        if self.tag:
            tagged = self._tag_rows()
            if walk_order:
                # Each row walked looks its own tags up: `id IN (...)` would first gather every
                # memory carrying the tag (52 ms for a common one at 1,000,000; 1.4 walked).
                queryset = queryset.filter(Exists(tagged.filter(memory_id=OuterRef("id"))))
            else:
                queryset = queryset.filter(_compare(column, "id", "in", tagged.values("memory_id")))
        if self.load:
            queryset = queryset.filter(_compare(column, "load", "exact", self.load))
        if self.priority_min is not None:
            queryset = queryset.filter(priority__gte=self.priority_min)
        if self.priority_max is not None:
            queryset = queryset.filter(priority__lte=self.priority_max)
        return queryset

    def _tag_rows(self) -> QuerySet:
        """The tag's rows in any spelling: the filter finds a tag in any case."""
        return Tag.objects.alias(folded=Lower("tag")).filter(folded=Lower(Value(self.tag)))

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
        bound: `id IN (...)` first gathered every memory of the tag (80 ms for one on 15% of
        1,000,000 memories, to count 2,000 of its orphans), walking the memories testing the
        tag read 27,000 rows for them (72 ms), and a rare tag's walk every memory.
        """
        if not self.tag:
            return self.apply(queryset, now).order_by()[: bound + 1].count()
        others = self._without_tag().apply(queryset, now).filter(id=OuterRef("memory_id"))
        # A memory holding the tag in two spellings counts at its first: DISTINCT had SQLite
        # read the tag rows in memory order, every tag of every memory until the bound.
        earlier = self._tag_rows().filter(
            memory_id=OuterRef("memory_id"), position__lt=OuterRef("position")
        )
        tagged = self._tag_rows().filter(Exists(others.order_by().values("id")), ~Exists(earlier))
        return tagged.order_by()[: bound + 1].count()

    def count_bounded(self, queryset: QuerySet, now: dt.datetime, bound: int) -> tuple[int, bool]:
        """count_up_to as (at most `bound`, whether there are more)."""
        counted = self.count_up_to(queryset, now, bound)
        return min(counted, bound), counted > bound

    @property
    def active(self) -> bool:
        """Whether any filter narrows the store (the global tier, project None, does)."""
        scopes = ("project", "band")
        if any(getattr(self, name) is not ANY_TIER for name in scopes):
            return True
        return any(getattr(self, f.name) is not None for f in fields(self) if f.name not in scopes)

    def labels(self) -> list[str]:
        """Each active filter in words, for summaries such as '12 memories in webdev, ...'."""
        parts = []
        if self.project is not ANY_TIER:
            parts.append(tiers.where(self.project))
        if self.expired is True:
            parts.append("expired")
        elif self.expired is False:
            parts.append("not expired")
        if self.unverified:
            parts.append(f"unverified for {memory_fields.period_words(self.unverified)}")
        if self.referencing:
            parts.append(f"referencing ‘{self.referencing}’")
        if self.tag:
            parts.append(f"tagged {self.tag}")
        if self.load:
            parts.append(f"load {self.load}")
        if self.priority_min is not None and self.priority_max is not None:
            parts.append(f"priority {self.priority_min}–{self.priority_max}")
        elif self.priority_min is not None:
            parts.append(f"priority {self.priority_min} or more")
        elif self.priority_max is not None:
            parts.append(f"priority {self.priority_max} or less")
        return parts

    def summary(self, count: int, *, searched: bool = False, more: bool = False) -> str:
        """`more`: there are more than `count` (a bounded count)."""
        noun = "memory" if count == 1 and not more else "memories"
        counted = f"more than {count}" if more else str(count)
        text = " ".join([f"{counted} {noun}", ", ".join(self.labels())]).strip()
        return text + ("" if searched else ", most important first")


def _walked(name: str) -> Unindexed:
    """The column's value, which the planner will not look up through an index."""
    return Unindexed(F(name), output_field=Memory._meta.get_field(name))


def _declared_sparse(name: str) -> F:
    """The column as it is; `_compare` declares a condition on it sparse."""
    return F(name)


def _compare(column, name: str, lookup: str, value) -> Q:
    """`column(name) <lookup> value` as a filter condition."""
    expression = column(name)
    if isinstance(expression, F):
        condition = Q(**{f"{name}__{lookup}": value})
        return Q(likelihood(condition, SPARSE)) if column is _declared_sparse else condition
    return Q(expression.get_lookup(lookup)(expression, value))


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


# The periods the pages offer for `unverified=`, which takes any period (`12h`, `2w`).
PERIOD_CHOICES = [
    ("7d", "a week"),
    ("30d", "30 days"),
    ("90d", "90 days"),
    ("180d", "180 days"),
    ("365d", "a year"),
]
BOOL_CHOICES = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


class MemoryFilterForm(TierForm):
    expired = forms.CharField(required=False)
    unverified = forms.CharField(required=False, max_length=10, strip=False)
    referencing = forms.CharField(required=False, max_length=memory_fields.MAX_REFERENCE_LENGTH)
    tag = forms.CharField(required=False, max_length=memory_fields.MAX_TAG_LENGTH)
    load = forms.ChoiceField(
        required=False, choices=[("", "any load")] + [(x, x) for x in memory_fields.LOADS]
    )
    priority_min = forms.IntegerField(
        required=False, min_value=memory_fields.PRIORITY_MIN, max_value=memory_fields.PRIORITY_MAX
    )
    priority_max = forms.IntegerField(
        required=False, min_value=memory_fields.PRIORITY_MIN, max_value=memory_fields.PRIORITY_MAX
    )
    q = QueryListField(required=False)
    mode = forms.CharField(required=False, max_length=10)
    limit = forms.IntegerField(required=False, min_value=1, max_value=500)
    offset = forms.IntegerField(required=False, min_value=0, max_value=10_000_000)

    def clean_expired(self):
        value = self.cleaned_data["expired"].strip().lower()
        if value == "":
            return None
        if value not in BOOL_CHOICES:
            raise forms.ValidationError("expired is true or false.")
        return BOOL_CHOICES[value]

    def clean_unverified(self):
        value = self.cleaned_data["unverified"]
        if not value:
            return None
        try:
            memory_fields.period(value)
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None
        return value

    def clean_referencing(self):
        return self.cleaned_data["referencing"].strip() or None

    def clean_tag(self):
        return self.cleaned_data["tag"].strip() or None

    def clean_load(self):
        return self.cleaned_data["load"] or None

    def clean_mode(self):
        # Absent or empty: the default; given, exactly one of the modes (the document's enum).
        value = self.data.get("mode") or memory_fields.SEARCH_MODES[0]
        if value not in memory_fields.SEARCH_MODES:
            raise forms.ValidationError(memory_fields.SEARCH_MODE_MESSAGE)
        return value

    def filters(self) -> MemoryFilters:
        """The validated filters; call after is_valid()."""
        return MemoryFilters(
            **{
                f.name: self.cleaned_data.get(f.name)
                for f in fields(MemoryFilters)
                if f.name in self.fields
            }
        )
