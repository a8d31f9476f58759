"""The dashboard's own pages: the overview, error pages and the CSRF refusal."""

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET

from memadmin.access import requires_role
from memadmin.http import HtmxHttpRequest, render_page
from memadmin.responses import error_response
from memories import selectors


@require_GET
@requires_role()
def overview(request: HtmxHttpRequest) -> HttpResponse:
    return render_page(request, "memadmin/overview.html", {"overview": selectors.overview()})


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 400, "The request could not be read.")


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 403, "You may not do this.")


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 404, "There is no page at this address.")


def server_error(request: HttpRequest) -> HttpResponse:
    return HttpResponse(render_to_string("500.html"), status=500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return error_response(
        request,
        403,
        "The form was sent without a valid security token (CSRF); reload the page and try "
        "again. Nothing was changed.",
    )
