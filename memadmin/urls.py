from django.contrib.auth import views as auth_views
from django.urls import include, path

from memadmin import views
from memadmin.api.urls import not_found

urlpatterns = [
    path("v1/", include("memadmin.api.urls")),
    path("v1", not_found),
    path("", views.overview, name="overview"),
    path(
        "sign-in/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("sign-out/", auth_views.LogoutView.as_view(), name="logout"),
    path("memories/", include("memories.urls")),
    path("projects/", include("projects.urls")),
    path("history/", include("memories.history_urls")),
]

handler400 = views.bad_request
handler403 = views.permission_denied
handler404 = views.page_not_found
handler500 = views.server_error
