"""The accounts page's table of the provider's groups and the roles they map to: admins
alone edit it, a bad row is refused with a sentence beside its input."""

import html

import pytest

from memadmin.accounts import oidc, roles
from memadmin.models import OidcRoleMapping
from projects import writes as project_doors


def _text(response) -> str:
    return html.unescape(response.content.decode())


def test_an_admin_maps_a_group_and_removes_it(admin, htmx):
    added = admin.post(
        "/accounts/group-roles/", {"group": "mem-operators", "role": "operator"}, **htmx
    )
    assert added.status_code == 200
    assert (
        "Members of 'mem-operators' sign in as an operator on the whole store from now on."
        in _text(added)
    )
    mapping = OidcRoleMapping.objects.get()
    assert (mapping.group, mapping.role, mapping.tier) == ("mem-operators", "operator", None)
    assert oidc.roles_for(["mem-operators", "other"]) == (roles.OPERATOR, {})
    removed = admin.post(f"/accounts/group-roles/{mapping.id}/remove/", **htmx)
    assert "The group 'mem-operators' maps to no role now." in _text(removed)
    assert not OidcRoleMapping.objects.exists()


def test_the_page_lists_the_mappings(admin, db):
    OidcRoleMapping.objects.create(group="mem-admins", role=roles.ADMIN)
    page = _text(admin.get("/accounts/"))
    assert "Roles by the provider's groups" in page and "<code>mem-admins</code>" in page


@pytest.mark.parametrize(
    ("data", "status", "sentence"),
    [
        ({"group": "", "role": "operator"}, 400, "Name the group"),
        ({"group": "x" * 201, "role": "operator"}, 400, "at most 200 characters"),
        ({"group": "a\nb", "role": "operator"}, 400, "Name the group"),
        ({"group": "staff", "role": "root"}, 400, "auditor, operator or admin"),
        (
            {"group": "taken", "role": "auditor"},
            409,
            "The group 'taken' is mapped on the whole store already",
        ),
    ],
)
def test_a_bad_mapping_is_refused_with_a_sentence(admin, htmx, data, status, sentence):
    OidcRoleMapping.objects.create(group="taken", role=roles.OPERATOR)
    response = admin.post("/accounts/group-roles/", data, **htmx)
    assert response.status_code == status
    assert sentence in _text(response)
    assert OidcRoleMapping.objects.count() == 1


def test_removing_a_mapping_that_is_gone_is_a_404(admin, db):
    assert admin.post("/accounts/group-roles/999/remove/").status_code == 404


@pytest.mark.parametrize("who", ["operator", "auditor"])
def test_only_admins_edit_the_mappings(request, who):
    client = request.getfixturevalue(who)
    refused = client.post("/accounts/group-roles/", {"group": "g", "role": "admin"})
    assert refused.status_code == 403
    assert not OidcRoleMapping.objects.exists()


def test_a_group_mapped_on_tiers_gives_their_roles_there_and_none_on_the_whole_store(admin, htmx):
    project_doors.add("mobile")
    for data in (
        {"group": "mobile-team", "role": "operator", "tier": "mobile"},
        {"group": "mobile-team", "role": "auditor", "tier": ""},
        {"group": "readers", "role": "auditor", "tier": "mobile"},
    ):
        assert admin.post("/accounts/group-roles/", data, **htmx).status_code == 200
    assert oidc.roles_for(["mobile-team", "readers"]) == (
        None,
        {"mobile": roles.OPERATOR, None: roles.AUDITOR},
    )
    assert oidc.roles_for("mobile-team") == (None, {})  # a claim that is not a list
    page = _text(admin.get("/accounts/"))
    assert "project mobile" in page and "the global tier" in page


def test_a_group_mapped_on_a_project_that_is_not_there_is_refused(admin, htmx):
    refused = admin.post(
        "/accounts/group-roles/", {"group": "g", "role": "admin", "tier": "nowhere"}, **htmx
    )
    assert refused.status_code == 404
    assert "nowhere" in _text(refused)
    assert not OidcRoleMapping.objects.exists()
