"""An id past what a store keeps (2^63 and up) is a 400 with a sentence or a 404 wherever
ids are read: the pages' id lists, the bulk and verify doors, the routes naming one id, and
/v1's id parameters. Handed to the database it overflowed into a 500."""

import html
import re

import pytest

from memories.rules import fields
from memories.rules.errors import InvalidField
from memories.writes import bulk, doors

PAST = str(2**63)
FAR_PAST = "99999999999999999999"
SENTENCE = "is not an id (a whole number from 1 to 9,223,372,036,854,775,807)"


@pytest.mark.parametrize("value", [PAST, FAR_PAST, "0", "-1"])
@pytest.mark.parametrize(
    ("method", "path", "data"),
    [
        ("get", "/hygiene/compare/", {}),
        ("post", "/hygiene/verify/", {}),
        ("post", "/budget/set-priority/", {}),
        ("post", "/budget/set-load/", {}),
        ("post", "/memories/_bulk/", {"action": "verify"}),
        ("post", "/memories/_bulk/", {"action": "delete"}),
    ],
)
def test_an_id_list_out_of_range_is_a_400_with_a_sentence(admin, db, method, path, data, value):
    doors.write("kept", description="still here")
    # As htmx sends them: the bulk form answers in place (without htmx, a redirect).
    response = getattr(admin, method)(path, {**data, "id": ["1", value]}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert f"'{value}' {SENTENCE}" in html.unescape(response.content.decode())


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"/history/revisions/{PAST}/"),
        ("post", f"/history/revisions/{PAST}/restore/"),
        ("get", f"/history/changes/{PAST}/"),
        ("post", f"/history/changes/{PAST}/"),
        ("post", f"/history/trash/{PAST}/restore/"),
        ("post", f"/history/trash/{PAST}/purge/"),
        ("post", f"/tokens/{PAST}/revoke/"),
        ("post", f"/accounts/{PAST}/"),
    ],
)
def test_a_route_naming_one_id_out_of_range_is_a_404(admin, db, method, path):
    assert getattr(admin, method)(path, {"role": "auditor"}).status_code == 404


@pytest.mark.parametrize("parameter", ["change_set", "before", "after"])
def test_the_audit_log_refuses_ids_out_of_range(admin, db, parameter):
    response = admin.get("/history/", {parameter: PAST})
    assert response.status_code == 400


@pytest.mark.parametrize("value", [PAST, FAR_PAST])
def test_the_bulk_doors_refuse_ids_out_of_range_themselves(db, value):
    with pytest.raises(InvalidField, match=re.escape(SENTENCE)):
        bulk.verify([1, int(value)])


def test_record_ids_reads_text_and_integers_once_each():
    assert fields.record_ids(["3", 1, "3", fields.MAX_ID]) == [1, 3, fields.MAX_ID]
    with pytest.raises(InvalidField, match=re.escape(f"'x' {SENTENCE}")):
        fields.record_ids(["x"])
