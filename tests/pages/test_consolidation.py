"""The consolidation review's page: the plan drawn, a cluster or the whole plan applied with
its receipt, a stale cluster refused, an applied one undone; auditors read and cannot apply."""

import re

import pytest

from memories.models import ChangeSet, Memory
from tests.conftest import write_duplicates
from tests.pages.conftest import chrome_free

URL = "/hygiene/consolidation/"


@pytest.fixture
def store(db, project):
    write_duplicates()


def keys(html: str) -> list[str]:
    return re.findall(r'name="key" value="([^"]+)"', html)


def test_the_plan_is_drawn(auditor, store):
    response = auditor.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "2 clusters." in html
    assert "alike in meaning" in html and "the same description and body" in html
    assert "+ deploy" in html and "+ https://ci.example/deploy" in html
    assert re.search(
        r"cite-it</a> <span class=\"muted\">global</span>: "
        r"<span class=\"mono\">nightly-deploy</span> → "
        r"<span class=\"mono\">deploy-night</span>",
        html,
    )
    assert "Answer in &lt;b&gt;kind&lt;/b&gt;" in html and "<b>kind</b>" not in html
    # An auditor is shown no control to apply, and is refused if it posts anyway.
    assert keys(html) == [] and "Apply this cluster" not in html
    assert auditor.post(URL, {"key": "1.1-2.2-"}).status_code == 403
    assert Memory.objects.count() == 8


def test_one_tier(auditor, store):
    html = auditor.get(URL, {"project": "webdev"}).content.decode()
    assert "1 cluster." in html and "copy-b" in html and "deploy-night" not in html
    assert auditor.get(URL, {"project": "nowhere"}).status_code == 404
    assert auditor.get(URL, {"limit": "0"}).status_code == 400


def test_the_nav_and_the_hygiene_page_lead_here(auditor, store):
    html = auditor.get(URL).content.decode()
    assert f'<a href="{URL}" aria-current="page">Consolidation</a>' in html
    assert f'href="{URL}"' in auditor.get("/hygiene/").content.decode()


def test_an_operator_applies_one_cluster_and_undoes_it(operator, store):
    page = operator.get(URL).content.decode()
    found = keys(page)  # the whole plan's keys, then one form a cluster
    assert len(found) == 4 and found[:2] == found[2:]
    survivor = Memory.objects.get(name="deploy-night")
    near = next(key for key in found if key.startswith(f"{survivor.id}."))
    response = operator.post(URL, {"key": near})
    assert response.status_code == 200
    html = response.content.decode()
    assert (
        "planned 1</span> · <span>applied 1</span> · <span>refused 0</span> · <span>skipped 0"
        in html
    )
    assert not Memory.objects.filter(name="nightly-deploy").exists()
    assert Memory.objects.get(name="deploy-night").tags == ["ops", "deploy"]
    assert Memory.objects.get(name="cite-it").references == ["deploy-night", "tz"]
    assert "1 cluster." in html  # the plan drawn again: the other cluster is left
    change_set = ChangeSet.objects.get(revisions__name="nightly-deploy")
    assert f'action="/history/changes/{change_set.id}/"' in html  # its Undo
    undone = operator.post(f"/history/changes/{change_set.id}/")
    assert undone.status_code == 302
    assert Memory.objects.get(name="nightly-deploy").tags == ["deploy", "ops"]
    assert Memory.objects.get(name="deploy-night").tags == ["ops"]
    assert Memory.objects.get(name="cite-it").references == ["nightly-deploy", "tz"]


def test_the_whole_plan_and_a_stale_cluster(operator, write, store):
    page = operator.get(URL).content.decode()
    plan_keys = keys(page)[:2]
    write(
        "deploy-night", description="The production deploy runs every night at two", priority=1
    )  # changed after the page was drawn
    html = operator.post(URL, {"key": plan_keys}).content.decode()
    assert "planned 2</span> · <span>applied 1</span> · <span>refused 1</span>" in html
    assert "Changed since the plan was drawn" in html and "draw the plan again" in html
    assert Memory.objects.filter(name="nightly-deploy").exists()
    assert not Memory.objects.filter(name="copy-a").exists()


@pytest.mark.parametrize("data", [{}, {"key": "nonsense"}])
def test_a_post_without_a_cluster_is_refused(operator, store, data):
    response = operator.post(URL, data)
    assert response.status_code == 400
    assert Memory.objects.count() == 8


def test_the_tier_picker_redraws_the_plan_alone(auditor, store, htmx):
    response = auditor.get(URL, {"project": "webdev"}, **htmx)
    html = response.content.decode()
    assert chrome_free(html) and "copy-b" in html and "deploy-night" not in html
    assert response["HX-Push-Url"] == URL + "?project=webdev"
