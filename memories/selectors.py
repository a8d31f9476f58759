"""Reads of the store shared by pages, the API and commands: listing, lookup, backlinks."""

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, QuerySet

from memories.errors import AmbiguousName, MemoryNotFound, UnknownProject
from memories.filters import ANY_TIER, MemoryFilters
from memories.models import GLOBAL_TIER, Memory, Reference
from projects.models import Project

# Index order: most important first, then the most recently recorded within a priority.
INDEX_ORDER = ("priority", "-created_at", "-id")

SORTS = {
    "index": INDEX_ORDER,
    "name": ("name", "tier"),
    "-name": ("-name", "-tier"),
    "tier": ("tier", *INDEX_ORDER),
    "priority": INDEX_ORDER,
    "-priority": ("-priority", "-created_at", "-id"),
    "created": ("created_at", "id"),
    "-created": ("-created_at", "-id"),
    "verified": ("verified_at", "id"),
    "-verified": ("-verified_at", "-id"),
    "expires": ("expires_at", "id"),
    "-expires": ("-expires_at", "-id"),
    "read_count": ("read_count", "id"),
    "-read_count": ("-read_count", "-id"),
}


def memories(filters: MemoryFilters | None = None, *, sort: str = "index", now=None) -> QuerySet:
    """Every memory the filters admit, in index order unless another sort is named."""
    queryset = Memory.objects.select_related("project")
    if filters is not None:
        queryset = filters.apply(queryset, now)
    return queryset.order_by(*SORTS.get(sort, INDEX_ORDER))


@dataclass
class Page:
    memories: list[Memory]
    count: int


def list_memories(
    filters: MemoryFilters, *, limit: int = 50, offset: int = 0, sort: str = "index", now=None
) -> Page:
    queryset = memories(filters, sort=sort, now=now)
    return Page(memories=list(queryset[offset : offset + limit]), count=queryset.count())


def project_or_refuse(name: str) -> Project:
    try:
        return Project.objects.get(name=name)
    except Project.DoesNotExist:
        raise UnknownProject(name) from None


def locate(name: str, project=ANY_TIER, *, for_update: bool = False) -> Memory:
    """The memory a single-memory route names.

    `project` ANY_TIER finds the name in whichever tier holds it, refusing a name several
    projects hold; None is the global tier; a project name that tier (refused if unknown).
    """
    queryset = Memory.objects.select_related("project").filter(name=name)
    if project is ANY_TIER:
        found = list(queryset[:50])
        if not found:
            raise MemoryNotFound(name, anywhere=True)
        if len(found) > 1:
            raise AmbiguousName(name, sorted(m.project_name or "" for m in found))
        return found[0]
    tier = GLOBAL_TIER if project is None else project_or_refuse(project).id
    try:
        return queryset.get(tier=tier)
    except Memory.DoesNotExist:
        raise MemoryNotFound(name, project) from None


def referenced_by(memory: Memory) -> list[Memory]:
    """Memories whose references name this one, as seen from their own band.

    A project memory is cited by its own project's memories and by global ones; memories of
    another project citing the same name mean their own.
    """
    citing = Reference.objects.filter(target=memory.name).values("memory_id")
    queryset = Memory.objects.select_related("project").filter(id__in=citing)
    if memory.tier != GLOBAL_TIER:
        queryset = queryset.filter(tier__in=(GLOBAL_TIER, memory.tier))
    return list(queryset.exclude(id=memory.id).order_by(*INDEX_ORDER))


def backlink(citing: Memory) -> dict:
    """One entry of `referenced_by`, as the API and a delete's answer give it."""
    return {"name": citing.name, "project": citing.project_name, "description": citing.description}


def backlink_dicts(memory: Memory) -> list[dict]:
    return [backlink(m) for m in referenced_by(memory)]


@dataclass
class ResolvedReference:
    target: str
    memory: Memory | None  # None: dangling (a path, URL, id, or a note still to write)


def resolve_references(memory: Memory) -> list[ResolvedReference]:
    """Each reference with the memory it names, looked up in the citing memory's band."""
    if not memory.references:
        return []
    candidates = Memory.objects.select_related("project").filter(name__in=memory.references)
    by_name: dict[str, list[Memory]] = {}
    for candidate in candidates:
        by_name.setdefault(candidate.name, []).append(candidate)
    resolved = []
    for target in memory.references:
        options = by_name.get(target, [])
        in_band = [m for m in options if m.tier in (GLOBAL_TIER, memory.tier)]
        # A global memory citing a name only projects hold: resolve when just one does.
        if not in_band and memory.tier == GLOBAL_TIER and len(options) == 1:
            in_band = options
        resolved.append(ResolvedReference(target, in_band[0] if in_band else None))
    return resolved


def dangling_references() -> QuerySet:
    """References whose target no memory in any tier is named."""
    named = Memory.objects.filter(name=OuterRef("target"))
    return (
        Reference.objects.select_related("memory", "memory__project")
        .filter(~Exists(named))
        .order_by("target", "memory_id")
    )


def tier_label(project_name: str | None) -> str:
    return "global" if project_name is None else project_name
