"""/v1/agent-view: the agent's [Memory] section of a session, now or as it stood at a moment,
and what changed in it since another."""

from django.http import HttpRequest

from memadmin.api.auth import READ, authorize
from memadmin.api.responses import ok, valid
from memories.reads.agent_view_query import AgentViewForm, answer


@authorize(READ)
def agent_view(request: HttpRequest):
    form = valid(AgentViewForm(request.GET))
    return ok(answer(form.cleaned_data).to_dict())
