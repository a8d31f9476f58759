from django.db.models import Count, QuerySet

from projects.models import Project


def projects() -> QuerySet:
    """Every project with its memory_count, by name."""
    return Project.objects.annotate(memory_count=Count("memories")).order_by("name")
