"""The dashboard's error pages and the CSRF refusal."""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from memadmin.web.middleware import BodyTooLarge
from memadmin.web.responses import error_response
from memories.rules.fields import BULK_LIMIT


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if isinstance(exception, BodyTooLarge):
        return error_response(request, 413, exception.sentence)
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024
        return error_response(
            request,
            413,
            f"The form is larger than this server accepts ({limit:g} MiB); nothing was saved.",
        )
    if isinstance(exception, TooManyFieldsSent):
        return error_response(
            request,
            400,
            f"The form sent more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields; a bulk "
            f"action takes at most {BULK_LIMIT:,} memories at a time: select fewer, or act on "
            "every row matching narrower filters.",
        )
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
