from django.urls import path

from memadmin.pages.accounts import views

urlpatterns = [
    path("tokens/", views.api_tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.api_token_revoke, name="token-revoke"),
    path("accounts/", views.accounts, name="accounts"),
    path("accounts/<int:user_id>/", views.account_change, name="account-change"),
    path("accounts/<int:user_id>/grants/", views.account_grants, name="account-grants"),
    path("accounts/unlock/", views.sign_in_unlock, name="sign-in-unlock"),
]
