"""/v1/budget: the budget report of memories.budget as JSON."""


def test_budget_route_reports_every_band(api, write, project, settings):
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    write("rule", load="inline", body="g" * 40)
    write("stack", project="webdev", load="inline", body="p" * 30)
    write("note", description="An index entry")
    response = api.get("/v1/budget")
    assert response.status_code == 200
    data = response.json()
    assert data["budget_bytes"] == 100
    assert data["global_write_bytes"] == 70
    global_band, webdev = data["bands"]
    assert (global_band["project"], global_band["inline_bytes"]) == (None, 40)
    assert (webdev["project"], webdev["inline_bytes"]) == ("webdev", 70)
    assert (webdev["global_bytes"], webdev["project_bytes"]) == (40, 30)
    assert webdev["over_budget"] is False
    assert webdev["largest"] == [
        {"name": "rule", "project": None, "bytes": 40},
        {"name": "stack", "project": "webdev", "bytes": 30},
    ]
    assert global_band["index"]["entries"] == 1
    assert global_band["index"]["max_entries"] == 200
    assert data["largest"][0] == {"name": "rule", "project": None, "bytes": 40}
