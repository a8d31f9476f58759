"""The agent view a request asks for, page and /v1 alike: a session's project (`project`), the
moment (`at`: absent, as it stands) and another moment to diff it with (`since`)."""

import datetime as dt
import re
from dataclasses import dataclass

from django import forms
from django.utils import timezone

from memories.reads.agent_view import AgentView, TierReads, agent_view
from memories.reads.params import FirstErrorMixin, tier_param
from memories.reads.past_view import (
    answers_from,
    project_at,
    project_names_at,
    refuse_unrecorded,
    view_at,
)
from memories.reads.view_diff import ViewDiff, view_diff
from memories.rules import fields as memory_fields
from memories.rules.errors import InvalidField, NotRecorded
from memories.rules.fields import rfc3339
from projects.models import Project

MOMENT = re.compile(
    r"\d{4}-\d{2}-\d{2}"
    r"(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?"
)
# An offset's "+" sent unescaped in a query string arrives as a space.
_SPACED_OFFSET = re.compile(r"(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:\d{2})$")


def parse_moment(value: str, name: str) -> dt.datetime | None:
    """RFC 3339; a date and time with no offset, in the server's time zone (what a browser's
    datetime-local input sends); or a day, from its start there. Blank is None."""
    text = _SPACED_OFFSET.sub(r"\1+\2", value.strip())
    if not text:
        return None
    if not MOMENT.fullmatch(text):
        raise forms.ValidationError(
            f"'{value.strip()}' is not a moment: give RFC 3339 (2026-11-24T15:00:00Z), a local "
            "time (2026-11-24T15:00) or a day (2026-11-24)."
        )
    try:
        moment = dt.datetime.fromisoformat(text.replace("z", "Z").replace("t", "T"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=memory_fields.local_zone())
        moment.astimezone(dt.UTC)
    except ValueError:
        raise forms.ValidationError(f"'{value.strip()}' is not a calendar moment.") from None
    except OverflowError:
        raise forms.ValidationError(f"'{value.strip()}' is outside the years 1 to 9999.") from None
    return moment


class AgentViewForm(FirstErrorMixin, forms.Form):
    project = forms.CharField(required=False, max_length=memory_fields.PROJECT_NAME_MAX)
    at = forms.CharField(required=False, max_length=40)
    since = forms.CharField(required=False, max_length=40)

    def clean_project(self):
        try:
            return tier_param(self.data, absent=None)
        except InvalidField as error:
            raise forms.ValidationError(error.message) from None

    def clean_at(self):
        return parse_moment(self.cleaned_data["at"], "at")

    def clean_since(self):
        return parse_moment(self.cleaned_data["since"], "since")

    def clean(self):
        cleaned = super().clean()
        at, since = cleaned.get("at"), cleaned.get("since")
        now = timezone.now()
        if at is not None and at > now:
            self.add_error("at", f"{rfc3339(at)} is in the future; leave at out for the view now.")
            return cleaned
        if since is not None and since >= (at or now):
            self.add_error("since", "since must be an earlier moment than at (or than now).")
            return cleaned
        start = answers_from()
        for name, moment in (("at", at), ("since", since)):
            if moment is not None:
                try:
                    refuse_unrecorded(moment, start, name)
                except NotRecorded as refusal:
                    self.add_error(name, refusal.message)
                    return cleaned
        cleaned["answers_from"] = start
        return cleaned


@dataclass
class AgentViewAnswer:
    """The view asked for and, with `since`, the view then and what changed between."""

    project: str | None  # the session's project, as it was named at the moment
    at: dt.datetime
    live: bool  # the view as it stands (no `at`), not rebuilt
    view: AgentView
    answers_from: dt.datetime  # the earliest moment the history kept answers for
    purged: int = 0  # memories there then whose recorded state a purge erased
    since: dt.datetime | None = None
    since_view: AgentView | None = None
    diff: ViewDiff | None = None

    def text(self) -> str:
        return self.view.text()

    def to_dict(self) -> dict:
        data = {
            "project": self.project,
            "at": rfc3339(self.at),
            "live": self.live,
            "answers_from": rfc3339(self.answers_from),
            "purged": self.purged,
            "text": self.text(),
        }
        if self.diff is not None:
            data.update(
                since=rfc3339(self.since),
                since_text=self.since_view.text(),
                diff=self.diff.to_dict(),
            )
        return data


def answer(cleaned: dict, projects: list[Project] | None = None) -> AgentViewAnswer:
    """The answer to a valid AgentViewForm. `projects`, every project, saves reading them."""
    name, at, since = cleaned["project"], cleaned["at"], cleaned["since"]
    if at is None:
        current = list(Project.objects.all()) if projects is None else projects
        project = next((p for p in current if p.name == name), None) if name else None
        if name and project is None:
            Project.objects.named(name)  # refused: no project of that name
        moment = timezone.now()
        reads = TierReads(moment)
        reads.know_projects(current)
        found = AgentViewAnswer(
            project=name,
            at=moment,
            live=True,
            view=agent_view(project, moment, reads=reads),
            answers_from=cleaned.get("answers_from") or answers_from(),
        )
        project_id = project.id if project else None
    else:
        names = project_names_at(at)
        project_id = project_at(name, at, names)
        past = view_at(project_id, at, names=names)
        found = AgentViewAnswer(
            project=past.project.name if past.project else None,
            at=at,
            live=False,
            view=past.view,
            answers_from=cleaned.get("answers_from") or answers_from(),
            purged=past.purged,
        )
    if since is not None:
        before = view_at(project_id, since, "since")
        found.since = since
        found.since_view = before.view
        found.purged += before.purged
        found.diff = view_diff(before.view, found.view, since, found.at, project_id)
    return found
