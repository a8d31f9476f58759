"""Facts that differ are not the same fact; a memory contained in another loses nothing."""

import pytest

from memories.rules import facts


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Legacy operating rule 12 from the old wiki",
            "Legacy operating rule 13 from the old wiki",
        ),
        ("Legacy operating rule 1 from the old wiki", "Legacy operating rule 10 from the old wiki"),
        ("Production deploys go to host-7 through the bastion", "Deploys go to host-9"),
        ("Clients must call API v2.3 or later", "Clients must call API v2.4 or later"),
        ("The freeze starts on 2026-11-02", "The freeze starts on 2026-11-03"),
        ("The primary listens on 10.0.4.12", "The primary listens on 10.0.4.13"),
        ("Logs go to /var/log/app", "Logs go to /var/lib/app"),
        (
            "The status page is https://status.example.com",
            "The status page is https://status.example.org",
        ),
        ("Data stays in eu-west-1", "Data stays in us-east-1"),
        ("The owner is alice-ops", "The owner is bob-ops"),
        ("Carmen prefers Spanish in chat", "Carmen prefers English in chat"),
        ("Backups run at 02:00 UTC", "Backups run at 03:00 UTC"),
        ("Use v2.3", "Use v3.2"),
    ],
)
def test_numbers_hosts_versions_dates_paths_and_names_distinguish(a, b):
    assert facts.differ(a, b) and facts.differ(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Nightly database backups run at 02:00 UTC", "Database backups run nightly at 2:00 UTC"),
        ("The team standup is at 09:30 every weekday", "Standup happens every weekday at 9:30"),
        (
            "Production deploys go to host-7 through the bastion",
            "Deploys go via the bastion to host-7.internal",
        ),
        ("Body text uses Inter at 16 pixels", "The body font is Inter, 16px"),
        (
            "Branches are named after the ticket, like WEB-123",
            "Name each branch for its ticket: WEB-123",
        ),
        ("Alice works in the Europe/Berlin time zone", "Alice works in Europe/Berlin"),
        (
            "Web releases ship on Tuesdays and Thursdays",
            "The web app releases on Tuesday and Thursday",
        ),
        ("Candidates have four interviews", "The interview loop is four interviews"),
        ("Nightly database backups run at 02:00 UTC", "nightly DATABASE backups run at 02:00"),
        ("Nightly backups keep 14 days", "Nightly backups run at 02:00 and keep 14 days"),  # added
        ("The cache service uses Redis", "The cache service dropped Redis"),  # meaning's to tell
    ],
)
def test_paraphrases_and_added_details_do_not(a, b):
    assert not facts.differ(a, b) and not facts.differ(b, a)


def test_what_a_text_states():
    assert facts.numbers("rule 12, v2.3 on 2026-11-02 at 09:30 and 02:00") == {
        (12,),
        (2, 3),
        (2026, 11, 2),
        (9, 30),
        (2,),
    }
    assert facts.identifiers("Deploy to host-7.internal via /etc/x, k4yt3x, plain") == {
        "host-7.internal",
        "/etc/x",
        "k4yt3x",
    }
    assert facts.names("Carmen prefers Spanish. Then English on Tuesdays") == {
        "spanish",
        "english",
        "tuesday",
    }


@pytest.mark.parametrize(
    ("inner", "outer", "held"),
    [
        ("", "anything", True),
        ("Run by cron", "Run by cron on the build host.", True),
        ("run   BY cron\non the build host", "Run by cron on the build host.", True),
        ("the build host", "Run by cron on the build host.", True),  # punctuation ends a word
        ("rule 1", "Legacy rule 12 from the wiki", False),  # whole words only
        ("rule 1", "Legacy rule 1.5", False),
        ("Python 3", "runs Python 3.11", False),
        ("by cron on the build host!", "Run by cron on the build host.", False),
        ("deploy", "deploys", False),
    ],
)
def test_contained_is_whole_words_after_normalising(inner, outer, held):
    assert facts.contained(inner, [outer]) is held


def test_a_memory_loses_nothing_when_its_description_and_body_are_contained():
    kept = ("The production deploy runs every night at two", "Run by cron on the build host.")
    assert facts.loses_nothing("The production deploy runs every night", "Run by cron", *kept)
    assert facts.loses_nothing(*kept, *kept)  # exact
    assert facts.loses_nothing("run by cron", "", *kept)  # a description held by the body
    assert not facts.loses_nothing("The production deploy runs every night", "Ask ops first", *kept)
    assert not facts.loses_nothing("The production deploy runs every night at 3", "", *kept)
