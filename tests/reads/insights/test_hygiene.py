"""Hygiene: dangling references, orphans, shadows, the verification queue, near-copies."""

import pytest

from memories.models import Memory
from memories.reads import graph, hygiene, meaning
from memories.reads.filters import MemoryFilters
from memories.rules import similarity
from memories.rules.tiers import ANY_TIER
from tests.conftest import backdate


def names(memories) -> list[str]:
    return [m.name for m in memories]


def test_dangling_targets_grouped_most_cited_first(write, project, other_project):
    write("deploy-host")
    write("only-infra", project="infra")
    write("a", references=["deploy-host", "https://wiki.example.com/x", "write-me-later"])
    write("b", references=["https://wiki.example.com/x"], priority=1)
    write("c", project="webdev", references=["only-infra"])
    section = hygiene.dangling()
    assert [(d.target, d.kind, d.citing_count) for d in section.items] == [
        ("https://wiki.example.com/x", "url", 2),
        ("only-infra", "name", 1),
        ("write-me-later", "name", 1),
    ]
    assert names(section.items[0].citing) == ["b", "a"]  # index order
    assert section.items[1].held_elsewhere == ["infra"]
    assert section.items[2].held_elsewhere == []
    assert section.count == 3
    assert [d.target for d in hygiene.dangling(MemoryFilters(project="webdev")).items] == [
        "only-infra"
    ]
    page = hygiene.dangling(limit=1, offset=1)
    assert [d.target for d in page.items] == ["only-infra"] and page.next_offset == 2


def test_dangling_queries_are_fixed(write, django_assert_num_queries):
    for number in range(20):
        write(f"m{number}", references=[f"missing-{number % 5}", "/etc/hosts"])
    # Off the tally: the count, the page, its first citers, the shown, elsewhere.
    with django_assert_num_queries(5):
        section = hygiene.dangling()
    assert section.count == 6
    # Resolved: the scope's size off the tallies (the band's, its expired), its memories, their
    # dangling references, the citers' order, the shown, elsewhere.
    with django_assert_num_queries(7):
        assert hygiene.dangling(MemoryFilters(expired=False)).count == 6


def test_the_tally_gives_the_section_the_references_give(write, project, other_project):
    write("deploy", project="infra")
    write("runbook")
    for number in range(12):
        refs = [f"missing-{number % 4}", "deploy", "runbook", f"https://x.example/{number % 2}"]
        write(
            f"m{number}",
            project=[None, "webdev", "infra"][number % 3],
            references=refs[: 1 + number % 4],
            priority=number % 3,
        )
    for tier in (ANY_TIER, None, "webdev", "infra"):
        scope = MemoryFilters(project=tier)
        found = [link for link in graph.links(scope).outgoing() if link.to is None]
        for limit, offset in ((50, 0), (2, 0), (2, 3)):
            resolved = hygiene._dangling(found, limit, offset)
            tallied = hygiene.dangling(scope, limit=limit, offset=offset)
            assert tallied.to_dict() == resolved.to_dict(), (tier, limit, offset)
            assert tallied.count == resolved.count > 0


def test_orphans_reference_nothing_and_nothing_resolves_to_them(write, project, other_project):
    write("cited")
    write("citing", references=["cited"])
    write("alone", priority=1)
    write("cited-from-elsewhere-only", project="infra")
    write("points-there", project="webdev", references=["cited-from-elsewhere-only"])
    write("self", references=["self"])
    section = hygiene.orphans()
    # A webdev memory naming an infra memory does not reach it: still nothing references it.
    assert names(section.items) == ["alone", "cited-from-elsewhere-only"]
    assert section.count == 2
    assert names(hygiene.orphans(MemoryFilters(project="infra")).items) == [
        "cited-from-elsewhere-only"
    ]


def test_verification_queue_oldest_first(write, project):
    backdate(write("a").memory, days=200)
    backdate(write("b", project="webdev").memory, days=300)
    backdate(write("c").memory, days=100, verified_days=5)
    write("fresh")
    section = hygiene.verification_queue(period="90d")
    assert names(section.items) == ["b", "a"] and section.count == 2
    assert names(hygiene.verification_queue(period="250d").items) == ["b"]
    assert names(hygiene.verification_queue(MemoryFilters(project=None)).items) == ["a"]


def test_shadows_same_or_nearly_same_description(write, project, other_project):
    # By meaning, the memory's whole vector: its name is a third of it, so names say alike too.
    write("alice-timezone", description="Alice works in Europe/Berlin")
    write("alice-tz", project="webdev", description="Alice works in Europe/Berlin")
    write("alice-zone", project="infra", description="Alice is working in Europe Berlin")
    write("pnpm", project="webdev", description="The web app uses pnpm")
    section = hygiene.shadows()
    found = {(s.memory.name, s.shadows.name): s for s in section.items}
    assert set(found) == {("alice-tz", "alice-timezone"), ("alice-zone", "alice-timezone")}
    assert found[("alice-tz", "alice-timezone")].identical
    assert not found[("alice-zone", "alice-timezone")].identical
    assert names(s.memory for s in section.items) == ["alice-tz", "alice-zone"]


def test_duplicate_groups_stay_within_a_band(write, project, other_project):
    write("tz-1", description="Alice works in Europe/Berlin")
    write("tz-2", description="alice works in europe berlin!")
    write("w-1", project="webdev", description="Deploys go to host seven")
    write("i-1", project="infra", description="Deploys go to host seven")
    write("w-2", project="webdev", description="Deploys go to host 7")
    write("unrelated", description="Something else entirely")
    section = hygiene.duplicate_groups()
    groups = sorted(sorted(names(g.memories)) for g in section.items)
    # Two projects' memories are never in one band: w-1 and i-1 do not group.
    assert groups == [["tz-1", "tz-2"], ["w-1", "w-2"]]
    identical = {tuple(sorted(names(g.memories))): g.identical for g in section.items}
    assert identical[("tz-1", "tz-2")] is True and identical[("w-1", "w-2")] is False


def test_duplicate_groups_do_not_chain():
    # Each wording says the same as the next, the ends do not: no single group of all.
    chain = hygiene.Similarity(
        words=["a", "b", "c", "d"],
        members=[[(0, 1)], [(0, 2)], [(0, 3)], [(0, 4)]],
        pairs=[(0, 1, 0.9), (1, 2, 0.9), (2, 3, 0.9)],
    )
    groups = [ids for ids, _ in hygiene._groups(chain)]
    assert all(len(ids) < 4 for ids in groups) and groups


def test_a_near_copy_is_grouped_here_and_noted_by_the_write_door(write):
    # One rule (meaning.say_the_same) for the write door's note and the groups here: the same
    # fact reworded is both; another fact in nearly the same words is neither.
    write("backups-nightly", description="Nightly database backups run at 02:00 UTC")
    result = write("db-backups", description="Database backups run nightly at 02:00 UTC")
    assert any("already says something very similar" in note for note in result.notes)
    (group,) = hygiene.duplicate_groups().items
    assert sorted(names(group.memories)) == ["backups-nightly", "db-backups"]
    write("cache-redis", description="The cache service uses Redis")
    result = write("cache-no-redis", description="The cache service dropped Redis")
    assert not any("already says something very similar" in note for note in result.notes)
    assert hygiene.duplicate_groups().count == 1


def test_a_fact_said_in_another_order_is_grouped_and_one_changed_in_place_is_not(write):
    write("invoice-day", description="Invoices go out on the first business day of the month")
    write("invoicing", description="Invoices are sent on the month's first business day")
    write("migrate-before", description="Database migrations run before the new code is deployed")
    write("migrate-after", description="Database migrations run after the new code is deployed")
    (group,) = hygiene.duplicate_groups().items
    assert sorted(names(group.memories)) == ["invoice-day", "invoicing"]


def test_the_near_copies_read_only_the_memories_a_key_or_a_meaning_pairs(write, monkeypatch):
    write("backups-nightly", description="Nightly database backups run at 02:00 UTC")
    write("db-backups", description="Database backups run nightly at 02:00 UTC")
    write("twin-a", description="Same words here.")
    write("twin-b", description="same WORDS here")
    write("subtitles", description="Subtitles are delivered as SRT and TTML")
    write("pager", description="The pager rotation changes every Monday")
    read, words = [], similarity.words
    with monkeypatch.context() as patched:
        patched.setattr(hygiene.similarity, "words", lambda d: read.append(d) or words(d))
        groups = hygiene.duplicate_groups().items
    assert sorted(sorted(names(g.memories)) for g in groups) == [
        ["backups-nightly", "db-backups"],
        ["twin-a", "twin-b"],
    ]
    # Read: the pair by meaning and the two sharing a key; not the two alone.
    assert len(read) == 4 and not {d for d in read if "SRT" in d or "pager" in d}
    write("db-backups", description="Subtitles are delivered as SRT and TTML")
    assert sorted(sorted(names(g.memories)) for g in hygiene.duplicate_groups().items) == [
        ["db-backups", "subtitles"],
        ["twin-a", "twin-b"],
    ]


def test_a_project_memory_saying_a_global_fact_again_is_a_shadow(write, project):
    write("pnpm", description="The web app uses pnpm, never npm or yarn")
    write("use-pnpm", description="Use pnpm for the web app, not npm or yarn", project="webdev")
    write("no-pnpm", description="The web app stopped using pnpm", project="webdev")
    (shadow,) = hygiene.shadows().items
    assert (shadow.memory.name, shadow.shadows.name) == ("use-pnpm", "pnpm")
    assert meaning.NEAR_DUPLICATE_COSINE <= shadow.ratio < 1.0 and not shadow.identical


def test_report_reads_the_descriptions_once_and_its_tallies(write, django_assert_num_queries):
    backdate(write("old", references=["gone"]).memory, days=400)
    write("twin-a", description="same words here")
    write("twin-b", description="same words here")
    write("twin-c", description="the project uses pnpm and nothing else")
    meaning.held_count()  # the vectors held brought up to date, as any search by meaning does
    # The dangling targets and the orphans off their tallies, each a page and a count; three
    # more: the memories a wording key makes candidates, and the vectors' state twice.
    with django_assert_num_queries(15):
        report = hygiene.report()
    assert report.dangling.count == 1 and report.unverified.count == 1
    assert report.duplicates.count == 1 and report.shadows.count == 0
    assert sorted(names(report.orphans.items)) == ["twin-a", "twin-b", "twin-c"]


def test_marked_diff():
    ours, theirs = hygiene.marked_diff("Deploys go to host 7.", "Deploys go to host-9.")
    assert "".join(s.text for s in ours) == "Deploys go to host 7."
    assert [s.text for s in theirs if s.changed] == ["-9"]
    assert [s.text for s in ours if s.changed] == [" 7"]


def test_compare_side_by_side(write, project):
    a = write("a", description="Alice works in Berlin", body="Calls in her morning.").memory
    b = write("b", project="webdev", description="Alice works in Bern", body="Calls.").memory
    comparison = hygiene.compare([b.id, a.id, b.id, 99999])
    assert names(comparison.memories) == ["b", "a"]
    assert comparison.ratios[0] == 1.0 and 0.8 < comparison.ratios[1] < 1.0
    assert any(s.changed for s in comparison.descriptions[1])
    assert hygiene.compare([]).memories == []


@pytest.mark.parametrize(("count", "groups", "grouped"), [(5, 2, 4), (40, 3, 40)])
def test_duplicate_queries_do_not_grow(write, count, groups, grouped, django_assert_num_queries):
    # "number 0" and "number 1" are two facts (as host-7 and host-8): each wording its group.
    for number in range(count):
        write(f"m{number}", description=f"memory number {number % 3} of the set")
    meaning.held_count()
    # The memories a key makes candidates and their descriptions, the vectors' state (for
    # the memories a meaning pairs, then for the pairs), members' order, those shown.
    with django_assert_num_queries(6):
        section = hygiene.duplicate_groups()
    assert section.count == groups and sum(g.size for g in section.items) == grouped
    assert Memory.objects.count() == count


def test_near_copies_within_a_projects_band_and_other_filters(write, project, other_project):
    write("tz", description="Alice works in Europe/Berlin", tags=["people"])
    write("alice-tz", project="webdev", description="Alice works in Europe/Berlin")
    write("alice-zone", project="infra", description="Alice works in Europe/Berlin")
    webdev = MemoryFilters(project="webdev")
    assert [(s.memory.name, s.shadows.name) for s in hygiene.shadows(webdev).items] == [
        ("alice-tz", "tz")
    ]
    groups = hygiene.duplicate_groups(webdev).items
    assert [sorted(names(g.memories)) for g in groups] == [["alice-tz", "tz"]]
    assert hygiene.duplicate_groups(MemoryFilters(tag="people")).count == 0
    assert hygiene.shadows(MemoryFilters(project=None)).count == 0


def test_a_scope_beyond_a_tier_counts_its_orphans_up_to_the_bound(write, bounded_hygiene):
    for number in range(6):
        write(f"tagged-{number}", tags=["ops", "OPS"] if number % 2 else ["ops"], priority=number)
    write("cited", tags=["ops"])
    write("citing", references=["cited"])
    write("untagged")
    section = hygiene.orphans(MemoryFilters(tag="Ops"), limit=4)
    assert names(section.items) == [f"tagged-{number}" for number in range(4)]  # index order
    assert (section.count, section.more, section.count_label) == (3, True, "3+")
    assert section.next_offset == 4
    assert section.to_dict()["more"] is True
    # Two spellings of the tag on one memory count it once: 3 of the 4 with priority 2 or more.
    few = hygiene.orphans(MemoryFilters(tag="ops", priority_min=3))
    assert (few.count, few.more, names(few.items)) == (
        3,
        False,
        ["tagged-3", "tagged-4", "tagged-5"],
    )
    assert few.next_offset is None
    # One tier stays exact, off the tally.
    assert (hygiene.orphans().count, hygiene.orphans().more) == (7, False)


def test_a_scope_beyond_a_tier_bounds_its_verification_queue(write, bounded_hygiene):
    for number in range(5):
        backdate(write(f"old-{number}", tags=["ops"]).memory, days=200 + number)
    write("fresh", tags=["ops"])
    queue = hygiene.verification_queue(MemoryFilters(tag="ops"), limit=2)
    assert names(queue.items) == ["old-4", "old-3"]  # the longest unverified first
    assert (queue.count, queue.more) == (3, True)
    assert (hygiene.verification_queue().count, hygiene.verification_queue().more) == (5, False)


def test_a_large_scope_draws_its_dangling_targets_from_its_newest_memories(write, bounded_hygiene):
    for number in range(5):
        write(
            f"m{number}",
            tags=["ops"],
            references=[f"missing-{number}", "shared"],
            priority=number % 2,
        )
    large = hygiene.dangling(MemoryFilters(tag="ops"))
    assert sorted(d.target for d in large.items) == ["missing-3", "missing-4", "shared"]
    assert large.drawn_from == "the newest 2 memories of the scope"
    assert large.to_dict()["drawn_from"] == large.drawn_from
    small = hygiene.dangling(MemoryFilters(tag="ops", priority_max=0))
    assert [(d.target, d.citing_count) for d in small.items][0] == ("shared", 3)
    assert small.drawn_from is None and small.count == 4
