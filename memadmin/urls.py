from django.urls import include, path

from memadmin.api.urls import not_found

urlpatterns: list = [
    path("v1/", include("memadmin.api.urls")),
    path("v1", not_found),
]
