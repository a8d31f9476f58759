import io
import zipfile

import pytest


@pytest.fixture(autouse=True)
def _uploads_in_tmp(settings, tmp_path):
    """Each test keeps its uploads in its own data dir."""
    settings.DATA_DIR = tmp_path / "data"


def zip_of(files: dict[str, str], *, version: int = 1) -> io.BytesIO:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as opened:
        opened.writestr("export.toml", f"format_version = {version}\n")
        for name, text in files.items():
            opened.writestr(name, text)
    archive.seek(0)
    archive.name = "snapshot.zip"
    return archive
