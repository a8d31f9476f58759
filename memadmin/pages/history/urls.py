from django.urls import path, re_path

from memadmin.pages.history import views as history_pages

app_name = "history"

urlpatterns = [
    path("", history_pages.log, name="log"),
    re_path(r"^log\.(?P<fmt>csv|json)$", history_pages.log_export, name="export"),
    path("revisions/<int:revision_id>/", history_pages.revision_detail, name="revision"),
    path(
        "revisions/<int:revision_id>/restore/",
        history_pages.restore_version,
        name="restore_version",
    ),
    path("changes/", history_pages.change_set_list, name="change_sets"),
    path("changes/<int:change_set_id>/", history_pages.change_set_detail, name="change_set"),
    path("trash/", history_pages.trash, name="trash"),
    path("trash/<int:trashed_id>/restore/", history_pages.trash_restore, name="trash_restore"),
    path("trash/<int:trashed_id>/purge/", history_pages.trash_purge, name="trash_purge"),
]
