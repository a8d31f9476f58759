"""The doors of projects: add, rename (its memories move with it), remove (refused while any
memory remains). Each change is recorded in the history with who made it, as the memory
doors record theirs."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from memories.rules import fields, reach, tiers
from memories.rules.errors import ProjectExists, ProjectNotEmpty
from memories.writes import history
from projects.models import Project


def add(name: str) -> Project:
    name = fields.project_name(name, field="name")
    reach.refuse_store_change("add a project")
    with transaction.atomic():
        if Project.every.filter(name=name).exists():
            raise ProjectExists(name)
        try:
            project = Project.objects.create(name=name, created_at=timezone.now())
        except IntegrityError:
            raise ProjectExists(name) from None
        history.record_project(history.PROJECT_ADD, project)
        return project


def rename(name: str, new_name: str) -> Project:
    """Memories follow the project row (they hold its id), so they move with the rename."""
    new_name = fields.project_name(new_name, field="name")
    with transaction.atomic():
        project = Project.objects.named(name)
        reach.refuse_change(project.id, tiers.phrase(project.name))
        if new_name == project.name:
            return project
        if Project.every.filter(name=new_name).exists():
            raise ProjectExists(new_name)
        previous_name = project.name
        project.name = new_name
        project.save(update_fields=["name"])
        history.record_project(history.PROJECT_RENAME, project, previous_name=previous_name)
        return project


def remove(name: str) -> None:
    with transaction.atomic():
        project = Project.objects.named(name)
        reach.refuse_change(project.id, tiers.phrase(project.name))
        count = project.memories.count()
        if count:
            raise ProjectNotEmpty(name, count)
        history.record_project(history.PROJECT_REMOVE, project)
        project.delete()
