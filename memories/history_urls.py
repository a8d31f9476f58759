from django.urls import path, re_path

from memories.views import history

app_name = "history"

urlpatterns = [
    path("", history.log, name="log"),
    re_path(r"^log\.(?P<fmt>csv|json)$", history.log_export, name="export"),
    path("revisions/<int:revision_id>/", history.revision_detail, name="revision"),
    path("revisions/<int:revision_id>/restore/", history.restore_version, name="restore_version"),
    path("changes/", history.change_set_list, name="change_sets"),
    path("changes/<int:change_set_id>/", history.change_set_detail, name="change_set"),
    path("trash/", history.trash, name="trash"),
    path("trash/<int:trashed_id>/restore/", history.trash_restore, name="trash_restore"),
    path("trash/<int:trashed_id>/purge/", history.trash_purge, name="trash_purge"),
]
