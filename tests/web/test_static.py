"""The static files' storage: a file's address worked out once per manifest."""

from memadmin.web.static import StaticFilesStorage


def test_a_file_is_linked_by_its_manifest_entry_and_follows_a_new_manifest(tmp_path, settings):
    settings.DEBUG = False
    storage = StaticFilesStorage(location=tmp_path, base_url="/static/")
    assert storage.url("css/memadmin.css") == "/static/css/memadmin.css"  # no manifest yet
    storage.hashed_files = {"css/memadmin.css": "css/memadmin.0123abcd.css"}  # collectstatic
    assert storage.url("css/memadmin.css") == "/static/css/memadmin.0123abcd.css"
    assert storage.url("css/memadmin.css") == "/static/css/memadmin.0123abcd.css"
    storage.hashed_files = {"css/memadmin.css": "css/memadmin.4567ef01.css"}  # and again
    assert storage.url("css/memadmin.css") == "/static/css/memadmin.4567ef01.css"
    settings.DEBUG = True
    assert storage.url("css/memadmin.css") == "/static/css/memadmin.css"
