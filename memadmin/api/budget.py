"""/v1/budget: the inline band of every tier against the budget, and index usage."""

from django.http import HttpRequest

from memadmin.api.auth import READ, authorize
from memadmin.api.responses import ok
from memories.reads.budget_report import budget_report


@authorize(READ)
def budget(request: HttpRequest):
    return ok(budget_report().to_dict())
