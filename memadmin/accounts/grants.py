"""Grants: a role on the whole store or on named tiers, held by a person; the tiers an API
token may reach, within its owner's grants. Made, revoked and listed here, by the accounts
page and the `grant` and `revoke` commands; read into a reach (memories.rules.reach) for
each request by the pages, /v1, MCP and the CLI.

A role on the whole store is the person's role group (memadmin.accounts.roles), which is
what every account held before grants, so those keep working as they were. A role on named
tiers is a Grant row per tier (a project, or the global tier). A token with no tiers of its
own reaches what its owner does; one with tiers reaches those its owner also holds. Both
are read at each request, so a person whose grants shrink takes their tokens down with them.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from memadmin.accounts import roles
from memadmin.models import ApiToken, Grant
from memories.rules import fields, tiers
from memories.rules.errors import AccountRefused, InvalidField, TokenRefused, UnknownProject
from memories.rules.reach import NOWHERE, Reach
from projects.models import Project


class _WholeStore:
    def __repr__(self) -> str:
        return "WHOLE_STORE"


WHOLE_STORE = _WholeStore()  # a grant's place: the whole store (else a tier: None or a name)


def where(place) -> str:
    """A grant's place in words: 'the whole store', 'the global tier', "project 'webdev'"."""
    return "the whole store" if place is WHOLE_STORE else tiers.phrase(place)


def _project(place) -> Project | None:
    """The project of a tier's name (None: the global tier); a name no project may hold, or
    none holds, is refused as a bad `project`."""
    if place is None:
        return None
    try:
        return Project.objects.named(fields.project_name(place))
    except UnknownProject as unknown:
        raise InvalidField("project", unknown.message) from None


@dataclass(frozen=True)
class Held:
    """One grant as the accounts page and the command show it."""

    place: object  # WHOLE_STORE, None (the global tier) or a project's name
    role: str

    @property
    def words(self) -> str:
        return f"{self.role} on {where(self.place)}"

    @property
    def value(self) -> str:
        """The place as the revoke form posts it: '*', '' or the project's name."""
        return "*" if self.place is WHOLE_STORE else (self.place or "")


def place_of(value: str):
    """A place as a form or a command gives it: '*' the whole store, '' the global tier, a
    project's name."""
    if value == "*":
        return WHOLE_STORE
    return value or None


def held_by(users) -> dict[int, list[Held]]:
    """Each user's grants on named tiers, global first, then by project (one query)."""
    found: dict[int, list[Held]] = {}
    rows = Grant.objects.filter(user__in=users).select_related("project")
    for row in sorted(rows, key=lambda g: (g.project is not None, g.project and g.project.name)):
        place = row.project.name if row.project else None
        found.setdefault(row.user_id, []).append(Held(place, row.role))
    return found


def holdings_of(user) -> list[Held]:
    """Everything the user holds: their role on the whole store first, then their grants on
    named tiers (a superuser holds admin on the whole store)."""
    store = roles.strongest(user, set(user.groups.values_list("name", flat=True)))
    found = [Held(WHOLE_STORE, store)] if store else []
    return found + held_by([user]).get(user.id, [])


def reach_of(user) -> Reach:
    """What the user may see and change now."""
    return roles.holdings(user).reach()


def token_tiers(token: ApiToken) -> frozenset[int] | None:
    """The tiers a token was created to reach, or None: its owner's."""
    found = frozenset(grant.tier for grant in token.tier_grants.all())
    return found or None


def token_reach(token: ApiToken, owner: roles.Holdings) -> Reach:
    """What a token may see and change: its tiers within its owner's grants now."""
    return owner.reach().narrowed(token_tiers(token))


def standing(user_id: int, token_id: int | None = None) -> tuple[str | None, Reach]:
    """What a receiver of the change feed holds now, read afresh: its role (None: none, an
    account turned off or gone, a token revoked, paused or expired) and what it may see."""
    if token_id is not None:
        token = ApiToken.objects.select_related("user").filter(id=token_id).first()
        if token is None or token.state(timezone.now()) != "live" or not token.user.is_active:
            return None, NOWHERE
        held = roles.holdings(token.user)
        return held.role, token_reach(token, held)
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return None, NOWHERE
    held = roles.holdings(user)
    return held.role, held.reach()


def _other_user(actor, user):
    """`user`, whose grants `actor` (None: a command, run by whoever holds the store) may
    change."""
    if actor is not None and user.id == actor.id:
        raise AccountRefused(
            "You cannot change your own grants; another admin can, so one always remains."
        )
    if user.is_superuser:
        raise AccountRefused(
            f"'{user.get_username()}' is a superuser, an admin of the whole store whatever "
            "they are granted here."
        )
    return user


def user_named(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InvalidField("user", f"There is no account named '{username}'.")
    return user


def grant(actor, user, role, place) -> Held:
    """Give `user` `role` on `place` (the whole store, the global tier or a project); a role
    they held there is replaced."""
    role = _role(role)
    with transaction.atomic():
        _other_user(actor, user)
        if place is WHOLE_STORE:
            user.groups.remove(*Group.objects.filter(name__in=roles.ROLES))
            user.groups.add(Group.objects.get_or_create(name=role)[0])
        else:
            project = _project(place)
            Grant.objects.update_or_create(user=user, project=project, defaults={"role": role})
    return Held(place, role)


def revoke(actor, user, place) -> Held | None:
    """Take back what `user` holds on `place`; what they held (None: nothing)."""
    with transaction.atomic():
        _other_user(actor, user)
        if place is WHOLE_STORE:
            held = roles.strongest(user, set(user.groups.values_list("name", flat=True)))
            user.groups.remove(*Group.objects.filter(name__in=roles.ROLES))
        else:
            row = Grant.objects.filter(user=user, project=_project(place)).first()
            held = row.role if row else None
            if row:
                row.delete()
    return None if held is None else Held(place, held)


def hold_exactly(user, store_role: str | None, tier_roles: dict) -> None:
    """The user holds `store_role` on the whole store (None: no role there) and, on named
    tiers, exactly `tier_roles` (place: role; a project no longer there is passed over): as
    an OpenID Connect sign-in maps the person's groups, at each sign-in."""
    projects = dict(
        Project.every.filter(name__in=[p for p in tier_roles if p]).values_list("name", "id")
    )
    wanted = {
        projects.get(place): role
        for place, role in tier_roles.items()
        if not place or place in projects
    }
    with transaction.atomic():
        user.groups.remove(*Group.objects.filter(name__in=roles.ROLES).exclude(name=store_role))
        if store_role is not None:
            user.groups.add(Group.objects.get_or_create(name=store_role)[0])
        stale = Grant.objects.filter(user=user).exclude(
            project_id__in=[p for p in wanted if p is not None]
        )
        if None in wanted:
            stale = stale.exclude(project__isnull=True)
        stale.delete()
        for project_id, role in wanted.items():
            Grant.objects.update_or_create(
                user=user, project_id=project_id, defaults={"role": role}
            )


def _role(value) -> str:
    if value not in roles.ROLES:
        raise InvalidField("role", "The role is auditor, operator or admin.")
    return value


def limit_token(token: ApiToken, places) -> None:
    """Hold a new token to these tiers (None: the global tier, else a project's name), each
    one its owner must hold a grant on."""
    reach = reach_of(token.user)
    for place in dict.fromkeys(places):
        project = _project(place)
        tier = project.id if project else tiers.GLOBAL_TIER
        if not reach.sees(tier):
            raise TokenRefused(
                f"'{token.user.get_username()}' holds no grant on {tiers.phrase(place)}, so "
                "a token of theirs cannot reach it.",
                field="project",
            )
        Grant.objects.create(token=token, project=project)


def token_choices(held: Reach) -> list:
    """The tiers a token of one whose reach is `held` may be limited to, as limit_token takes
    them: None (the global tier) first, then the projects' names in name order."""
    projects = Project.every.order_by("name")
    if not held.whole:
        projects = projects.filter(id__in=held.seen)
    names = list(projects.values_list("name", flat=True))
    return ([None] if held.sees(tiers.GLOBAL_TIER) else []) + names


def token_places(token: ApiToken) -> list:
    """The tiers a token was limited to (None the global tier, a project's name), or []: its
    owner's."""
    return [g.project.name if g.project else None for g in token.tier_grants.all()]
