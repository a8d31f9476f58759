from django.urls import path

from projects import views

app_name = "projects"

urlpatterns = [
    path("", views.project_list, name="list"),
    path("<str:name>/rename/", views.project_rename, name="rename"),
    path("<str:name>/remove/", views.project_remove, name="remove"),
]
