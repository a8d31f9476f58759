from django.urls import path

from memadmin.pages.projects import views as project_pages

app_name = "projects"

urlpatterns = [
    path("", project_pages.project_list, name="list"),
    path("<str:name>/rename/", project_pages.project_rename, name="rename"),
    path("<str:name>/remove/", project_pages.project_remove, name="remove"),
]
