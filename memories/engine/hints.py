"""Hints to the query planner as ORM expressions, in the SQL of the connection's engine.

An engine without such a hint writes the expression as it is: the rows are the same, only
the plan the statement gets can differ.
"""

from django.db.models import BooleanField, ExpressionWrapper, Func, Q

from memories import engine


class Likelihood(Func):
    output_field = BooleanField()

    def __init__(self, condition: Q, share: float):
        super().__init__(ExpressionWrapper(condition, output_field=BooleanField()))
        self.share = share

    def as_sql(self, compiler, connection, **extra_context):
        template = engine.of(connection).statements.likelihood("%(expressions)s", self.share)
        return super().as_sql(compiler, connection, template=template, **extra_context)


def likelihood(condition: Q, share: float) -> Likelihood:
    """`condition`, declared to the planner to admit `share` of the rows.

    Without statistics on how values spread, the planner guesses that a range admits a
    quarter of the rows. "In force" (`expires_at IS NULL OR expires_at > ?`) admits nearly
    every memory: left to guess, the planner read a band's rows as two ranges of the expiry
    index, and its counts took many times what the band index takes
    (bench/results/2026-12-04-figures-from-comments).
    """
    return Likelihood(condition, share)


class Unindexed(Func):
    """A column's value, which the planner will not look up through an index on it."""

    def as_sql(self, compiler, connection, **extra_context):
        template = engine.of(connection).statements.unindexed("%(expressions)s")
        return super().as_sql(compiler, connection, template=template, **extra_context)
