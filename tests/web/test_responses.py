"""plain_json: the graphs' answers, what JsonResponse says, in compact JSON."""

import json

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
def test_plain_json_says_what_json_says(text):
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
    assert json.loads(response.content) == json.loads(expected.content) == data
    # Each character as JsonResponse writes it (the text raw, controls escaped), the spaces
    # after separators aside.
    compact = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    assert response.content == compact
    assert response["Content-Type"] == expected["Content-Type"]
