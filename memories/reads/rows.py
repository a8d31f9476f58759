"""Memories built from the columns a plain statement returns, through each field's database
converters, as a queryset would build them (with their project, and only the fields asked
for). For the reads of every request: compiling a queryset costs ten times the statement."""

import datetime as dt
import functools
import threading

from django.db import DEFAULT_DB_ALIAS, connections

from memories import engine
from memories.models import INDEX_ORDER, Memory
from memories.rules import reach
from projects.models import Project

M = Memory._meta.db_table
PROJECTS = Project._meta.db_table
EVERY_FIELD = tuple(f.attname for f in Memory._meta.concrete_fields)


def db_time(moment: dt.datetime):
    """A moment as the store's connection binds it in a plain statement."""
    return connections[DEFAULT_DB_ALIAS].ops.adapt_datetimefield_value(moment)


@functools.cache
def memory_fields(attnames: tuple[str, ...] = EVERY_FIELD) -> tuple:
    """The concrete fields of these attnames, in the model's order (as from_db wants them)."""
    return tuple(f for f in Memory._meta.concrete_fields if f.attname in attnames)


@functools.cache
def columns(attnames: tuple[str, ...] = EVERY_FIELD) -> str:
    """The select list Loader reads: those memory columns, then every project column (NULL
    for a global memory: the statement joins the project LEFT)."""
    return ", ".join(
        [f'{M}."{f.column}"' for f in memory_fields(attnames)]
        + [f'{PROJECTS}."{f.column}"' for f in Project._meta.concrete_fields]
    )


@functools.cache
def _order(keys: tuple[str, ...]) -> str:
    return ", ".join(
        f'{M}."{Memory._meta.get_field(key.lstrip("-")).column}"'
        + (" DESC" if key[0] == "-" else "")
        for key in keys
    )


def ids(where: str, params: list, *, order: tuple[str, ...], limit: int) -> list[int]:
    """The ids of the memories matching `where` (a condition on M's columns with its %s
    params), in `order`, the first `limit`."""
    sql = f'SELECT {M}."id" FROM {M} WHERE {where} ORDER BY {_order(order)} LIMIT {int(limit)}'
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def select(
    where: str,
    params: list,
    *,
    attnames: tuple[str, ...] = EVERY_FIELD,
    order: tuple[str, ...] = INDEX_ORDER,
    limit: int | None = None,
) -> list[Memory]:
    """The memories (with their project) matching `where`, a condition on the columns of
    M and PROJECTS with its %s params, in `order`."""
    db = connections[DEFAULT_DB_ALIAS]
    sql = (
        f"SELECT {columns(attnames)} FROM {M} LEFT JOIN {PROJECTS} "
        f'ON {PROJECTS}."id" = {M}."project_id" WHERE {where}'
        + (f" ORDER BY {_order(order)}" if order else "")
        + (f" LIMIT {int(limit)}" if limit is not None else "")
    )
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    return Loader.for_connection(db, attnames).memories(found)


class ModelRows:
    """Instances of a model (only the fields of `attnames`) built from a statement's rows,
    through each field's converters; one per model, fields and connection of a thread."""

    _local = threading.local()  # connections are per thread, and so are their converters

    @classmethod
    def of(cls, db, model, attnames: tuple[str, ...] | None = None) -> "ModelRows":
        cached = getattr(cls._local, "cached", None)
        if cached is None or cached[0] is not db:
            cached = cls._local.cached = (db, {})
        built = cached[1].get((model, attnames))
        if built is None:
            built = cached[1][(model, attnames)] = cls(db, model, attnames)
        return built

    def __init__(self, db, model, attnames: tuple[str, ...] | None):
        fields = [
            f for f in model._meta.concrete_fields if attnames is None or f.attname in attnames
        ]
        self.db, self.model = db, model
        self.width = len(fields)
        self.attnames = [f.attname for f in fields]
        self.converters = []
        for index, field in enumerate(fields):
            column = field.get_col(model._meta.db_table)
            functions = db.ops.get_db_converters(column) + field.get_db_converters(db)
            if functions:
                self.converters.append((index, column, functions))

    def convert(self, values) -> list:
        """The values of its columns, in the model's field order, through their converters."""
        values = list(values)
        for index, column, functions in self.converters:
            for convert in functions:
                values[index] = convert(values[index], column, self.db)
        return values

    def build(self, values):
        """One instance from the values of its columns, in the model's field order."""
        return self.model.from_db(self.db.alias, self.attnames, self.convert(values))


class Loader:
    """Memories with their project from rows of `columns(attnames)`."""

    @classmethod
    def for_connection(cls, db, attnames: tuple[str, ...] = EVERY_FIELD) -> "Loader":
        return cls(ModelRows.of(db, Memory, attnames), ModelRows.of(db, Project))

    def __init__(self, memory_rows: ModelRows, project_rows: ModelRows):
        self.memory_rows, self.project_rows = memory_rows, project_rows
        self.project_field = Memory._meta.get_field("project")

    def memories(self, rows) -> list[Memory]:
        """One Memory per row; the rows of one project share one Project."""
        split = self.memory_rows.width
        projects: dict[int, Project] = {}
        memories = []
        for values in rows:
            memory = self.memory_rows.build(values[:split])
            if memory.project_id is not None:
                project = projects.get(memory.project_id)
                if project is None:
                    project = projects[memory.project_id] = self.project_rows.build(values[split:])
                self.project_field.set_cached_value(memory, project)
            memories.append(memory)
        return memories


def by_id(ids: list[int]) -> dict[int, Memory]:
    """Those memories (with their project) by id, as `Memory.objects.in_bulk` gives them: an
    id not found, or in a tier the caller's reach does not see, is left out."""
    if not ids:
        return {}
    where, params = f'{M}."id" IN ({", ".join(["%s"] * len(ids))})', list(ids)
    seen = reach.current().seen
    if seen is not None:
        where += f' AND {M}."tier" IN ({", ".join(["%s"] * len(seen)) or "NULL"})'
        params += list(seen)
    found = select(where, params, order=())
    return {memory.id: memory for memory in found}


def in_order(
    ids: list[int],
    where: str | None,
    params: list,
    attnames: tuple[str, ...],
    limit: int | None = None,
) -> list[list]:
    """The values of `attnames` (through their converters, in that order) of those of the
    memories `ids` that `where` admits (a condition on M's columns with its
    %s params; None: every memory), in the order of `ids`, the first `limit` of them: what
    a read by meaning asks of its neighbours, most similar first. Values rather than
    memories: building a Memory costs more than reading its row."""
    if not ids:
        return []
    db = connections[DEFAULT_DB_ALIAS]
    ranked, ranked_params = engine.of(db).statements.ordered_values(ids)
    selected = ", ".join(f'{M}."{f.column}"' for f in memory_fields(attnames))
    sql = (
        f'SELECT {selected} FROM ({ranked}) AS ranked JOIN {M} ON {M}."id" = ranked.value'
        + (f" WHERE {where}" if where else "")
        + " ORDER BY ranked.place"
        + (f" LIMIT {int(limit)}" if limit is not None else "")
    )
    with db.cursor() as cursor:
        cursor.execute(sql, [*ranked_params, *params])
        found = cursor.fetchall()
    columns = ModelRows.of(db, Memory, attnames)
    picked = [columns.attnames.index(name) for name in attnames]
    return [[values[i] for i in picked] for values in map(columns.convert, found)]
