"""The four senses of the seed, each with its own examples, and synonym lists."""

from memories.reads.filters import MemoryFilters
from memories.reads.search import SENSES
from tests.reads.search.conftest import names


def hit_of(result, name):
    return next(hit for hit in result.hits if hit.memory.name == name)


def test_word_sense_matches_inflections_through_the_stemmer(write, find):
    write("ship-nightly", description="Shipping runs nightly", body="Deploys go to host-7.")
    write("other", description="Unrelated note about lunch")
    for query in ("ship", "shipped", "running", "deploy", "deploying"):
        result = find(query)
        assert names(result) == ["ship-nightly"], query
        assert result.hits[0].matched_by == "word"
        assert result.hits[0].scanned_terms == []
        assert not result.last_resort


def test_prefix_forward_deploy_finds_deployment(write, find):
    write("pipeline", description="The deployment pipeline runs in CI")
    result = find("deploy")
    assert names(result) == ["pipeline"]
    assert result.hits[0].matched_by == "prefix"


def test_prefix_backward_deployment_finds_deploys(write, find):
    write("deploy-host", description="Where releases go", body="Deploys go to host-7.")
    result = find("deployment")
    assert names(result) == ["deploy-host"]
    assert result.hits[0].matched_by == "prefix"


def test_a_partly_typed_word_is_a_prefix(write, find):
    write("pipeline", description="The deployment pipeline runs in CI")
    write("unrelated", description="The lunch rota")
    result = find("deploym")
    assert names(result) == ["pipeline"]
    assert result.hits[0].matched_by == "prefix"


def test_prefix_is_only_a_retry_when_words_match_nothing(write, find):
    write("exact", description="Deploys go through the bastion")
    write("derived", description="The deployment pipeline")
    result = find("deploy")
    assert names(result) == ["exact"]
    assert result.hits[0].matched_by == "word"


def test_plain_text_finds_a_cjk_term_inside_unspaced_prose(write, find):
    write("tokyo-office", description="東京オフィスの会議室は三階にあります")
    write("osaka", description="大阪の倉庫は月曜日に閉まります")
    result = find("東京")
    assert names(result) == ["tokyo-office"]
    assert result.hits[0].matched_by == "plain_text"
    assert result.hits[0].scanned_terms == ["東京"]
    assert names(find("会議室")) == ["tokyo-office"], "a word in the middle of the run"


def test_plain_text_finds_thai_with_its_vowel_marks(write, find):
    write("thai", description="Official language", body="ภาษาไทยเป็นภาษาราชการ")
    result = find("เป็น")
    assert names(result) == ["thai"] and result.hits[0].matched_by == "plain_text"


def test_plain_text_finds_a_long_path_exactly(write, find):
    path = "/etc/nginx/sites-enabled/default.conf"
    write("nginx-default", description="The default site", body=f"Edit {path} then reload.")
    write("nginx-other", description="Another", body="Edit /etc/nginx/sites-enabled/other.conf")
    write("words-only", description="etc nginx sites enabled default conf, scattered")
    result = find(path)
    assert names(result) == ["nginx-default"]
    assert result.hits[0].matched_by == "plain_text"
    assert result.hits[0].scanned_terms == [path]


def test_urls_and_joined_identifiers_are_plain_text(write, find):
    write("runbook", description="Runbook", body="See https://wiki.example.com/ops/deploy-runbook")
    write("limits", description="The budget knob", body="Set MEMADMIN_INLINE_MAX_BYTES lower.")
    write("near-miss", description="wiki example com ops deploy runbook, no URL")
    assert names(find("https://wiki.example.com/ops/deploy-runbook")) == ["runbook"]
    assert names(find("MEMADMIN_INLINE_MAX_BYTES")) == ["limits"]
    assert find("MEMADMIN_INLINE_MAX_BYTES").hits[0].matched_by == "plain_text"


def test_a_memory_holding_words_and_scanned_term_ranks_first(write, find):
    write("both", description="Deploys from the 東京 office", priority=9)
    write("cjk-only", description="東京オフィスの会議室", priority=0)
    write("word-only", description="Deploys go through the bastion", priority=0)
    result = find("deploy 東京")
    assert names(result)[0] == "both"
    assert sorted(names(result)[1:]) == ["cjk-only", "word-only"]
    both = hit_of(result, "both")
    assert both.matched_by == "word" and both.scanned_terms == ["東京"]
    assert hit_of(result, "cjk-only").matched_by == "plain_text"
    assert hit_of(result, "word-only").scanned_terms == []
    assert both.score > 0.5 > hit_of(result, "word-only").score


def test_last_resort_scans_the_whole_query_when_nothing_else_answers(write, find):
    write("handler", description="Settings", body="getUserAccountSettingsHandler owns it.")
    result = find("AccountSettings")
    assert result.last_resort
    assert names(result) == ["handler"]
    assert result.hits[0].matched_by == "last_resort"
    assert result.hits[0].scanned_terms == ["AccountSettings"]


def test_nothing_found_is_a_clear_empty_answer(write, find):
    write("note", description="Something else entirely")
    result = find("zyzzyva")
    assert result.hits == [] and result.count == 0 and not result.last_resort


def test_synonyms_are_one_search_each_memory_once_at_its_best(write, find):
    write("terse", description="Prefers terse replies")
    write("brevity", description="Values brevity above all")
    write("verbose", description="Dislikes verbosity")
    write("two-of-them", description="Terse, for brevity's sake")
    write("unrelated", description="Lunch is at noon")
    result = find("terse", "brevity", "verbosity")
    assert sorted(names(result)) == ["brevity", "terse", "two-of-them", "verbose"]
    assert result.count == 4
    alone = find("terse")
    best = max(hit.score for hit in alone.hits if hit.memory.name == "two-of-them")
    assert hit_of(result, "two-of-them").score >= best
    assert all(hit.matched_by == "word" for hit in result.hits)


def test_synonyms_mix_senses(write, find):
    write("tokyo", description="東京の天気は晴れです")
    write("pipeline", description="The deployment pipeline")
    result = find("東京", "deploy", "zyzzyva")
    assert {hit.memory.name: hit.matched_by for hit in result.hits} == {
        "tokyo": "plain_text",
        "pipeline": "prefix",
    }
    assert all(hit.matched_by in SENSES for hit in result.hits)


def test_paging_keeps_the_count(write, find):
    for number in range(7):
        write(f"note-{number}", description=f"Kestrel sighting number {number}")
    first = find("kestrel", limit=3)
    second = find("kestrel", limit=3, offset=3)
    past = find("kestrel", limit=3, offset=30)
    assert first.count == second.count == past.count == 7
    assert len(first.hits) == len(second.hits) == 3 and past.hits == []
    assert not set(names(first)) & set(names(second))
    assert not past.last_resort


def test_hits_carry_what_is_needed_to_act_on_them(write, find):
    write("short", description="Kestrel nest", body="On the north tower.", priority=2)
    write("long", description="Kestrel survey", body="kestrel " * 100)
    write("gone", description="Kestrel ban", expires="2001-01-01")
    hits = {hit.memory.name: hit.to_dict() for hit in find("kestrel").hits}
    short = hits["short"]
    assert short["body"] == "On the north tower."
    assert "body" not in hits["long"]
    assert short["priority"] == 2 and short["read_count"] == 0 and short["project"] is None
    assert short["matched_by"] == "word" and short["scanned_terms"] == []
    assert isinstance(short["score"], float) and short["created_at"]
    assert short["verified"] is False and short["expired"] is False
    assert hits["gone"]["expired"] is True


def test_blank_queries_find_nothing(find, write):
    write("note", description="Anything")
    for queries in ([], [""], ["   "], ["\x00"]):
        result = find(*queries)
        assert result.hits == [] and result.count == 0


def test_a_memory_citing_the_query_is_found_by_reference(db, write, find):
    write("runbook-user", references=["docs/runbook.md"], body="see the runbook")
    write("incident", references=["INC-2291"], priority=1)
    write("mentions", body="The steps are in docs/runbook.md, read it first.")
    result = find("docs/runbook.md")
    assert [(hit.memory.name, hit.matched_by) for hit in result.hits] == [
        ("mentions", "plain_text"),
        ("runbook-user", "reference"),
    ]
    assert result.count == 2
    assert [(h.memory.name, h.matched_by, h.score) for h in find("INC-2291").hits] == [
        ("incident", "reference", 0.0)
    ]


def test_a_memory_found_by_text_and_by_reference_is_listed_once(db, write, find):
    write("both", references=["docs/runbook.md"], body="docs/runbook.md holds it")
    result = find("docs/runbook.md")
    assert [(h.memory.name, h.matched_by) for h in result.hits] == [("both", "plain_text")]
    assert result.count == 1


def test_reference_hits_page_after_the_text_hits_and_keep_the_filters(db, write, find, project):
    for number in range(3):
        write(f"says-{number}", body=f"INC-2291 note {number}")
    for number in range(3):
        write(f"cites-{number}", references=["INC-2291"], priority=number)
    write("web-cites", project="webdev", references=["INC-2291"])
    everything = [h.memory.name for h in find("INC-2291", limit=50).hits]
    assert everything[3:] == ["cites-0", "cites-1", "cites-2", "web-cites"]
    page = find("INC-2291", limit=2, offset=2)
    assert [h.memory.name for h in page.hits] == [everything[2], "cites-0"]
    assert page.count == 7
    only_global = find("INC-2291", filters=MemoryFilters(project=None))
    assert "web-cites" not in [h.memory.name for h in only_global.hits]
