"""The threshold of "near duplicate by meaning", chosen on labelled pairs of memories.

    python bench/meaning/duplicate_pairs.py

Each pair is two memories (name, description, body) and whether they record the same fact
(a near-copy an agent would be told about) or only the same topic. The cosine of their
vectors (memories.embedding.embed_memories) is computed for every pair, and the threshold
printed is the one that separates the labels best (the most pairs right; among equals the
highest, so that an advisory note errs toward silence). It sets
memories.reads.meaning.NEAR_DUPLICATE_COSINE.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

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
]  # fmt: skip


def cosines() -> list[tuple[float, bool]]:
    from memories import embedding

    left = embedding.embed_memories([a for a, _, _ in PAIRS])
    right = embedding.embed_memories([b for _, b, _ in PAIRS])
    return [(float(x @ y), label) for x, y, (_, _, label) in zip(left, right, PAIRS, strict=True)]


def best_threshold(scored: list[tuple[float, bool]]) -> tuple[float, int]:
    """(threshold, pairs right): the cut between two neighbouring cosines that gets the most
    labels right, the highest among equals."""
    values = sorted({round(c, 4) for c, _ in scored})
    cuts = [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)] + [values[-1] + 0.01]
    best = max(cuts, key=lambda t: (sum((c >= t) == label for c, label in scored), t))
    return best, sum((c >= best) == label for c, label in scored)


def main() -> None:
    scored = cosines()
    for (cosine, label), (a, b, _) in sorted(
        zip(scored, PAIRS, strict=True), key=lambda item: -item[0][0]
    ):
        print(f"{cosine:6.3f}  {'same ' if label else 'topic'}  {a[0]} / {b[0]}")
    threshold, right = best_threshold(scored)
    print(f"threshold {threshold:.3f}: {right} of {len(scored)} pairs right")


if __name__ == "__main__":
    main()
