from django.contrib.auth import views as auth_views
from django.urls import include, path

from memadmin import views
from memadmin.api.responses import json_under_api
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
    path("tokens/", views.api_tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke, name="token-revoke"),
    path("accounts/", views.accounts, name="accounts"),
    path("accounts/<int:user_id>/", views.account_change, name="account-change"),
    path("snapshots/", include("memories.snapshot_urls")),
    path("history/", include("memories.history_urls")),
    path("", include("memories.urls_audit")),
]

# Dashboard pages, except under /v1, where every answer is JSON.
handler400 = json_under_api(
    views.bad_request, 400, "The request was refused as malformed, before reaching the API."
)
handler403 = json_under_api(views.permission_denied, 403, "This request is not allowed.")
handler404 = json_under_api(
    views.page_not_found, 404, "There is no API route here; GET /v1/openapi.json lists them."
)
handler500 = json_under_api(
    views.server_error, 500, "Something failed on the server; its log says what."
)
