"""The three roles of the dashboard, as Django groups made by a migration and kept after every
migrate or flush (`keep_groups`, on post_migrate).

auditor: reads everything, changes nothing. operator: edits memories and projects.
admin: also manages users and API tokens. A superuser is an admin.

A role is held on the whole store (the person's role group) or on named tiers (grants,
memadmin.accounts.grants): what it lets its holder read and change is their reach.
"""

import functools
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Q

from memadmin.models import Grant
from memories.rules.reach import EVERYWHERE, Reach, in_sight
from memories.rules.tiers import GLOBAL_TIER

AUDITOR, OPERATOR, ADMIN = "auditor", "operator", "admin"
ROLES = (AUDITOR, OPERATOR, ADMIN)
WRITERS = (OPERATOR, ADMIN)  # the roles that may change memories and projects
RANK = {AUDITOR: 1, OPERATOR: 2, ADMIN: 3}
BY_RANK = {rank: role for role, rank in RANK.items()}


def keep_groups(using=DEFAULT_DB_ALIAS, **kwargs) -> None:
    """Make any role's group that is missing: a flush empties auth_group, and signing in,
    first_login and `apitoken` look the groups up by name."""
    for name in ROLES:
        Group.objects.using(using).get_or_create(name=name)


def strongest(user, group_names) -> str | None:
    """The strongest role among the user's groups (a superuser is an admin whatever they hold)."""
    if user.is_superuser:
        return ADMIN
    for role in (ADMIN, OPERATOR, AUDITOR):
        if role in group_names:
            return role
    return None


@dataclass(frozen=True)
class Holdings:
    """What a person holds: a role on the whole store (their role group) and roles on named
    tiers (memadmin.models.Grant rows, tier key -> role)."""

    store: str | None = None
    tiers: dict = field(default_factory=dict)

    @property
    def role(self) -> str | None:
        """The strongest role held anywhere. An admin on named tiers is an operator there:
        what only admins do (accounts, others' tokens, snapshots, purging) spans the store."""
        held = [RANK[role] for role in self.tiers.values()]
        ranks = [min(rank, RANK[OPERATOR]) for rank in held]
        if self.store is not None:
            ranks.append(RANK[self.store])
        return BY_RANK[max(ranks)] if ranks else None

    def reach(self) -> Reach:
        """The tiers these grants let their holder see and change."""
        if self.store in WRITERS:
            return EVERYWHERE
        changed = frozenset(tier for tier, role in self.tiers.items() if role in WRITERS)
        if self.store is not None:
            return Reach(seen=None, changed=changed)
        return Reach(seen=in_sight(self.tiers), changed=changed)


NO_HOLDINGS = Holdings()
ALL_OF_IT = Holdings(store=ADMIN)


@functools.cache
def _holdings_statement() -> str:
    """A user's role groups (tier -1) and tier grants (tier key) in one statement, its text
    the same for every user: the user is its two parameters.

    It runs on every request: a queryset built and compiled on each call took about ten
    times the compiled statement run alone (bench/results/2026-12-04-figures-from-comments).
    """
    query = Group.objects.filter(user__pk=0).values_list("name", flat=True).query
    groups, _user = query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    groups = groups.replace("SELECT ", "SELECT -1 AS tier, ", 1)
    grant = Grant._meta
    return (
        f"{groups} UNION ALL SELECT COALESCE({_quoted('project_id')}, {GLOBAL_TIER}), "
        f"{_quoted('role')} FROM {connection.ops.quote_name(grant.db_table)} "
        f"WHERE {_quoted('user_id')} = %s"
    )


def _quoted(column: str) -> str:
    return connection.ops.quote_name(column)


def holdings(user) -> Holdings:
    """The user's role on the whole store and on named tiers; one query. A superuser is an
    admin of the whole store whatever they hold; an inactive or anonymous user holds nothing."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return NO_HOLDINGS
    if user.is_superuser:
        return ALL_OF_IT
    with connection.cursor() as cursor:
        cursor.execute(_holdings_statement(), [user.pk, user.pk])
        found = cursor.fetchall()
    store = strongest(user, {name for tier, name in found if tier == -1})
    return Holdings(store, {tier: role for tier, role in found if tier != -1})


def without_role(user_ids) -> frozenset[int]:
    """Those of `user_ids` who hold no role anywhere (as `holdings(user).role is None`
    says of one): turned off, or granted nothing. One query."""
    holding = (
        get_user_model()
        .objects.filter(pk__in=user_ids, is_active=True)
        .filter(Q(is_superuser=True) | Q(groups__name__in=ROLES) | Q(tier_grants__role__in=ROLES))
        .values_list("pk", flat=True)
    )
    return frozenset(user_ids) - set(holding)


def role_of(user) -> str | None:
    """The strongest role the user holds, or None for a user holding none; one query."""
    return holdings(user).role


def can_read(user) -> bool:
    return role_of(user) is not None


def can_write(user) -> bool:
    return role_of(user) in WRITERS


def can_administer(user) -> bool:
    return role_of(user) == ADMIN
