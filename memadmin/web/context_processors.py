from django.http import HttpRequest

from memadmin.accounts import roles
from memadmin.web import static
from memadmin.web.access import has_role, request_role
from memories.rules import reach


def role(request: HttpRequest) -> dict:
    """What the signed-in user may do, so templates show an edit control only to a writer."""
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {
            "role": None,
            "can_write": False,
            "can_add_projects": False,
            "can_administer": False,
        }
    can_write = has_role(request, roles.OPERATOR)
    return {
        "role": request_role(request),
        "can_write": can_write,
        # An operator of named tiers changes those, and adds no project (reach.changes_store).
        "can_add_projects": can_write and reach.changes_store(),
        "can_administer": has_role(request, roles.ADMIN),
    }


def static_files(request: HttpRequest) -> dict:
    """The key of fragments linking static files ({% drawn_once static_files %})."""
    return {"static_files": static.addresses_key()}
