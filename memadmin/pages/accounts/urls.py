from django.urls import path

from memadmin.accounts import oidc
from memadmin.pages.accounts import sign_in, views

urlpatterns = [
    path("tokens/", views.api_tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke, name="token-revoke"),
    path("tokens/<int:token_id>/pause/", views.api_token_pause, name="token-pause"),
    path("tokens/<int:token_id>/rotate/", views.api_token_rotate, name="token-rotate"),
    path("accounts/", views.accounts, name="accounts"),
    path("accounts/<int:user_id>/", views.account_change, name="account-change"),
    path("accounts/<int:user_id>/grants/", views.account_grants, name="account-grants"),
    path("accounts/unlock/", views.sign_in_unlock, name="sign-in-unlock"),
    path("accounts/group-roles/", views.group_roles, name="group-roles"),
    path(
        "accounts/group-roles/<int:mapping_id>/remove/",
        views.group_role_remove,
        name="group-role-remove",
    ),
    path("sign-in/", sign_in.SignInView.as_view(), name="login"),
    path("sign-in/oidc/", sign_in.oidc_start, name="oidc-start"),
    path("sign-in/oidc/callback/", sign_in.oidc_callback, name=oidc.CALLBACK),
]
