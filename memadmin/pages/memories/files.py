"""One memory as a file, from its page: Markdown with its frontmatter (exactly what `memory
export` writes for it) or JSON (what /v1 answers for it). Neither counts as a read."""

import json

from django.http import HttpRequest, HttpResponse
from django.utils.http import content_disposition_header

from memadmin.web.responses import error_response
from memories.models import Memory
from memories.reads import backlinks
from memories.writes import snapshot

CONTENT_TYPES = {"md": "text/markdown; charset=utf-8", "json": "application/json"}


def memory_file(request: HttpRequest, memory: Memory, fmt: str) -> HttpResponse:
    if fmt not in CONTENT_TYPES:
        return error_response(request, 400, "format is md or json.")
    if fmt == "md":
        content = snapshot.render(memory)  # refused for a row no file can carry: its page says so
    else:
        content = json.dumps(backlinks.detail_dict(memory), ensure_ascii=False, indent=2)
    response = HttpResponse(content, content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{memory.name}.{fmt}"
    )
    return response
