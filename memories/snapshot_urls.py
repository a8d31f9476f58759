from django.urls import path

from memories.views import snapshots

app_name = "snapshots"

urlpatterns = [
    path("", snapshots.snapshots, name="page"),
    path("download/", snapshots.snapshot_download, name="download"),
    path("preview/", snapshots.snapshot_preview, name="preview"),
    path("import/", snapshots.snapshot_import, name="import"),
]
