"""The credential rule on its own: 40 shapes found (kind and line), 40 look-alikes let through,
the mask hiding every part of the credential, and who may allow one."""

import pytest

from memories.rules import secrets
from memories.rules.errors import InvalidField, NotPermitted
from tests.secret_cases import LINE, LOOKALIKES, SHAPES


def leaks(secret: str, text: str) -> bool:
    """Whether any 6 characters in a row of the secret appear in the text."""
    return any(secret[i : i + 6] in text for i in range(max(len(secret) - 5, 1)))


def test_forty_of_each():
    assert len(SHAPES) == 40
    assert len({case.id for case in SHAPES}) == 40
    assert len(LOOKALIKES) == 40


@pytest.mark.parametrize("case", SHAPES, ids=lambda case: case.id)
def test_each_shape_is_found_with_its_kind_and_line_and_masked(case):
    found = secrets.held({"body": case.body})
    assert [(h.field, h.kind, h.line) for h in found] == [("body", case.kind, LINE)]
    masked = secrets.mask(case.body)
    assert f"[masked: {case.kind}]" in masked
    assert not leaks(case.secret, masked)
    assert not leaks(case.secret, found[0].shown)


@pytest.mark.parametrize("text", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_each_lookalike_is_let_through(text):
    assert secrets.held({"body": text, "description": text, "source": text}) == []
    assert secrets.mask(text) == text


def test_a_field_and_its_line_are_named_one_line_fields_on_line_1_references_by_position():
    aws = "AKIAZ3QX7TYV5BN2RK4W"
    found = secrets.held(
        {
            "description": f"Deploy key {aws}",
            "source": f"https://u:{aws}x9@host/",
            "references": ["runbook", "ci-notes", f"token={aws}"],
            "tags": [aws],  # tags are not looked at: a tag is a label
        }
    )
    assert [(h.field, h.line) for h in found] == [
        ("description", 1),
        ("source", 1),
        ("references", 3),
    ]


def test_the_refusal_is_one_sentence_naming_field_kind_and_line():
    with pytest.raises(InvalidField) as refused:
        secrets.check({"body": SHAPES[0].body}, allowed=False)
    assert refused.value.message == (
        "The body holds what looks like an AWS access key on line 3; a memory is read by "
        "everyone who can read its tier, so keep the credential out of it (an admin can allow "
        "this one write)."
    )
    assert refused.value.details == {"field": "body", "kind": "an AWS access key", "line": 3}


def test_an_allowed_write_reports_what_it_let_in():
    found = secrets.check({"body": SHAPES[0].body}, allowed=True)
    assert secrets.allowed_reason(found) == (
        "secret allowed by an admin: an AWS access key in the body, line 3"
    )


def test_only_an_admin_may_allow_and_only_with_true_or_false():
    assert secrets.allowance(None, admin=False) is False
    assert secrets.allowance(False, admin=False) is False
    assert secrets.allowance(True, admin=True) is True
    with pytest.raises(NotPermitted, match="Only an admin can allow"):
        secrets.allowance(True, admin=False)
    with pytest.raises(InvalidField, match="allow_secret is true or false"):
        secrets.allowance("yes", admin=True)


def test_several_credentials_on_one_line_are_all_masked():
    line = "AKIAZ3QX7TYV5BN2RK4W and ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
    assert secrets.mask(line) == "[masked: an AWS access key] and [masked: a GitHub token]"
