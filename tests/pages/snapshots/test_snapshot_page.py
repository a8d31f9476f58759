"""The Snapshots page: admins download the store as a zip and import one after a dry run."""

import io
import os
import zipfile

import pytest

from memadmin.pages.snapshots import views
from memories.models import Memory
from memories.writes import snapshot
from projects import writes as project_doors
from tests.cli.conftest import memory_file, store_state
from tests.pages.conftest import chrome_free
from tests.pages.snapshots.conftest import zip_of

ROUTES = [
    ("get", "/snapshots/"),
    ("get", "/snapshots/download/"),
    ("post", "/snapshots/preview/"),
    ("post", "/snapshots/import/"),
]


@pytest.mark.parametrize(("method", "url"), ROUTES)
def test_only_admins_reach_snapshots(client, auditor, operator, method, url):
    for role_client in (auditor, operator):
        response = getattr(role_client, method)(url)
        assert response.status_code == 403
        assert "Only admins may do this." in response.content.decode()
    assert getattr(client, method)(url).status_code == 302, "signed out: to the sign-in"


def test_the_nav_links_snapshots_for_admins_alone(admin, operator):
    assert 'href="/snapshots/"' in admin.get("/").content.decode()
    assert 'href="/snapshots/"' not in operator.get("/").content.decode()


def test_the_page_offers_each_tier_and_the_upload(admin, write):
    project_doors.add("webdev")
    page = admin.get("/snapshots/").content.decode()
    assert 'href="/snapshots/download/"' in page
    assert 'href="/snapshots/download/?project="' in page
    assert 'href="/snapshots/download/?project=webdev"' in page
    assert 'name="snapshot" type="file"' in page


def test_the_download_is_the_snapshot_as_a_zip(admin, write):
    project_doors.add("webdev")
    write("tz", body="UTC+8\r\n")
    write("stack", project="webdev")
    response = admin.get("/snapshots/download/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="memadmin-snapshot-')
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sorted(archive.namelist()) == ["export.toml", "tz.md", "webdev/", "webdev/stack.md"]
    tz = Memory.objects.get(name="tz")
    assert archive.read("tz.md") == snapshot.render(tz)
    one = admin.get("/snapshots/download/?project=webdev")
    assert "snapshot-webdev-" in one["Content-Disposition"]
    names = zipfile.ZipFile(io.BytesIO(b"".join(one.streaming_content))).namelist()
    assert sorted(names) == ["export.toml", "webdev/", "webdev/stack.md"]
    assert admin.get("/snapshots/download/?project=ghost").status_code == 404


def _preview(client, archive, *, force=False, **headers):
    data = {"snapshot": archive}
    if force:
        data["force"] = "on"
    return client.post("/snapshots/preview/", data, **headers)


def test_a_preview_lands_nothing_and_the_confirmation_imports(admin, write):
    write("kept", body="in the store")
    before = store_state()
    archive = zip_of(
        {"kept.md": memory_file(body="from the zip"), "new.md": memory_file(read_count=9)}
    )
    response = _preview(admin, archive, force=True)
    page = response.content.decode()
    assert response.status_code == 200
    assert "Preview of snapshot.zip" in page
    assert "2 memories: 1 would be added, 1 overwritten, 0 refused (overwriting allowed)" in page
    assert "Import 2 memories" in page
    assert store_state() == before
    token = admin.session[views.SESSION_KEY]["token"]
    assert (views._upload_path(token)).stat().st_mode & 0o777 == 0o600
    response = admin.post("/snapshots/import/", {"token": token, "force": "on"}, follow=True)
    assert "Imported 2 memories from snapshot.zip: 1 added, 1 overwritten." in (
        response.content.decode()
    )
    assert Memory.objects.get(name="kept").body == "from the zip"
    assert Memory.objects.get(name="new").read_count == 9
    assert not views._upload_path(token).exists()
    assert views.SESSION_KEY not in admin.session


def test_the_preview_lists_refusals_and_offers_no_import(admin, write):
    write("kept")
    write("other")
    project_doors.add("webdev")
    archive = zip_of(
        {
            "kept.md": memory_file(),
            "ghost/g.md": memory_file(project="ghost"),
            "webdev/other.md": memory_file(project="webdev"),
        }
    )
    before = store_state()
    page = _preview(admin, archive).content.decode()
    assert "0 would be added, 0 overwritten, 3 refused" in page
    assert "The store already holds it in the same tier; overwriting needs force." in page
    assert "There is no project named &#x27;ghost&#x27;; add it first." in page
    assert "a global name is never also a project" in page
    assert "Import 3" not in page
    assert "Nothing of this snapshot can land as it stands" in page
    assert store_state() == before


def test_the_preview_shows_the_budget_refusal(admin, db, small_budget):
    archive = zip_of({f"r{n}.md": memory_file(load="inline", body="x" * 60) for n in range(2)})
    page = _preview(admin, archive).content.decode()
    assert "The whole would pass the inline budget: inline memories would total" in page
    assert "Import 2" not in page


def test_an_htmx_preview_is_the_panel_alone(admin, htmx, db):
    response = _preview(admin, zip_of({"a.md": memory_file()}), **htmx)
    assert response.status_code == 200
    assert chrome_free(response.content.decode())
    assert "Import 1 memory" in response.content.decode()
    token = admin.session[views.SESSION_KEY]["token"]
    done = admin.post("/snapshots/import/", {"token": token}, **htmx)
    assert "Imported 1 memory from snapshot.zip: 1 added, 0 overwritten." in done.content.decode()
    assert chrome_free(done.content.decode())


@pytest.mark.parametrize(
    ("archive", "status", "sentence"),
    [
        (io.BytesIO(b"not a zip"), 400, "The upload is not a zip archive."),
        (zip_of({"a.md": memory_file()}, version=3), 400, "This snapshot is format_version 3"),
        (zip_of({"a.md": "no frontmatter"}), 400, "does not start with YAML frontmatter"),
    ],
)
def test_an_upload_that_is_not_a_snapshot_is_refused_in_a_sentence(
    admin, db, archive, status, sentence
):
    archive.name = "upload.zip"
    response = _preview(admin, archive)
    assert response.status_code == status
    assert sentence in response.content.decode()
    assert views.SESSION_KEY not in admin.session
    assert list(views._uploads().iterdir()) == []


def test_a_missing_file_or_an_oversized_upload_is_refused(admin, db, settings):
    response = admin.post("/snapshots/preview/", {})
    assert response.status_code == 400
    assert "Choose a snapshot zip to upload." in response.content.decode()
    settings.MEMADMIN_MAX_UPLOAD_BYTES = 100
    response = _preview(admin, zip_of({"a.md": memory_file(body="x" * 500)}))
    assert response.status_code == 413
    assert "A snapshot upload is at most 0 MiB." in response.content.decode()


def test_an_import_without_its_preview_is_refused(admin, db):
    response = admin.post("/snapshots/import/", {"token": "made-up"})
    assert response.status_code == 400
    assert "That upload is no longer here; upload the snapshot again." in response.content.decode()
    _preview(admin, zip_of({"a.md": memory_file()}))
    response = admin.post("/snapshots/import/", {"token": "not-the-one"})
    assert response.status_code == 400
    assert not Memory.objects.exists()


def test_a_store_that_changed_since_the_preview_refuses_the_import(admin, write):
    _preview(admin, zip_of({"a.md": memory_file()}))
    write("a")  # someone else wrote it meanwhile
    before = store_state()
    token = admin.session[views.SESSION_KEY]["token"]
    response = admin.post("/snapshots/import/", {"token": token})
    assert response.status_code == 409
    assert "Nothing was imported." in response.content.decode()
    assert store_state() == before


def test_a_new_preview_replaces_the_last_upload_and_stale_ones_go(admin, db):
    _preview(admin, zip_of({"a.md": memory_file()}))
    first = admin.session[views.SESSION_KEY]["token"]
    stale = views._upload_path("left-over")
    stale.write_bytes(b"old")
    os.utime(stale, (0, 0))
    _preview(admin, zip_of({"b.md": memory_file()}))
    assert not views._upload_path(first).exists()
    assert not stale.exists()
    assert [p.name for p in views._uploads().iterdir()] == [
        f"{admin.session[views.SESSION_KEY]['token']}.zip"
    ]


def test_an_upload_spoiled_between_preview_and_import_is_refused(admin, db):
    _preview(admin, zip_of({"a.md": memory_file()}))
    token = admin.session[views.SESSION_KEY]["token"]
    views._upload_path(token).write_bytes(b"spoiled")
    response = admin.post("/snapshots/import/", {"token": token})
    assert response.status_code == 400
    assert "The upload is not a zip archive." in response.content.decode()
    assert not Memory.objects.exists()
    assert not views._upload_path(token).exists()


def test_a_long_list_is_cut_with_its_count(admin, db, monkeypatch):
    monkeypatch.setattr(views, "SHOWN_ROWS", 2)
    page = _preview(admin, zip_of({f"n{n}.md": memory_file() for n in range(3)})).content.decode()
    assert "… 3 in all" in page
    assert ">n1<" in page and ">n2<" not in page
