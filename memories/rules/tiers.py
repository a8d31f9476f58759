"""The tiers: the global tier's key, the address of every tier, and a tier in words.

A tier is named by its project's name, or None for the global tier. Each wording below is
the one every page, sentence and command uses for its purpose, so a tier reads the same
wherever it is shown.
"""

# The tier key (Memory.tier, Revision.tier) of the global tier; a project's is its id.
GLOBAL_TIER = 0


class _AnyTier:
    """`project` absent: every tier (an empty `project=` means the global tier)."""

    def __repr__(self) -> str:
        return "ANY_TIER"

    def __bool__(self) -> bool:
        return False


ANY_TIER = _AnyTier()

# In a command's table: the parentheses say it is no project, as no project can be named so.
COLUMN_GLOBAL = "(global)"


def label(project: str | None) -> str:
    """The short label of badges, tables and bands: 'global' or the project's name."""
    return "global" if project is None else project


def column(project: str | None) -> str:
    """A command's tier column: '(global)' or the project's name."""
    return COLUMN_GLOBAL if project is None else project


def phrase(project: str | None) -> str:
    """The tier in a sentence: 'the global tier' or "project 'webdev'"."""
    return "the global tier" if project is None else f"project '{project}'"


def noun(project: str | None) -> str:
    """The tier as a sentence names its holder: 'the global tier' or the bare name."""
    return "the global tier" if project is None else project


def where(project: str | None) -> str:
    """A summary's place: 'in the global tier' or 'in webdev'."""
    return "in the global tier" if project is None else f"in {project}"


def memory_label(name: str, project: str | None) -> str:
    """A memory in a list of refusals or changes: "'notes' (global)", "'notes' (webdev)"."""
    return f"'{name}' ({label(project)})"
