"""SQL lookups the schema's CHECK constraints are written with, in the SQL of the engine.

Django's `__regex` becomes a call to a Python function it registers on its own connections;
a CHECK using it would fail on any other connection (a database shell, a backup script), so
names are checked with a shell pattern the engine matches with its own built-in operator.
"""

from django.db.models import CharField, Lookup, Q
from django.db.models.functions import Length

from memories import engine


@CharField.register_lookup
class ShellPattern(Lookup):
    """`field__glob=pattern`: the value matches a shell pattern (`*`, `?`, `[...]`, `[^...]`)."""

    lookup_name = "glob"  # as the migrations' CHECK constraints name it

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return engine.of(connection).statements.glob(lhs, rhs), [*lhs_params, *rhs_params]


CharField.register_lookup(Length)


def name_shape(max_length: int) -> Q:
    """`^[A-Za-z0-9][A-Za-z0-9._-]*$`, at most max_length characters, in portable SQL."""
    return (
        Q(name__glob="[A-Za-z0-9]*")
        & ~Q(name__glob="*[^A-Za-z0-9._-]*")
        & Q(name__length__lte=max_length)
    )
