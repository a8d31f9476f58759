"""Finding memories: one by name in a tier (refused when unknown or ambiguous), several by id
or by name."""

from django.db.models import QuerySet

from memories.models import GLOBAL_TIER, INDEX_ORDER, Memory
from memories.reads import rows
from memories.rules import reach
from memories.rules.errors import AmbiguousName, MemoryNotFound
from memories.rules.tiers import ANY_TIER
from projects.models import Project


def memories_by_id(ids) -> list[Memory]:
    """The memories of these ids that still exist and the caller's reach sees, in index
    order."""
    found = Memory.objects.select_related("project").filter(id__in=ids)
    return list(seen(found).order_by(*INDEX_ORDER))


def seen(memories: QuerySet) -> QuerySet:
    """`memories` narrowed to the tiers the caller's reach sees."""
    tiers = reach.current().seen
    return memories if tiers is None else memories.filter(tier__in=tiers)


def _seen_rows(found: list[Memory]) -> list[Memory]:
    return [memory for memory in found if reach.current().sees(memory.tier)]


def locate(name: str, project=ANY_TIER) -> Memory:
    """The memory a single-memory route names.

    `project` ANY_TIER finds the name in whichever tier holds it, refusing a name several
    projects hold; None is the global tier; a project name that tier (refused if unknown).
    """
    where, params = f'{rows.M}."name" = %s', [name]
    if project is ANY_TIER:
        found = _seen_rows(rows.select(where, params, order=(), limit=50))
        if not found:
            raise MemoryNotFound(name, anywhere=True)
        if len(found) > 1:
            raise AmbiguousName(name, sorted(m.project_name or "" for m in found))
        return found[0]
    if project is None:
        where, params = f'{where} AND {rows.M}."tier" = %s', [*params, GLOBAL_TIER]
    else:
        # One query for the usual case; the project is looked up alone only to tell an
        # unknown project from a memory missing from a known one.
        where, params = f'{where} AND {rows.PROJECTS}."name" = %s', [*params, project]
    found = _seen_rows(rows.select(where, params, order=(), limit=1))
    if found:
        return found[0]
    if project is not None:
        Project.objects.named(project)
    raise MemoryNotFound(name, project)


def locate_in_band(name: str, project: str | None) -> Memory:
    """The memory a session on `project` (None: a session on no project) means by `name`.

    The session sees the global tier and its project's, which never hold the same name (the
    cross-tier rule), so a name means one memory there. An unknown project is refused.
    """
    tiers = [GLOBAL_TIER]
    if project is not None:
        tiers.append(Project.objects.only("id").named(project).id)
    tiers = reach.current().seen_of(tiers)
    found = Memory.objects.select_related("project").filter(name=name, tier__in=tiers).first()
    if found is None:
        raise MemoryNotFound(name, project, band=True)
    return found


def ids_named(named) -> list[int]:
    """The ids of the memories (name, tier) pairs name, each found as `locate` finds it: an
    unknown or ambiguous one refuses them all."""
    return [locate(name, project).id for name, project in named]
