"""The consolidation page shows a member to review beside its survivor, its differences
marked, merged by hand by its own button; the whole plan's form never names it."""

from html.parser import HTMLParser

import pytest

from memories.models import ChangeSet, Memory
from tests.conftest import write_duplicates, write_to_review

URL = "/hygiene/consolidation/"


class Node:
    def __init__(self, tag: str, attrs: dict, parent=None):
        self.tag, self.attrs, self.parent, self.children, self.texts = tag, attrs, parent, [], []

    def text(self) -> str:
        return "".join(part if isinstance(part, str) else part.text() for part in self.texts)

    def find_all(self, tag: str, **attrs) -> list["Node"]:
        found = []
        for child in self.children:
            if child.tag == tag and all(_has(child, key, value) for key, value in attrs.items()):
                found.append(child)
            found.extend(child.find_all(tag, **attrs))
        return found


def _has(node: Node, key: str, value: str) -> bool:
    if key == "class_":
        return value in (node.attrs.get("class") or "").split()
    return node.attrs.get(key) == value


VOID = {"input", "br", "img", "meta", "link", "hr"}


class Tree(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.root = self.at = Node("root", {})
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.at)
        self.at.children.append(node)
        self.at.texts.append(node)
        if tag not in VOID:
            self.at = node

    def handle_endtag(self, tag):
        at = self.at
        while at is not self.root and at.tag != tag:
            at = at.parent
        if at is not self.root:
            self.at = at.parent

    def handle_data(self, data):
        self.at.texts.append(data)


@pytest.fixture
def store(db, project):
    write_duplicates()
    write_to_review()


def _forms(root: Node) -> list[tuple[list[str], dict]]:
    return [
        (
            [i.attrs["value"] for i in form.find_all("input", name="key")],
            {i.attrs["name"]: i.attrs.get("value") for i in form.find_all("input")},
        )
        for form in root.find_all("form", method="post")
    ]


def test_a_member_to_review_is_shown_beside_its_survivor_with_its_differences(operator, store):
    root = Tree(operator.get(URL).content.decode()).root
    (review,) = root.find_all("article", class_="review")
    assert review.attrs["aria-label"] == "Review of deploy-at-two"
    (survivor,) = review.find_all("section", class_="survivor-side")
    (member,) = review.find_all("section", class_="member-side")
    assert "deploy-night" in survivor.find_all("h4")[0].text()
    marked_member = [m.text() for m in member.find_all("mark", class_="changed")]
    marked_survivor = [m.text() for m in survivor.find_all("mark", class_="changed")]
    assert "am" in " ".join(marked_member) and "two" in " ".join(marked_survivor)
    # The body's markup is text, escaped; the tag only it has and the priority are marked.
    assert "page <b>ops</b> if it fails" in member.find_all("pre")[0].text()
    assert [b.text() for b in member.find_all("span", class_="badge-differs")] == [
        "priority 5",
        "night",
    ]
    summary = root.find_all("p", class_="summary")[0].text()
    assert "One click would put 2 memories in the trash; 1 needs review." in summary


def test_the_whole_plan_never_names_a_review_and_its_own_button_merges_it(operator, store):
    root = Tree(operator.get(URL).content.decode()).root
    forms = _forms(root)
    whole = next(keys for keys, fields in forms if len(keys) == 2)
    merge = next(fields for keys, fields in forms if fields.get("reviewed") == "1")
    assert merge["key"] not in whole
    applied = operator.post(URL, {"key": whole}).content.decode()
    assert "applied 2</span>" in applied
    assert Memory.objects.filter(name="deploy-at-two").exists()

    # The survivor changed: the review is drawn again with a new key. Posted without the
    # review's mark, that key is refused; with it, merged and undoable.
    merge = next(f for _, f in _forms(Tree(applied).root) if f.get("reviewed") == "1")
    refused = operator.post(URL, {"key": merge["key"]}).content.decode()
    assert "refused 1</span>" in refused and "merge by hand" in refused
    merged = operator.post(URL, {"key": merge["key"], "reviewed": "1"}).content.decode()
    assert "applied 1</span>" in merged
    assert not Memory.objects.filter(name="deploy-at-two").exists()
    change_set = ChangeSet.objects.get(revisions__name="deploy-at-two", summary__endswith="review")
    assert f'action="/history/changes/{change_set.id}/"' in merged
