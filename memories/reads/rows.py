"""Memories built from the columns a plain statement returns, through each field's database
converters, as a queryset would build them (with their project, and only the fields asked
for). For the reads of every request: compiling a queryset costs ten times the statement."""

import functools
import threading

from django.db import DEFAULT_DB_ALIAS, connections

from memories.models import INDEX_ORDER, Memory
from projects.models import Project

M = Memory._meta.db_table
PROJECTS = Project._meta.db_table
EVERY_FIELD = tuple(f.attname for f in Memory._meta.concrete_fields)


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


class Loader:
    _local = threading.local()  # connections are per thread, and so are their loaders

    @classmethod
    def for_connection(cls, db, attnames: tuple[str, ...] = EVERY_FIELD) -> "Loader":
        loaders = getattr(cls._local, "loaders", None)
        if loaders is None or loaders[0] is not db:
            loaders = cls._local.loaders = (db, {})
        loader = loaders[1].get(attnames)
        if loader is None:
            loader = loaders[1][attnames] = cls(db, memory_fields(attnames))
        return loader

    def __init__(self, db, fields: tuple):
        self.db = db
        self.split = len(fields)
        self.memory_converters = self._converters(Memory, fields)
        self.project_converters = self._converters(Project, Project._meta.concrete_fields)
        self.memory_attnames = [f.attname for f in fields]
        self.project_attnames = [f.attname for f in Project._meta.concrete_fields]
        self.project_field = Memory._meta.get_field("project")

    def _converters(self, model, fields):
        converters = []
        for index, model_field in enumerate(fields):
            column = model_field.get_col(model._meta.db_table)
            functions = self.db.ops.get_db_converters(column)
            functions += model_field.get_db_converters(self.db)
            if functions:
                converters.append((index, column, functions))
        return converters

    def _build(self, model, attnames, converters, values: list):
        for index, column, functions in converters:
            for convert in functions:
                values[index] = convert(values[index], column, self.db)
        return model.from_db(self.db.alias, attnames, values)

    def memories(self, rows) -> list[Memory]:
        """One Memory per row; the rows of one project share one Project."""
        split = self.split
        projects: dict[int, Project] = {}
        memories = []
        for values in rows:
            memory = self._build(
                Memory, self.memory_attnames, self.memory_converters, list(values[:split])
            )
            if memory.project_id is not None:
                project = projects.get(memory.project_id)
                if project is None:
                    project = projects[memory.project_id] = self._build(
                        Project,
                        self.project_attnames,
                        self.project_converters,
                        list(values[split:]),
                    )
                self.project_field.set_cached_value(memory, project)
            memories.append(memory)
        return memories
