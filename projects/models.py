from collections.abc import Iterable

from django.core.exceptions import EmptyResultSet
from django.db import models
from django.db.models.sql.where import AND

from memories.engine.lookups import name_shape
from memories.rules import reach
from memories.rules.errors import UnknownProject
from memories.rules.fields import rfc3339


class _Among(models.Lookup):
    """`column IN (keys)` for keys that are whole numbers already: In's preparing and quoting
    of each value, at every compile, left out."""

    lookup_name = "among"

    def get_prep_lookup(self):
        return self.rhs

    def as_sql(self, compiler, connection):
        if not self.rhs:
            raise EmptyResultSet
        column, params = compiler.compile(self.lhs)
        return f"{column} IN ({', '.join(['%s'] * len(self.rhs))})", [*params, *self.rhs]


def among(queryset: models.QuerySet, field: str, keys: Iterable[int]) -> models.QuerySet:
    """`queryset` cut to the rows whose `field`, a column of its own model, is one of `keys`
    (tier keys or ids).

    The condition is put on the column as it is: `filter(field__in=keys)` resolved the name
    and built and prepared an `In` afresh on each call, most of what a one-project grant added
    to a page of the list (bench/results/2026-12-05-grants3).
    """
    narrowed = queryset.all()
    query = narrowed.query
    column = query.model._meta.get_field(field).get_col(query.get_initial_alias())
    query.where.add(_Among(column, tuple(sorted(keys))), AND)
    return narrowed


class Reached(models.Manager):
    """The default manager of the rows of tiers: narrowed to the tiers the caller's reach sees
    (memories.rules.reach), so every ordinary read of the store stops at a grant's edge
    without saying so. `lookups` are the row's tier keys, each of which must be seen.
    A model's `every` manager reads past it, for the rules that span the store (a name
    once across tiers, a project's name once)."""

    def __init__(self, *lookups: str):
        super().__init__()
        self.lookups = lookups

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        return name, path, self.lookups, kwargs

    def get_queryset(self) -> models.QuerySet:
        found = super().get_queryset()
        seen = reach.current().seen
        if seen is None:
            return found
        for lookup in self.lookups:
            if lookup.isidentifier() and "__" not in lookup:
                found = among(found, lookup, seen)
                continue
            nullable = lookup.endswith("?")
            lookup = lookup.rstrip("?")
            kept = models.Q(**{f"{lookup}__in": seen})
            found = found.filter(
                kept | models.Q(**{f"{lookup}__isnull": True}) if nullable else kept
            )
        return found


class ProjectQuerySet(models.QuerySet):
    def names(self) -> list[str]:
        """Every project's name the caller's reach sees, in name order: the tier pickers'
        choices."""
        return list(self.order_by("name").values_list("name", flat=True))

    def names_by_id(self) -> dict[int, str]:
        return dict(self.values_list("id", "name"))

    def named(self, name: str) -> "Project":
        """The project of this name; a name no project has is refused (UnknownProject), and
        so, through `Project.objects`, is one the caller's reach does not see: a grant's edge
        tells nothing of what lies past it."""
        try:
            project = self.get(name=name)
        except self.model.DoesNotExist:
            raise UnknownProject(name) from None
        return project


class Project(models.Model):
    """A tier of memories beside the global one; sessions on the project see both."""

    name = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()

    objects = Reached.from_queryset(ProjectQuerySet)("id")
    every = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=name_shape(64), name="project_name_shape"),
        ]

    def __str__(self) -> str:
        return self.name

    def to_dict(self) -> dict:
        """GET /v1/projects fields; memory_count comes from projects.reads.projects()."""
        return {
            "name": self.name,
            "created_at": rfc3339(self.created_at),
            "memory_count": getattr(self, "memory_count", None),
        }
