from django.db import models

from memories.engine.lookups import name_shape
from memories.rules.errors import UnknownProject
from memories.rules.fields import rfc3339


class ProjectQuerySet(models.QuerySet):
    def names(self) -> list[str]:
        """Every project's name, in name order: the tier pickers' choices."""
        return list(self.order_by("name").values_list("name", flat=True))

    def names_by_id(self) -> dict[int, str]:
        return dict(self.values_list("id", "name"))

    def named(self, name: str) -> "Project":
        """The project of this name; a name no project has is refused (UnknownProject)."""
        try:
            return self.get(name=name)
        except self.model.DoesNotExist:
            raise UnknownProject(name) from None


class Project(models.Model):
    """A tier of memories beside the global one; sessions on the project see both."""

    name = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()

    objects = ProjectQuerySet.as_manager()

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
