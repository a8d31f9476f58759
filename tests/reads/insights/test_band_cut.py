"""The budget report's band detail: the cut line and its reasons, what falls off the index."""

from memories.reads import band_cut
from memories.reads.agent_view import agent_view


def test_cut_line_in_index_order_with_reasons(write, settings, project):
    write("first", load="inline", body="a" * 60, priority=0)
    write("too-big", load="inline", body="b" * 50, priority=1)
    write("still-fits", load="inline", body="c" * 30, priority=2)
    write("project-rule", project="webdev", load="inline", body="d" * 5, priority=3)
    # The budget lowered beneath what the store holds, as the seed describes.
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    detail = band_cut.band_detail(None)
    assert [(e.memory.name, e.spent_before, e.shown) for e in detail.cut] == [
        ("first", 0, True),
        ("too-big", 60, False),
        ("still-fits", 60, True),
    ]
    assert detail.cut[1].reason == (
        "named, not given: it needs 50 bytes and 40 bytes of the budget was left when its turn "
        "came in index order"
    )
    assert detail.cut[0].reason == "given in full: 60 bytes of the 100 bytes budget spent with it"
    assert [e.memory.name for e in detail.not_given] == ["too-big"]
    assert [e.memory.name for e in detail.largest] == ["first", "too-big", "still-fits"]
    assert detail.to_dict()["largest"][0] == {"name": "first", "project": None, "bytes": 60}
    webdev = band_cut.band_detail(project)
    assert [e.memory.name for e in webdev.cut][-1] == "project-rule"
    assert webdev.tier == "webdev" and detail.tier == "global"


def test_agent_view_walk_matches_what_it_shows(write, settings):
    write("first", load="inline", body="a" * 60, priority=0)
    write("too-big", load="inline", body="b" * 50, priority=1)
    write("small", load="inline", body="c" * 5, priority=2)
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    view = agent_view(None)
    assert (
        [m.name for m, _, shown in view.inline_walk if shown]
        == [m.name for m in view.inline_shown]
        == ["first", "small"]
    )
    assert [spent for _, spent, _ in view.inline_walk] == [0, 60, 60]


def test_index_fall_off_in_order_with_the_footer(write, settings):
    settings.MEMADMIN_INDEX_MAX_ENTRIES = 3
    for number in range(6):
        write(f"m{number}", priority=number, tags=["infra"] if number > 3 else ["people"])
    write("hidden", load="search")
    detail = band_cut.band_detail(None)
    assert [m.name for m in detail.fall_off] == ["m3", "m4", "m5"]
    assert detail.fall_off_reason == "the index holds 3 entries at most"
    assert detail.footer_tags == [("infra", 2), ("people", 1)]
    data = detail.to_dict()
    assert data["index"]["left_out"] == 3
    assert data["index"]["falls_off"][0] == {"name": "m3", "project": None, "priority": 3}
    assert data["index"]["footer"].startswith("3 more memories not shown here")


def test_index_fall_off_by_bytes(write, settings):
    settings.MEMADMIN_INDEX_MAX_BYTES = 200
    for number in range(4):
        write(f"m{number}", priority=number, description="x" * 60)
    detail = band_cut.band_detail(None)
    assert [m.name for m in detail.fall_off] == ["m2", "m3"]
    assert detail.fall_off_reason.startswith("the next entry would take the index past 200 bytes")


def test_nothing_falls_off_a_small_index(write):
    write("a")
    detail = band_cut.band_detail(None)
    assert detail.fall_off == [] and detail.fall_off_reason == ""
    assert detail.to_dict()["index"]["footer"] == ""


def test_the_cut_table_shows_its_first_rows_and_sums_up_the_rest(write, settings, monkeypatch):
    for number in range(5):
        write(f"rule{number}", load="inline", body="a" * 40, priority=number)
    settings.MEMADMIN_INLINE_MAX_BYTES = 100
    monkeypatch.setattr(band_cut, "CUT_SHOWN", 2)
    detail = band_cut.band_detail(None)
    assert [e.memory.name for e in detail.cut_shown] == ["rule0", "rule1"]
    assert len(detail.cut) == 5
    assert detail.cut_beyond == (
        "3 more inline bodies in force after these, 0 of them given in full (120 bytes)."
    )
    monkeypatch.setattr(band_cut, "CUT_SHOWN", 5)
    assert band_cut.band_detail(None).cut_beyond == ""
