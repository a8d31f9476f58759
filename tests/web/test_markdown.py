"""Bodies as HTML: the last bodies drawn kept by their text, so an edited body is drawn anew."""

from memadmin.web import markdown
from memories.writes import doors
from tests.conftest import make_user
from tests.pages.conftest import signed_in


def test_a_body_is_drawn_once_and_kept_by_its_text():
    text = "# Kept\n\nonce **drawn** " + "x" * 10
    before = markdown._remembered.cache_info().hits
    first, second = markdown.render_markdown(text), markdown.render_markdown(text)
    assert first == second == "<h1>Kept</h1>\n<p>once <strong>drawn</strong> xxxxxxxxxx</p>\n"
    assert markdown._remembered.cache_info().hits == before + 1


def test_a_long_body_is_drawn_each_time_and_sanitized_alike():
    text = "<script>x</script> " + "y" * markdown.MEMO_MAX_CHARS
    before = markdown._remembered.cache_info()
    html = markdown.render_markdown(text)
    assert html.startswith("<p>&lt;script&gt;x&lt;/script&gt; yyy")
    assert markdown._remembered.cache_info() == before


def test_an_edited_body_shows_its_new_text(db):
    auditor = signed_in(make_user("alice", "auditor"))
    doors.write("note", description="a note", body="first **version**")
    assert (
        "first <strong>version</strong>" in auditor.get("/memories/note/?project=").content.decode()
    )
    doors.write("note", body="second *version*")
    page = auditor.get("/memories/note/?project=").content.decode()
    assert "second <em>version</em>" in page and "first" not in page
