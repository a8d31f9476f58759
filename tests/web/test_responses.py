"""plain_json: the graphs' answers, byte for byte what JsonResponse writes."""

import pytest
from django.http import JsonResponse

from memadmin.web.responses import plain_json

HOSTILE = [
    "".join(chr(code) for code in range(0x250)),  # every control character, quotes, slashes
    "\u2028\u2029\ufeff\ue000\uffff\U0010ffff",
    "日本語のメモ 😀",
    "</script><!--&'\"\\/",
    "C:\\deploy\\run.ps1",
    "https://wiki.example.com/ops/deploy?x=1&y=2#top",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_plain_json_writes_the_bytes_json_writes(text):
    data = {
        text: text,
        "nodes": [{"id": "t" + text, "degree": 3, "priority": -2, "expired": False}],
        "edges": [],
        "centre": None,
        "capped": True,
        "empty": {},
        "big": 2**63,
    }
    expected = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response = plain_json(data)
    assert response.content == expected.content
    assert response["Content-Type"] == expected["Content-Type"]
