"""Typed refusals, every one of them: the memory and project doors', the account doors'
(memadmin.accounts) and the API's request reading. Each carries one human sentence, its HTTP
status and the data behind it.

Pages render `message`; the API answers `{"error": message, **details}` with `status`.
They live together at the bottom of the layers because every door and every edge raises or
catches them, and a refusal is plain data that imports nothing: keeping the site's refusals
here makes the domain import nothing of memadmin, while a page or /v1 finds any refusal,
and the status it answers with, in one place.
"""

from memories.rules import tiers


class DomainError(Exception):
    status = 400

    def __init__(self, message: str, **details):
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidField(DomainError):
    """A value no memory or project may hold; `field` names it."""

    def __init__(self, field: str, message: str):
        super().__init__(message, field=field)
        self.field = field


class SecretRefused(InvalidField):
    """A write holding a credential (memories.rules.secrets), refused as a bad field is:
    nothing of it lands. Names the field, the kind and the line, never the credential."""

    def __init__(self, field: str, kind: str, line: int):
        super().__init__(
            field,
            f"The {field} holds what looks like {kind} on line {line}; a memory is read by "
            "everyone who can read its tier, so keep the credential out of it (an admin can "
            "allow this one write).",
        )
        self.details.update(kind=kind, line=line)


class UnknownProject(DomainError):
    status = 404

    def __init__(self, name: str):
        super().__init__(f"There is no project named '{name}'.", project=name)


class MemoryNotFound(DomainError):
    status = 404

    def __init__(
        self, name: str, project: str | None = None, *, anywhere: bool = False, band: bool = False
    ):
        """`band`: looked for where a session on `project` looks, the project's tier and the
        global tier."""
        where = "" if anywhere else f" in {tiers.phrase(project)}"
        if band and project is not None:
            where += " or the global tier"
        super().__init__(f"There is no memory named '{name}'{where}.", name=name)


class AmbiguousName(DomainError):
    status = 409

    def __init__(self, name: str, projects: list[str]):
        listed = ", ".join(f"'{p}'" for p in projects)
        super().__init__(
            f"The name '{name}' is held by several projects ({listed}); name one with project=.",
            name=name,
            projects=projects,
        )


class NameClash(DomainError):
    status = 409

    def __init__(self, message: str, *, name: str, project: str | None):
        super().__init__(message, name=name, project=project)


class NameTaken(NameClash):
    """A create (`must_create`) refused because the tier already holds the name."""


class InlineBudgetExceeded(DomainError):
    status = 409

    def __init__(
        self,
        message: str,
        *,
        total_bytes: int,
        budget_bytes: int,
        largest: list[dict],
        band: str | None,
    ):
        super().__init__(
            message, total_bytes=total_bytes, budget_bytes=budget_bytes, largest=largest, band=band
        )
        self.total_bytes = total_bytes
        self.budget_bytes = budget_bytes
        self.largest = largest
        self.band = band  # the project whose session's band it would pass; None: no project


class PreconditionFailed(DomainError):
    """If-Match named a version of the memory that is no longer the current one."""

    status = 412

    def __init__(self, name: str, current_etag: str):
        super().__init__(
            f"The memory '{name}' changed since you read it; read it again and retry.",
            etag=current_etag,
        )


class NothingToMatch(DomainError):
    """If-Match on a memory the tier does not hold: there is no version to match."""

    status = 412

    def __init__(self, name: str, project: str | None):
        super().__init__(
            f"There is no memory named '{name}' in {tiers.phrase(project)} for If-Match to "
            "match; leave If-Match out to create it.",
            name=name,
            project=project,
        )


class AlreadyExists(DomainError):
    """If-None-Match: * (create only) on a memory the tier holds."""

    status = 412

    def __init__(self, name: str, project: str | None, current_etag: str):
        where = tiers.phrase(project)
        super().__init__(
            f"{where[0].upper()}{where[1:]} already holds a memory named '{name}', and "
            "If-None-Match: * only creates; choose another name, or leave the header out to "
            "update it.",
            name=name,
            project=project,
            etag=current_etag,
        )


class StaleBody(DomainError):
    """A rewrite computed against a body that changed meanwhile."""

    status = 409

    def __init__(self, name: str, current_body: str):
        super().__init__(
            f"The body of '{name}' changed while you were editing it; nothing was saved.",
            name=name,
        )
        self.current_body = current_body


class EditMismatch(DomainError):
    """old_string found nowhere, or more than once without replace_all."""

    def __init__(self, message: str, *, matches: int):
        super().__init__(message, field="old_string", matches=matches)


class ProjectExists(DomainError):
    status = 409

    def __init__(self, name: str):
        super().__init__(f"A project named '{name}' already exists.", project=name)


class ProjectNotEmpty(DomainError):
    status = 409

    def __init__(self, name: str, count: int):
        noun = "memory remains" if count == 1 else "memories remain"
        super().__init__(
            f"Project '{name}' cannot be removed while {count} {noun} in it; "
            "move or delete them first.",
            project=name,
            memory_count=count,
        )


class SnapshotError(DomainError):
    """A snapshot that cannot be written or read as one: the directory, the manifest, a file."""


class ImportRefused(DomainError):
    """An import some of whose memories the store refuses; nothing of it lands."""

    status = 409

    def __init__(self, message: str, *, refused: list[dict], budget: str | None):
        super().__init__(message, refused=refused, budget=budget)
        self.refused = refused


class NotPermitted(DomainError):
    """The role of the one asking does not allow the change (a purge by a non-admin)."""

    status = 403


class OutsideGrants(NotPermitted):
    """A change to a tier the one asking may see but holds no grant to change; a change
    touching one such memory (a bulk action, an undo) is refused whole."""


class NotInTrash(DomainError):
    status = 404

    def __init__(self, trashed_id):
        super().__init__(f"There is no entry {trashed_id} in the trash.", trashed=trashed_id)


class RevisionNotFound(DomainError):
    status = 404

    def __init__(self, revision_id):
        super().__init__(f"There is no revision {revision_id}.", revision=revision_id)


class ChangeSetNotFound(DomainError):
    status = 404

    def __init__(self, change_set_id):
        super().__init__(f"There is no change set {change_set_id}.", change_set=change_set_id)


class VersionUnavailable(DomainError):
    """A version that cannot be put back: a deletion, purged, or its memory in the trash."""

    status = 409

    def __init__(self, message: str, *, revision: int):
        super().__init__(message, revision=revision)


class UndoRefused(DomainError):
    """A change set some of whose rows cannot be undone: nothing of the undo lands."""

    status = 409

    def __init__(self, message: str, *, change_set: int, refused: list[dict]):
        super().__init__(message, change_set=change_set, refused=refused)


class BulkRefused(DomainError):
    """A bulk action some of whose rows were refused: nothing of it lands. `refused` names
    each row with its reason; the status is the gravest row's."""

    def __init__(self, message: str, *, status: int, refused: list[dict]):
        super().__init__(message, refused=refused)
        self.status = status


class BadRequest(DomainError):
    """A request /v1 cannot read: malformed JSON, a wrong type, a bad query parameter."""


class NotRecorded(DomainError):
    """A moment the history cannot answer for (before its oldest revision kept), or a session
    on a project there was not yet then (memories.reads.past_view)."""


class TokenRefused(DomainError):
    """An API token the user's role does not allow."""

    status = 403


class TokenUnauthorized(DomainError):
    """No usable API token: none sent, or one unknown, revoked, expired, paused or replaced."""

    status = 401


class TokenNotFound(DomainError):
    status = 404

    def __init__(self, token_id):
        super().__init__(f"There is no API token {token_id} you may change.", token=token_id)


class AccountRefused(DomainError):
    """An account change refused: a name taken, one's own account, a superuser's role."""

    status = 409


class AccountNotFound(DomainError):
    status = 404

    def __init__(self, user_id):
        super().__init__(f"There is no account {user_id}.")


class SignInRefused(DomainError):
    """An OpenID Connect sign-in refused: the provider's answer, its state or code, or a user
    whose groups map to no role here."""

    status = 403

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class TooManyStreams(DomainError):
    """A stream of the change feed refused: the server's or the account's streams are all
    open (memadmin.live.feed)."""

    status = 429
