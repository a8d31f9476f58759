from oauth2_provider.oauth2_validators import OAuth2Validator


class Validator(OAuth2Validator):
    """The users' names, e-mail and groups as claims; groups with the profile scope."""

    oidc_claim_scope = {**OAuth2Validator.oidc_claim_scope, "groups": "profile"}

    def get_additional_claims(self, request):
        user = request.user
        return {
            "preferred_username": user.username,
            "email": user.email,
            "groups": sorted(group.name for group in user.groups.all()),
        }
