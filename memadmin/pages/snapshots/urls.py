from django.urls import path

from memadmin.pages.snapshots import views as snapshot_pages

app_name = "snapshots"

urlpatterns = [
    path("", snapshot_pages.snapshots, name="page"),
    path("download/", snapshot_pages.snapshot_download, name="download"),
    path("preview/", snapshot_pages.snapshot_preview, name="preview"),
    path("import/", snapshot_pages.snapshot_import, name="import"),
]
