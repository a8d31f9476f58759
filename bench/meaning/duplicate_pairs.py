"""The rule of "near duplicate by meaning", chosen on labelled pairs of memories.

    python bench/meaning/duplicate_pairs.py     # over the demo store's centre (var/bench/demo)

Each pair is two memories (name, description, body) and whether they record the same fact
(a near-copy an agent would be told about) or only the same topic, in nearly the same words
or not. For every pair: the cosine of their vectors (memories.embedding.embed_memories,
centred on the demo store's vectors when memories.reads.meaning centres) and the cosine of
what one's description says that the other's does not (memories.rules.similarity.
differing_words, as static word vectors: memories.embedding.embed_words). Printed: the best
threshold of the cosine alone, the best pair of thresholds of the two together (the most
pairs right; among equals the highest, so that an advisory note errs toward silence), and
the precision and recall of the rule as memories.reads.meaning has it (NEAR_DUPLICATE_COSINE,
DIFFERENCE_COSINE), on PAIRS and then on HELD_OUT, pairs written after the rule was chosen
and never used to choose it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

SAME, TOPIC = True, False

PAIRS = [
    # the same fact, worded again
    (("alice-timezone", "Alice works in the Europe/Berlin time zone", ""),
     ("alice-tz", "Alice works in the Europe/Berlin timezone", ""), SAME),
    (("alice-timezone", "Alice works in Europe/Berlin", ""),
     ("alice-tz", "Alice works in Europe/Berlin", ""), SAME),
    (("deploy-host", "Production deploys go to host-7 through the bastion", ""),
     ("prod-host", "Deploys to production go to host-7 via the bastion", ""), SAME),
    (("db-backups", "Nightly database backups run at 02:00 UTC and keep 14 days", ""),
     ("backups", "Database backups run nightly at 02:00 UTC, kept for 14 days", ""), SAME),
    (("package-manager", "The web app uses pnpm, never npm or yarn", ""),
     ("use-pnpm", "Use pnpm for the web app, not npm or yarn", ""), SAME),
    (("release-train", "Web releases ship on Tuesdays and Thursdays", ""),
     ("web-release-days", "The web app releases on Tuesday and Thursday", ""), SAME),
    (("tls-renewal", "TLS certificates renew automatically 30 days before expiry", ""),
     ("cert-renewal", "Certificates renew automatically 30 days before they expire", ""), SAME),
    (("k4yt3x-prefers", "k4yt3x prefers terse replies, no preamble", ""),
     ("k4yt3x-style", "k4yt3x wants terse replies without preamble", ""), SAME),
    (("gpu-quota", "The lab's GPU quota resets on the first of the month", ""),
     ("gpu-reset", "GPU quota of the lab resets on the 1st of each month", ""), SAME),
    (("staging-reset", "Staging is reset from a production snapshot every Sunday", ""),
     ("staging-sunday", "Every Sunday staging is reset from a snapshot of production", ""), SAME),
    (("edit-lock", "The edit is locked on the 12th; no cuts after that", ""),
     ("lock-date", "Edit lock on the 12th: no more cuts after it", ""), SAME),
    (("cache-decision-001", "The cache service uses Redis", "Decided after the March review."),
     ("cache-redis", "The cache service uses Redis", "Decided in March: latency."), SAME),
    (("answer-in-kind", "Answer in the language the user wrote in", ""),
     ("reply-language", "Reply in the language the user writes in", ""), SAME),
    (("oncall-rotation", "On-call rotates weekly on Monday 10:00 local time", ""),
     ("oncall-weekly", "The on-call rotation changes every Monday at 10:00", ""), SAME),
    (("subtitle-format", "Subtitles are delivered as SRT and TTML", ""),
     ("subtitles", "Deliver subtitles in SRT and TTML", ""), SAME),
    (("log-retention", "Application logs are kept 30 days, audit logs 1 year", ""),
     ("logs-kept", "App logs are kept for 30 days and audit logs for a year", ""), SAME),
    # the same topic, another fact
    (("alice-timezone", "Alice works in the Europe/Berlin time zone", ""),
     ("bob-timezone", "Bob works in the America/Chicago time zone", ""), TOPIC),
    (("alice-timezone", "alice works in Europe/Berlin", ""),
     ("alice-prefers", "alice prefers diagrams before prose", ""), TOPIC),
    (("cache-decision-001", "The cache service uses Redis", ""),
     ("cache-decision-002", "The cache service dropped Redis", ""), TOPIC),
    (("cache-decision-003", "The cache service uses Redis", ""),
     ("queue-decision-004", "The queue service uses Redis", ""), TOPIC),
    (("billing-decision-005", "The billing service retries exponential backoff", ""),
     ("billing-decision-006", "The billing service shards Postgres", ""), TOPIC),
    (("deploy-host", "Production deploys go to host-7 through the bastion", ""),
     ("release-train", "Web releases ship on Tuesdays and Thursdays", ""), TOPIC),
    (("db-backups", "Nightly database backups run at 02:00 UTC and keep 14 days", ""),
     ("log-retention", "Application logs are kept 30 days, audit logs 1 year", ""), TOPIC),
    (("staging-reset", "Staging is reset from a production snapshot every Sunday", ""),
     ("db-backups", "Nightly database backups run at 02:00 UTC and keep 14 days", ""), TOPIC),
    (("package-manager", "The web app uses pnpm, never npm or yarn", ""),
     ("api-client", "The web app calls the API through the generated client only", ""), TOPIC),
    (("css-approach", "Styles are plain CSS modules; no utility framework", ""),
     ("browser-support", "Supported browsers: the last two versions of each engine", ""), TOPIC),
    (("render-farm", "Renders queue on the farm overnight; the cap is 40 nodes", ""),
     ("gpu-quota", "The lab's GPU quota resets on the first of the month", ""), TOPIC),
    (("edit-lock", "The edit is locked on the 12th; no cuts after that", ""),
     ("paper-deadline", "Workshop paper deadline is the 25th, anywhere on earth", ""), TOPIC),
    (("tls-renewal", "TLS certificates renew automatically 30 days before expiry", ""),
     ("dns-provider", "DNS is managed in the provider console, not in terraform", ""), TOPIC),
    (("k4yt3x-prefers", "k4yt3x prefers terse replies, no preamble", ""),
     ("dmitri-prefers", "dmitri prefers one question at a time", ""), TOPIC),
    (("eval-protocol", "Evaluations run three seeds and report the median", ""),
     ("dataset-license", "The crawl dataset is licensed for research only", ""), TOPIC),
    (("legacy-rule-01", "Legacy operating rule 1 from the old wiki", ""),
     ("legacy-rule-02", "Legacy operating rule 2 from the old wiki", ""), TOPIC),
    (("no-secrets-in-memory", "Never store credentials or tokens in memory", ""),
     ("cite-sources", "Say where a fact came from when it matters", ""), TOPIC),
    (("auth-decision-007", "The auth service moved to SQLite", ""),
     ("auth-decision-008", "The auth service pinned version 2 of the schema", ""), TOPIC),
    (("carmen-timezone", "carmen works in Asia/Tokyo", ""),
     ("eun-ji-timezone", "eun-ji works in Asia/Seoul", ""), TOPIC),
    (("uploads-decision-009", "The uploads service uses S3", ""),
     ("export-decision-010", "The export service uses S3", ""), TOPIC),
    # added: the same fact reworded, and another fact in nearly the same words
    (("review-approvals", "Reviews need two approvals before merge", ""),
     ("two-approvals", "Two approvals are needed before merging a review", ""), SAME),
    (("backup-encryption", "Backups are encrypted with age", ""),
     ("backups-age", "Backups get encrypted using age", ""), SAME),
    (("carmen-chat", "Carmen prefers Spanish in chat", ""),
     ("carmen-spanish", "In chat Carmen prefers Spanish", ""), SAME),
    (("friday-freeze", "Deploys are frozen on Fridays", ""),
     ("no-friday-deploys", "No deploys on Fridays", ""), SAME),
    (("api-limit", "The API rate limit is 100 requests a minute", ""),
     ("rate-limit", "The rate limit of the API is 100 requests per minute", ""), SAME),
    (("carmen-chat", "Carmen prefers Spanish in chat", ""),
     ("carmen-english", "Carmen prefers English in chat", ""), TOPIC),
    (("search-decision-011", "The search service uses Elasticsearch", ""),
     ("search-decision-012", "The search service dropped Elasticsearch", ""), TOPIC),
    (("friday-freeze", "Deploys are frozen on Fridays", ""),
     ("friday-deploys", "Deploys are allowed on Fridays", ""), TOPIC),
    (("api-limit", "The API rate limit is 100 requests a minute", ""),
     ("api-limit-2", "The API rate limit is 1000 requests a minute", ""), TOPIC),
    (("staging-db", "Staging runs Postgres 15", ""),
     ("prod-db", "Production runs Postgres 15", ""), TOPIC),
    (("package-manager", "The web app uses pnpm, never npm or yarn", ""),
     ("package-manager-old", "The web app stopped using pnpm and went back to npm", ""), TOPIC),
    (("deploy-host", "Production deploys go to host-7 through the bastion", ""),
     ("deploy-host-8", "Production deploys go to host-8 through the bastion", ""), TOPIC),
]  # fmt: skip

# Held out: written after the thresholds were chosen on PAIRS and never used to choose them,
# so the rule's precision and recall on these say how it does on pairs it was not fitted to.
HELD_OUT = [
    # the same fact, worded again
    (("ci-timeout", "CI jobs time out after 45 minutes", ""),
     ("ci-job-limit", "A CI job is killed after 45 minutes", ""), SAME),
    (("standup-time", "The team standup is at 09:30 every weekday", ""),
     ("daily-standup", "Standup happens every weekday at 9:30", ""), SAME),
    (("python-version", "The backend runs on Python 3.11", ""),
     ("backend-python", "Python 3.11 is what the backend runs on", ""), SAME),
    (("pr-size", "Pull requests should stay under 400 changed lines", ""),
     ("small-prs", "Keep pull requests below 400 lines of change", ""), SAME),
    (("vpn-required", "The admin panel is reachable only through the VPN", ""),
     ("admin-vpn", "You need the VPN to reach the admin panel", ""), SAME),
    (("invoice-day", "Invoices go out on the first business day of the month", ""),
     ("invoicing", "Invoices are sent on the month's first business day", ""), SAME),
    (("sentry-alerts", "Errors are reported to Sentry and paged after 10 in an hour", ""),
     ("error-paging", "Sentry pages on-call once errors pass 10 in an hour", ""), SAME),
    (("mara-units", "Mara wants metric units in every answer", ""),
     ("mara-metric", "Use metric units when answering Mara", ""), SAME),
    (("db-migrations", "Database migrations run before the new code is deployed", ""),
     ("migrate-first", "Migrations are applied before deploying new code", ""), SAME),
    (("font-choice", "Body text uses Inter at 16 pixels", ""),
     ("body-font", "The body font is Inter, 16px", ""), SAME),
    (("screen-reader", "Every page is tested with a screen reader before release", ""),
     ("a11y-check", "Pages get a screen reader test before they are released", ""), SAME),
    (("branch-naming", "Branches are named after the ticket, like WEB-123", ""),
     ("ticket-branches", "Name each branch for its ticket, for example WEB-123", ""), SAME),
    (("color-grading", "Color grading is done in DaVinci Resolve", ""),
     ("grading-tool", "We grade color in DaVinci Resolve", ""), SAME),
    (("seed-count", "Each experiment is run with five random seeds", ""),
     ("five-seeds", "Experiments use five random seeds each", ""), SAME),
    (("weekly-report", "The weekly report is due Friday at noon", ""),
     ("report-friday", "Send the weekly report by noon on Friday", ""), SAME),
    (("cdn-cache", "Static assets are cached at the CDN for one week", ""),
     ("asset-ttl", "The CDN keeps static assets cached for a week", ""), SAME),
    (("tz-utc", "All server timestamps are stored in UTC", ""),
     ("utc-timestamps", "Servers store every timestamp in UTC", ""), SAME),
    (("interview-loop", "Candidates have four interviews, one of them a pairing session", ""),
     ("hiring-loop", "The interview loop is four interviews including one pairing session", ""),
     SAME),
    (("jon-emoji", "Jon dislikes emoji in replies", ""),
     ("jon-no-emoji", "Do not use emoji when replying to Jon", ""), SAME),
    (("data-retention", "User data is deleted 90 days after an account closes", ""),
     ("account-deletion", "90 days after an account is closed its user data is deleted", ""),
     SAME),
    # the same topic, another fact
    (("ci-timeout", "CI jobs time out after 45 minutes", ""),
     ("ci-timeout-old", "CI jobs time out after 15 minutes", ""), TOPIC),
    (("standup-time", "The team standup is at 09:30 every weekday", ""),
     ("retro-time", "The team retrospective is at 16:00 every other Friday", ""), TOPIC),
    (("python-version", "The backend runs on Python 3.11", ""),
     ("node-version", "The frontend builds with Node 20", ""), TOPIC),
    (("vpn-required", "The admin panel is reachable only through the VPN", ""),
     ("vpn-dropped", "The admin panel no longer needs the VPN", ""), TOPIC),
    (("mara-units", "Mara wants metric units in every answer", ""),
     ("mara-imperial", "Mara wants imperial units in every answer", ""), TOPIC),
    (("mara-units", "Mara wants metric units in every answer", ""),
     ("lee-units", "Lee wants metric units in every answer", ""), TOPIC),
    (("db-migrations", "Database migrations run before the new code is deployed", ""),
     ("db-migrations-after", "Database migrations run after the new code is deployed", ""),
     TOPIC),
    (("font-choice", "Body text uses Inter at 16 pixels", ""),
     ("heading-font", "Headings use Fraunces at 32 pixels", ""), TOPIC),
    (("branch-naming", "Branches are named after the ticket, like WEB-123", ""),
     ("commit-style", "Commit messages start with the ticket, like WEB-123", ""), TOPIC),
    (("color-grading", "Color grading is done in DaVinci Resolve", ""),
     ("editing-tool", "Editing is done in Premiere Pro", ""), TOPIC),
    (("seed-count", "Each experiment is run with five random seeds", ""),
     ("eval-split", "Each experiment is evaluated on the held-out test split", ""), TOPIC),
    (("weekly-report", "The weekly report is due Friday at noon", ""),
     ("monthly-report", "The monthly report is due on the last Friday at noon", ""), TOPIC),
    (("cdn-cache", "Static assets are cached at the CDN for one week", ""),
     ("api-cache", "API responses are never cached at the CDN", ""), TOPIC),
    (("tz-utc", "All server timestamps are stored in UTC", ""),
     ("tz-display", "Timestamps are shown to users in their local time zone", ""), TOPIC),
    (("jon-emoji", "Jon dislikes emoji in replies", ""),
     ("jon-likes-emoji", "Jon likes emoji in replies", ""), TOPIC),
    (("data-retention", "User data is deleted 90 days after an account closes", ""),
     ("log-deletion", "Access logs are deleted 30 days after they are written", ""), TOPIC),
    (("sentry-alerts", "Errors are reported to Sentry and paged after 10 in an hour", ""),
     ("uptime-alerts", "Uptime checks page on-call after two failures in a row", ""), TOPIC),
    (("pr-size", "Pull requests should stay under 400 changed lines", ""),
     ("pr-reviewers", "Pull requests need a reviewer from the owning team", ""), TOPIC),
    (("invoice-day", "Invoices go out on the first business day of the month", ""),
     ("payroll-day", "Payroll runs on the last business day of the month", ""), TOPIC),
    (("screen-reader", "Every page is tested with a screen reader before release", ""),
     ("browser-matrix", "Every page is tested in Firefox and Safari before release", ""),
     TOPIC),
]  # fmt: skip


def scored(pairs=PAIRS) -> list[tuple[float, float, bool]]:
    """(centred cosine, cosine of the differing words, label) of every pair."""
    import numpy as np

    from memories import embedding
    from memories.reads import meaning
    from memories.rules import similarity

    meaning.held_count()
    left = meaning._held.centred(embedding.embed_memories([a for a, _, _ in pairs]))
    right = meaning._held.centred(embedding.embed_memories([b for _, b, _ in pairs]))
    found = []
    for x, y, (a, b, label) in zip(left, right, pairs, strict=True):
        ours, theirs = similarity.differing_words(a[1], b[1])
        if ours and theirs:
            u, v = embedding.embed_words([" ".join(ours), " ".join(theirs)])
            differing = float(u @ v)
        else:
            differing = 1.0
        found.append((float(np.dot(x, y)), differing, label))
    return found


def _cuts(values: list[float]) -> list[float]:
    values = sorted({round(v, 4) for v in values})
    return [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)] + [values[-1] + 0.01]


def right(scored, cosine: float, differing: float) -> int:
    return sum(((c >= cosine and d >= differing) == label) for c, d, label in scored)


def precision_recall(scored, cosine: float, differing: float) -> tuple[float, float]:
    said = [label for c, d, label in scored if c >= cosine and d >= differing]
    same = sum(label for _, _, label in scored)
    return (sum(said) / len(said) if said else 1.0), sum(said) / same


def main() -> None:
    import generate
    from recall import demo_store

    demo_store(generate.ROOT / "var" / "bench" / "demo")
    from memories.reads import meaning

    found = scored()
    for (cosine, differing, label), (a, b, _) in sorted(
        zip(found, PAIRS, strict=True), key=lambda item: -item[0][0]
    ):
        print(f"{cosine:6.3f} {differing:6.3f}  {'same ' if label else 'topic'}  {a[0]} / {b[0]}")
    n = len(found)
    alone = max(_cuts([c for c, _, _ in found]), key=lambda t: (right(found, t, -1.0), t))
    p, r = precision_recall(found, alone, -1.0)
    print(
        f"cosine alone: {alone:.3f}: {right(found, alone, -1.0)} of {n} right, "
        f"precision {p:.2f} recall {r:.2f}"
    )
    both = max(
        ((c, d) for c in _cuts([c for c, _, _ in found]) for d in _cuts([d for _, d, _ in found])),
        key=lambda t: (right(found, *t), t),
    )
    p, r = precision_recall(found, *both)
    print(
        f"best pair: cosine {both[0]:.3f} and differing words {both[1]:.3f}: "
        f"{right(found, *both)} of {n} right, precision {p:.2f} recall {r:.2f}"
    )
    rule = (meaning.NEAR_DUPLICATE_COSINE, meaning.DIFFERENCE_COSINE)
    p, r = precision_recall(found, *rule)
    print(
        f"the rule in force: cosine {rule[0]} and differing words {rule[1]}: "
        f"{right(found, *rule)} of {n} right, precision {p:.2f} recall {r:.2f}"
    )
    held = scored(HELD_OUT)
    print("held out:")
    for (cosine, differing, label), (a, b, _) in sorted(
        zip(held, HELD_OUT, strict=True), key=lambda item: -item[0][0]
    ):
        said = cosine >= rule[0] and differing >= rule[1]
        verdict = "right" if said == label else "WRONG"
        print(
            f"{cosine:6.3f} {differing:6.3f}  {'same ' if label else 'topic'}  {verdict}  "
            f"{a[0]} / {b[0]}"
        )
    p, r = precision_recall(held, *rule)
    print(
        f"the rule in force on {len(held)} held-out pairs "
        f"({sum(label for *_, label in held)} the same fact): "
        f"{right(held, *rule)} right, precision {p:.2f} recall {r:.2f}"
    )


if __name__ == "__main__":
    main()
