"""The rule of "near duplicate by meaning", chosen on labelled pairs of memories.

    python bench/meaning/duplicate_pairs.py     # over the demo store's centre (var/bench/demo)

Each pair is two memories (name, description, body) and whether they record the same fact
(a near-copy an agent would be told about) or only the same topic, in nearly the same words
or not. For every pair: the cosine of their vectors (memories.embedding.embed_memories,
centred on the demo store's vectors when memories.reads.meaning centres), the cosine of what
one's description says that the other's does not (memories.rules.similarity.differing_words,
as static word vectors: memories.embedding.embed_words), whether a number, identifier or name
tells them apart (memories.rules.facts.differ) and whether one says the other in another
order (memories.rules.similarity.reworded). Printed: every pair with the rule's verdict; the
best thresholds of each rule on the 128 pairs of PAIRS, HELD_OUT and DEMO_KIND (the most pairs
right; among equals the highest, so that an advisory note errs toward silence) and how they
do on FRESH, pairs written before the rule was last changed and never used to choose it; the
precision and recall of each rule at the thresholds of memories.reads.meaning by set; that
the bench's rule is meaning.say_the_same's, pair for pair; and the demo store's
consolidation plan.
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


# Of the demo store's kind (added 2026-12-04, issue 42): rules and notes in nearly the same
# words that differ by a number, a host, a version, a date, a path, an address or a name (other
# facts), and notes said again in other words (the same fact). Written to test the rule that
# numbers, identifiers and names distinguish facts (memories.rules.facts), never to fit it.
_RUNBOOK = "# {0}\n\n## Step 1\n- Check the dashboard for open alerts before starting.\n"
DEMO_KIND = [
    # another fact in nearly the same words
    (("legacy-rule-00", "Legacy operating rule 0 from the old wiki", _RUNBOOK.format("Rule 0")),
     ("legacy-rule-01", "Legacy operating rule 1 from the old wiki", _RUNBOOK.format("Rule 1")),
     TOPIC),
    (("legacy-rule-01", "Legacy operating rule 1 from the old wiki", _RUNBOOK.format("Rule 1")),
     ("legacy-rule-10", "Legacy operating rule 10 from the old wiki", _RUNBOOK.format("Rule 10")),
     TOPIC),
    (("legacy-rule-12", "Legacy operating rule 12 from the old wiki", ""),
     ("legacy-rule-13", "Legacy operating rule 13 from the old wiki", ""), TOPIC),
    (("legacy-rule-14", "Legacy operating rule 14 from the old wiki", ""),
     ("legacy-rule-15", "Legacy operating rule 15 from the old wiki", ""), TOPIC),
    (("deploy-host-7", "Production deploys go to host-7 through the bastion", ""),
     ("deploy-host-9", "Production deploys go to host-9 through the bastion", ""), TOPIC),
    (("bastion-2", "SSH to production goes through bastion-2", ""),
     ("bastion-3", "SSH to production goes through bastion-3", ""), TOPIC),
    (("db-primary", "The primary database listens on 10.0.4.12 port 5432", ""),
     ("db-replica", "The primary database listens on 10.0.4.13 port 5432", ""), TOPIC),
    (("pg-port", "Postgres listens on port 5432 on the database host", ""),
     ("pg-port-old", "Postgres listens on port 5433 on the database host", ""), TOPIC),
    (("api-version", "Clients must call API v2.3 or later", ""),
     ("api-version-next", "Clients must call API v2.4 or later", ""), TOPIC),
    (("python-311", "The backend runs on Python 3.11", ""),
     ("python-312", "The backend runs on Python 3.12", ""), TOPIC),
    (("node-20", "The frontend builds with Node 20", ""),
     ("node-22", "The frontend builds with Node 22", ""), TOPIC),
    (("freeze-start", "The release freeze starts on 2026-11-02", ""),
     ("freeze-start-moved", "The release freeze starts on 2026-11-03", ""), TOPIC),
    (("migration-date", "The billing migration is scheduled for 2027-01-15", ""),
     ("migration-date-2", "The billing migration is scheduled for 2027-02-15", ""), TOPIC),
    (("backup-time", "Nightly database backups run at 02:00 UTC", ""),
     ("backup-time-3", "Nightly database backups run at 03:00 UTC", ""), TOPIC),
    (("log-path", "Application logs are written to /var/log/memadmin/app.log", ""),
     ("log-path-web", "Application logs are written to /var/log/memadmin/web.log", ""), TOPIC),
    (("config-path", "The deploy config lives in /etc/deploy/prod.yaml", ""),
     ("config-path-staging", "The deploy config lives in /etc/deploy/staging.yaml", ""), TOPIC),
    (("status-url", "The status page is https://status.example.com", ""),
     ("status-url-2", "The status page is https://status.example.org", ""), TOPIC),
    (("runbook-url", "The deploy runbook is at https://wiki.example.com/runbooks/deploy", ""),
     ("runbook-url-2", "The deploy runbook is at https://wiki.example.com/runbooks/rollback",
      ""), TOPIC),
    (("retention-14", "Database backups are kept for 14 days", ""),
     ("retention-30", "Database backups are kept for 30 days", ""), TOPIC),
    (("rate-limit-100", "The public API allows 100 requests a minute per token", ""),
     ("rate-limit-120", "The public API allows 120 requests a minute per token", ""), TOPIC),
    (("ticket-web-123", "The login bug is tracked as WEB-123", ""),
     ("ticket-web-124", "The login bug is tracked as WEB-124", ""), TOPIC),
    (("owner-alice", "The billing service is owned by alice-ops", ""),
     ("owner-bob", "The billing service is owned by bob-ops", ""), TOPIC),
    (("region-eu", "Customer data stays in the eu-west-1 region", ""),
     ("region-us", "Customer data stays in the us-east-1 region", ""), TOPIC),
    (("oncall-monday", "On-call hands over on Monday at 10:00", ""),
     ("oncall-tuesday", "On-call hands over on Tuesday at 10:00", ""), TOPIC),
    (("chat-japanese", "carmen wants Japanese for casual chat", ""),
     ("chat-korean", "carmen wants Korean for casual chat", ""), TOPIC),
    (("step-3", "Deploy step 3: take a snapshot and note its id", ""),
     ("step-4", "Deploy step 4: take a snapshot and note its id", ""), TOPIC),
    # the same fact, worded again (numbers, hosts and versions kept)
    (("deploy-host", "Production deploys go to host-7 through the bastion", ""),
     ("deploys-host-7", "Deploys to production go through the bastion to host-7.internal", ""),
     SAME),
    (("db-primary", "The primary database listens on 10.0.4.12 port 5432", ""),
     ("primary-address", "The primary database is at 10.0.4.12, port 5432", ""), SAME),
    (("api-version", "Clients must call API v2.3 or later", ""),
     ("api-min-version", "API v2.3 is the oldest version clients may call", ""), SAME),
    (("freeze-start", "The release freeze starts on 2026-11-02", ""),
     ("freeze-begins", "From 2026-11-02 releases are frozen", ""), SAME),
    (("backup-time", "Nightly database backups run at 02:00 UTC", ""),
     ("backups-at-2", "Database backups run every night at 2:00 UTC", ""), SAME),
    (("log-path", "Application logs are written to /var/log/memadmin/app.log", ""),
     ("app-log", "The application writes its logs to /var/log/memadmin/app.log", ""), SAME),
    (("status-url", "The status page is https://status.example.com", ""),
     ("status-page", "Find the status page at https://status.example.com", ""), SAME),
    (("retention-14", "Database backups are kept for 14 days", ""),
     ("backups-14-days", "Backups of the database are kept 14 days", ""), SAME),
    (("rate-limit-100", "The public API allows 100 requests a minute per token", ""),
     ("token-limit", "Each token may make 100 requests a minute to the public API", ""), SAME),
    (("ticket-web-123", "The login bug is tracked as WEB-123", ""),
     ("login-bug", "WEB-123 tracks the login bug", ""), SAME),
    (("region-eu", "Customer data stays in the eu-west-1 region", ""),
     ("eu-data", "Customer data is kept in the eu-west-1 region", ""), SAME),
    (("python-311", "The backend runs on Python 3.11", ""),
     ("py-version", "Python 3.11 runs the backend", ""), SAME),
    (("legacy-rule-07", "Legacy operating rule 7 from the old wiki", ""),
     ("old-rule-7", "Operating rule 7 of the old wiki (legacy)", ""), SAME),
    (("pg-port", "Postgres listens on port 5432 on the database host", ""),
     ("postgres-5432", "On the database host Postgres listens on port 5432", ""), SAME),
]  # fmt: skip


# Written 2026-12-05 before the rule was changed and before any of them was scored: the held-out
# check of the rule chosen on PAIRS, HELD_OUT and DEMO_KIND together (never used to choose it).
# Rewordings that reorder a sentence, contradictions in the same frame (one word swapped) and in
# another frame, numbers written as words, and rules of the demo store's kind.
_ROLLBACK = "# {0}\n\n## Step 1\n- Stop the workers and wait for the queue to drain.\n"
FRESH = [
    # the same fact, worded again
    (("deploy-window", "Deploys happen between 09:00 and 16:00 on weekdays", ""),
     ("deploy-hours", "Only deploy on weekdays from 09:00 to 16:00", ""), SAME),
    (("code-owner-review", "Changes to the billing code need a review from the payments team",
      ""),
     ("billing-reviews", "The payments team must review every change to the billing code", ""),
     SAME),
    (("ssh-keys", "SSH keys are rotated every 90 days", ""),
     ("key-rotation", "Every 90 days the SSH keys get rotated", ""), SAME),
    (("lint-before-push", "Run the linter before pushing a branch", ""),
     ("push-lint", "Branches are linted before they are pushed", ""), SAME),
    (("user-name", "The user's name is Priya", ""),
     ("priya-name", "The user is called Priya", ""), SAME),
    (("short-answers", "Keep answers short unless asked for detail", ""),
     ("brief-replies", "Reply briefly unless the user asks for more detail", ""), SAME),
    (("backup-offsite", "A copy of every backup is stored offsite in another region", ""),
     ("offsite-copy", "Every backup also has an offsite copy in a second region", ""), SAME),
    (("test-coverage", "New code must keep test coverage above 80 percent", ""),
     ("coverage-80", "Coverage must stay over 80 percent for new code", ""), SAME),
    (("meeting-notes", "Meeting notes go in the team wiki the same day", ""),
     ("notes-wiki", "Put the meeting notes on the team wiki on the day of the meeting", ""), SAME),
    (("no-force-push", "Never force-push to the main branch", ""),
     ("main-force", "Force pushes to main are not allowed", ""), SAME),
    (("docker-base", "Images are built on the Debian slim base image", ""),
     ("slim-base", "The Debian slim image is the base of every image we build", ""), SAME),
    (("holiday-freeze", "There are no releases during the December holidays", ""),
     ("december-freeze", "Releases stop over the December holidays", ""), SAME),
    (("translation-review", "Translations are checked by a native speaker before publishing",
      ""),
     ("native-check", "A native speaker reviews each translation before it is published", ""),
     SAME),
    (("password-length", "Passwords must be at least 12 characters long", ""),
     ("min-password", "The minimum password length is 12 characters", ""), SAME),
    (("queue-retries", "Failed jobs are retried three times before they are dropped", ""),
     ("job-retry", "A failed job gets three retries and is then dropped", ""), SAME),
    (("legacy-rule-04", "Legacy operating rule 4 from the old wiki", ""),
     ("rule-4-legacy", "Legacy rule 4 of the operating rules in the old wiki", ""), SAME),
    (("port-8080", "The admin API listens on port 8080", ""),
     ("admin-port", "Port 8080 serves the admin API", ""), SAME),
    # the same topic, another fact
    (("deploy-window", "Deploys happen between 09:00 and 16:00 on weekdays", ""),
     ("deploy-window-late", "Deploys happen between 09:00 and 18:00 on weekdays", ""), TOPIC),
    (("ssh-keys", "SSH keys are rotated every 90 days", ""),
     ("api-keys", "API keys are rotated every 90 days", ""), TOPIC),
    (("lint-before-push", "Run the linter before pushing a branch", ""),
     ("lint-after-push", "Run the linter after pushing a branch", ""), TOPIC),
    (("short-answers", "Keep answers short unless asked for detail", ""),
     ("long-answers", "Give long, detailed answers by default", ""), TOPIC),
    (("no-force-push", "Never force-push to the main branch", ""),
     ("force-push-ok", "Force-pushing to the main branch is fine after a rebase", ""), TOPIC),
    (("test-coverage", "New code must keep test coverage above 80 percent", ""),
     ("coverage-optional", "Test coverage is not tracked for new code", ""), TOPIC),
    (("holiday-freeze", "There are no releases during the December holidays", ""),
     ("summer-freeze", "There are no releases during the August holidays", ""), TOPIC),
    (("queue-retries", "Failed jobs are retried three times before they are dropped", ""),
     ("queue-retries-5", "Failed jobs are retried five times before they are dropped", ""),
     TOPIC),
    (("docker-base", "Images are built on the Debian slim base image", ""),
     ("alpine-base", "Images are built on the Alpine base image", ""), TOPIC),
    (("user-name", "The user's name is Priya", ""),
     ("user-pronouns", "The user's pronouns are she/her", ""), TOPIC),
    (("meeting-notes", "Meeting notes go in the team wiki the same day", ""),
     ("meeting-agenda", "The meeting agenda goes in the team wiki a day before", ""), TOPIC),
    (("password-length", "Passwords must be at least 12 characters long", ""),
     ("password-expiry", "Passwords expire after 12 months", ""), TOPIC),
    (("translation-review", "Translations are checked by a native speaker before publishing",
      ""),
     ("translation-machine",
      "Translations are published straight from the machine translation without review", ""),
     TOPIC),
    (("backup-offsite", "A copy of every backup is stored offsite in another region", ""),
     ("backup-same-region", "Backups are stored only in the same region as the data", ""),
     TOPIC),
    (("code-owner-review", "Changes to the billing code need a review from the payments team",
      ""),
     ("code-owner-search", "Changes to the search code need a review from the platform team",
      ""), TOPIC),
    (("legacy-rule-03", "Legacy operating rule 3 from the old wiki", _RUNBOOK.format("Rule 3")),
     ("legacy-rule-30", "Legacy operating rule 30 from the old wiki", _RUNBOOK.format("Rule 30")),
     TOPIC),
    (("rollback-step-2", "Rollback step 2: stop the workers", _ROLLBACK.format("Step 2")),
     ("rollback-step-5", "Rollback step 5: stop the workers", _ROLLBACK.format("Step 5")), TOPIC),
]  # fmt: skip


# Written 2026-12-05 after FRESH was scored, never used to choose anything: the demo store's kind
# of decision ("The <x> service <does> <y>") and other notes, swapped in one or more places
# (another fact) or said again. Written before the differing words were tried slot by slot (each
# swapped run of words against its counterpart, the least alike deciding): on the 128 pairs that
# got 121 right at its best thresholds against 125 for the words pooled, and was not taken.
FRESH_2 = [
    # another fact
    (("billing-caches", "The billing service caches Postgres", ""),
     ("search-caches", "The search service caches Kafka", ""), TOPIC),
    (("auth-retries", "The auth service retries Redis", ""),
     ("export-retries", "The export service retries S3", ""), TOPIC),
    (("queue-batches", "The queue service batches writes to disk", ""),
     ("cache-batches", "The cache service batches reads from memory", ""), TOPIC),
    (("web-errors", "The web app logs errors to a file", ""),
     ("mobile-crashes", "The mobile app sends crashes to a dashboard", ""), TOPIC),
    (("design-review", "Designers review the mockups on Monday", ""),
     ("code-review-day", "Engineers review the pull requests on Monday", ""), TOPIC),
    (("invoice-export", "The nightly job exports invoices to the warehouse", ""),
     ("crm-import", "The nightly job imports customers from the CRM", ""), TOPIC),
    (("support-sla", "Support tickets are answered within four hours", ""),
     ("sales-sla", "Sales leads are answered within two days", ""), TOPIC),
    (("laptop-encryption", "Staff laptops are encrypted with FileVault", ""),
     ("phone-wipe", "Staff phones are wiped after ten failed unlocks", ""), TOPIC),
    (("design-system-owner", "The frontend team owns the design system", ""),
     ("pipeline-owner", "The platform team owns the build pipeline", ""), TOPIC),
    (("s3-rate-limit", "The cache service rate-limits S3", ""),
     ("s3-mirror", "The cache service mirrors S3", ""), TOPIC),
    (("redis-sessions", "The mobile service uses Redis for sessions", ""),
     ("redis-rate-limits", "The mobile service uses Redis for rate limits", ""), TOPIC),
    # the same fact, said again
    (("billing-query-cache", "The billing service caches Postgres queries", ""),
     ("cached-queries", "Postgres queries are cached by the billing service", ""), SAME),
    (("auth-redis-retry", "The auth service retries Redis on timeouts", ""),
     ("redis-timeouts", "On timeouts the auth service retries Redis", ""), SAME),
    (("queue-batches", "The queue service batches writes to disk", ""),
     ("batched-writes", "Writes to disk are batched by the queue service", ""), SAME),
    (("design-review", "Designers review the mockups on Monday", ""),
     ("monday-mockups", "On Mondays the designers go over the mockups", ""), SAME),
    (("invoice-export", "The nightly job exports invoices to the warehouse", ""),
     ("invoices-nightly", "Every night a job sends the invoices to the warehouse", ""), SAME),
    (("support-sla", "Support tickets are answered within four hours", ""),
     ("ticket-answers", "We answer each support ticket in under four hours", ""), SAME),
    (("design-system-owner", "The frontend team owns the design system", ""),
     ("design-system-team", "The design system belongs to the frontend team", ""), SAME),
    (("laptop-encryption", "Staff laptops are encrypted with FileVault", ""),
     ("filevault", "FileVault encrypts every staff laptop", ""), SAME),
    (("export-pool", "The export service pins the worker pool size", ""),
     ("export-pool-size", "The export service pinned the size of its worker pool", ""), SAME),
    (("web-errors", "The web app logs errors to a file", ""),
     ("error-log-file", "Errors of the web app are written to a log file", ""), SAME),
    (("s3-rate-limit", "The cache service rate-limits S3", ""),
     ("s3-calls", "The cache service rate-limits calls to S3", ""), SAME),
    (("redis-sessions", "The mobile service uses Redis for sessions", ""),
     ("sessions-in-redis", "The mobile service keeps sessions in Redis", ""), SAME),
]  # fmt: skip


def scored(pairs=PAIRS) -> list[tuple[float, float, bool, bool, bool]]:
    """(centred cosine, cosine of the differing words, facts.differ, similarity.reworded,
    label) of every pair."""
    import numpy as np

    from memories import embedding
    from memories.reads import meaning
    from memories.rules import facts, similarity

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
        found.append(
            (
                float(np.dot(x, y)),
                differing,
                facts.differ(a[1], b[1]),
                similarity.reworded(a[1], b[1]),
                label,
            )
        )
    return found


def _cuts(values: list[float]) -> list[float]:
    values = sorted({round(v, 4) for v in values})
    return [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)] + [values[-1] + 0.01]


# The rules compared: (facts.differ tells facts apart, a rewording needs no alike differing words)
RULES = {
    "cosine alone": (False, False),
    "+ differing words (main before issue 42)": (False, False),
    "+ facts.differ (2026-12-04)": (True, False),
    "+ reworded (now)": (True, True),
}


def said(row, cosine: float, differing: float, facts: bool = True, reworded: bool = True) -> bool:
    """Whether the rule calls the pair the same: the cosine at its threshold; with `facts`, no
    number, identifier or name telling the two apart (memories.rules.facts); and the differing
    words alike at theirs, or, with `reworded`, the one said in another order
    (memories.rules.similarity.reworded). meaning.say_the_same is the rule with both."""
    c, d, distinct, moved, _ = row
    if c < cosine or (facts and distinct):
        return False
    return (reworded and moved) or d >= differing


def right(scored, *rule) -> int:
    return sum(said(row, *rule) == row[-1] for row in scored)


def precision_recall(scored, *rule) -> tuple[float, float, int, int]:
    """Precision, recall, pairs called the same, pairs labelled the same."""
    labels = [row[-1] for row in scored if said(row, *rule)]
    same = sum(row[-1] for row in scored)
    return (sum(labels) / len(labels) if labels else 1.0), sum(labels) / same, len(labels), same


def _line(name: str, rows, rule) -> str:
    p, r, n, same = precision_recall(rows, *rule)
    return f"{name:<32} {len(rows):>5} {same:>5} {n:>6} {right(rows, *rule):>6} {p:>9.3f} {r:>7.3f}"


def _listing(rows, pairs, rule) -> None:
    for row, (a, b, _) in sorted(zip(rows, pairs, strict=True), key=lambda item: -item[0][0]):
        cosine, differing, distinct, moved, label = row
        verdict = "right" if said(row, *rule) == label else "WRONG"
        print(
            f"{cosine:6.3f} {differing:6.3f} {'differ' if distinct else '      '} "
            f"{'reworded' if moved else '        '}  "
            f"{'same ' if label else 'topic'}  {verdict}  {a[0]} / {b[0]}"
        )


def _best(rows, facts: bool, reworded: bool) -> tuple[float, float]:
    """The thresholds that get the most pairs right; among equals the highest (an advisory note
    errs toward silence)."""
    cosines = _cuts([row[0] for row in rows])
    differing = _cuts([row[1] for row in rows])
    return max(
        ((c, d) for c in cosines for d in differing),
        key=lambda t: (right(rows, *t, facts, reworded), t),
    )


def main() -> None:
    import generate
    from recall import demo_store

    demo_store(generate.ROOT / "var" / "bench" / "demo")
    from memories import embedding
    from memories.reads import meaning

    sets = {
        "PAIRS": PAIRS,
        "HELD_OUT": HELD_OUT,
        "DEMO_KIND": DEMO_KIND,
        "FRESH": FRESH,
        "FRESH_2": FRESH_2,
    }
    found = {name: scored(pairs) for name, pairs in sets.items()}
    rule = (meaning.NEAR_DUPLICATE_COSINE, meaning.DIFFERENCE_COSINE)
    print(f"model {embedding.MODEL_VERSION}; cosine {rule[0]}, differing words {rule[1]}")
    for name, pairs in sets.items():
        print(f"{name}:")
        _listing(found[name], pairs, rule)
    chosen_on = found["PAIRS"] + found["HELD_OUT"] + found["DEMO_KIND"]
    print("\nthe best thresholds on the 128 pairs FRESH and FRESH_2 are not among, by rule:")
    for title, (facts, reworded) in RULES.items():
        if title == "cosine alone":
            cosines = _cuts([r[0] for r in chosen_on])
            best = (max(cosines, key=lambda t: (right(chosen_on, t, -9.0, False, False), t)), -9.0)
        else:
            best = _best(chosen_on, facts, reworded)
        print(f"  {title}: cosine {best[0]:.3f}, differing words {best[1]:.3f}")
        held = [("the 128", chosen_on), ("FRESH", found["FRESH"]), ("FRESH_2", found["FRESH_2"])]
        for name, rows in held:
            p, r, *_ = precision_recall(rows, *best, facts, reworded)
            print(
                f"    {name:<8} {right(rows, *best, facts, reworded):>4} of {len(rows):<4} right, "
                f"precision {p:.3f} recall {r:.3f}"
            )
    header = f"{'pairs':<32} {'n':>5} {'same':>5} {'called':>6} {'right':>6} {'precision':>9}"
    header += f" {'recall':>7}"
    groups = {
        "the 88 labelled (PAIRS+HELD)": found["PAIRS"] + found["HELD_OUT"],
        "the 128 (88 + DEMO_KIND)": chosen_on,
        "held out (FRESH + FRESH_2)": found["FRESH"] + found["FRESH_2"],
        "all": [row for name in sets for row in found[name]],
    }
    for title, (facts, reworded) in list(RULES.items())[1:]:
        print(f"\nthe thresholds in force ({rule[0]}, {rule[1]}), {title}")
        print(header)
        for name in sets:
            print(_line(name, found[name], (*rule, facts, reworded)))
        for name, rows in groups.items():
            print(_line(name, rows, (*rule, facts, reworded)))
    _agrees(sets, found, rule)
    _demo_plan()


def _agrees(sets, found, rule) -> None:
    """Whether `said` with both checks is meaning.say_the_same, pair for pair (of the pairs at
    the cosine threshold: say_the_same is asked only of those)."""
    from memories.reads import meaning

    asked = [
        (a[1], b[1], said(row, *rule))
        for name, pairs in sets.items()
        for (a, b, _), row in zip(pairs, found[name], strict=True)
        if row[0] >= rule[0]
    ]
    verdicts = meaning.say_the_same([(a, b) for a, b, _ in asked])
    differ = sum(v != s for v, (_, _, s) in zip(verdicts, asked, strict=True))
    print(
        f"\nmeaning.say_the_same on the {len(asked)} pairs at the cosine: {differ} verdicts differ"
    )


def _demo_plan() -> None:
    """The demo store's consolidation plan: what one click would trash, what needs review,
    and whether any one-click source says what its survivor lacks (the target: none)."""
    from memories.reads import consolidation

    plan = consolidation.plan(limit=consolidation.PLAN_MAX)
    sources = [(c.survivor, m) for c in plan.clusters for m in c.sources]
    members = [m.name for c in plan.clusters for m in (c.survivor, *c.sources)]
    members += [r.memory.name for c in plan.clusters for r in c.reviews]
    losing = [m.name for s, m in sources if not consolidation.loses_nothing(m, s)]
    print(
        f"\nthe demo store's plan: {plan.count} clusters, {plan.trashed} trashed by one click, "
        f"{plan.reviews} to review; legacy rules in it: "
        f"{sum(n.startswith('legacy-rule-') for n in members)}; one-click sources saying what "
        f"their survivor lacks: {len(losing)}"
    )


if __name__ == "__main__":
    main()
