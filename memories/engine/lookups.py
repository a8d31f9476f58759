"""SQL lookups the schema's CHECK constraints are written with.

Django's `__regex` becomes a call to a Python function it registers on its own connections;
a CHECK using it would fail on any other connection (the sqlite3 shell, a backup script),
so names are checked with SQLite's built-in GLOB instead.
"""

from django.db.models import CharField, Lookup
from django.db.models.functions import Length


@CharField.register_lookup
class Glob(Lookup):
    lookup_name = "glob"

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} GLOB {rhs}", [*lhs_params, *rhs_params]


CharField.register_lookup(Length)


def name_shape(max_length: int):
    """`^[A-Za-z0-9][A-Za-z0-9._-]*$`, at most max_length characters, in portable SQL."""
    from django.db.models import Q

    return (
        Q(name__glob="[A-Za-z0-9]*")
        & ~Q(name__glob="*[^A-Za-z0-9._-]*")
        & Q(name__length__lte=max_length)
    )
