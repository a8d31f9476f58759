"""Recall on LoCoMo: each question asked through /v1 as written, against two plain baselines.

    .venv/bin/python bench/recall/locomo.py --data ../shared/data/locomo-dev \\
        --modes words meaning hybrid --out bench/results/2026-12-04-recall/
    MEMADMIN_DATABASE_URL=postgres://... .venv/bin/python bench/recall/locomo.py \\
        --engine postgresql --data ../shared/data/locomo-dev --out ...
    ... --reuse      # ask again on the store the last run built at this commit (no rebuild)

The protocol (issue 42): one project per conversation (`locomo-<file stem>`); one memory per
turn, named for its dia_id (`D3:12` as `turn-d3-12`), description `"<speaker>: <text>"`,
body the text plus `"\\n[shares an image: <blip_caption>]"` when the turn has one,
`load: search`, the speaker (lowercased) as its one tag, each written by `PUT /v1/memories`
(the doors, so vectors are kept as in production); then every question with evidence asked
once, as written, by `GET /v1/memories?q=<question>&project=<conv>&mode=<m>&limit=10` with a
Bearer token through Django's test client in this process (each request timed). Whatever
search and encoder the checkout has is what is measured.

recall@k is the share of a question's evidence turns among the first k hits, MRR the
reciprocal rank of the first evidence hit (0 past the 10th); both averaged over questions,
by category and over all but category 5 (adversarial). In the same run, over the same turns
and the text `"<speaker>: <text> <blip_caption>"`: Okapi BM25 (k1 1.2, b 0.75, lowercase
alphanumeric tokens, no stop words, each query term once), a dense cosine of all-MiniLM-L6-v2
with mean pooling (the checkout's own encoder when it has one that is all-MiniLM-L6-v2, else
the numpy reference of bench/recall/minilm.py; vectors cached under var/bench/locomo-cache/),
and their reciprocal-rank fusion (k = 60).

Evidence as the data gives it is repaired where the intent is plain (`D8:6; D9:17` split in
two, `D:11:26` read as `D11:26`); an id that is no turn of its conversation (`D`, or a turn
the conversation lacks) is dropped from the question's evidence, and a question left with
none is not asked. The counts are reported.
"""

import argparse
import collections
import datetime as dt
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

ROOT = generate.ROOT
MODES = ("words", "meaning", "hybrid")
BASELINES = ("bm25", "dense", "rrf")
LIMIT = 10
KS = (5, 10)
RRF_K = 60
BM25_K1, BM25_B = 1.2, 0.75
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HOST = "localhost"
USER = "recallbench"
MARKER = "recall-store.json"
DIA_ID = re.compile(r"D:?(\d+):(\d+)")


# The data ---------------------------------------------------------------------------------


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str

    @property
    def name(self) -> str:
        session, number = self.dia_id[1:].split(":")
        return f"turn-d{session}-{number}"

    @property
    def description(self) -> str:
        return f"{self.speaker}: {self.text}"

    @property
    def body(self) -> str:
        return self.text + (f"\n[shares an image: {self.caption}]" if self.caption else "")

    @property
    def baseline_text(self) -> str:
        return f"{self.speaker}: {self.text}" + (f" {self.caption}" if self.caption else "")


@dataclass
class Question:
    conversation: str
    index: int
    text: str
    category: int
    evidence: list[str]  # dia_ids, each a turn of the conversation


@dataclass
class Conversation:
    key: str
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)

    @property
    def project(self) -> str:
        return f"locomo-{self.key}"


@dataclass
class Quirks:
    without_evidence: int = 0  # questions the data gives no evidence (not asked)
    joined: list[str] = field(default_factory=list)  # "D8:6; D9:17": split
    repaired: list[str] = field(default_factory=list)  # "D:11:26" read as D11:26
    unparseable: list[str] = field(default_factory=list)  # "D": dropped
    missing: list[str] = field(default_factory=list)  # well formed, no such turn: dropped
    duplicate: int = 0  # an id given twice for one question: counted once
    emptied: int = 0  # questions left with no evidence turn (not asked)

    def lines(self) -> list[str]:
        return [
            f"questions without evidence in the data (not asked): {self.without_evidence}",
            f"evidence entries joining several ids (split): {len(self.joined)} {self.joined}",
            f"malformed ids read plainly: {len(self.repaired)} {self.repaired}",
            f"unreadable ids (dropped): {len(self.unparseable)} {self.unparseable}",
            f"ids naming no turn of their conversation (dropped): {len(self.missing)} "
            f"{self.missing}",
            f"ids repeated within a question (counted once): {self.duplicate}",
            f"questions left with no evidence turn (not asked): {self.emptied}",
        ]


def load(data: Path, quirks: Quirks) -> list[Conversation]:
    conversations = []
    for path in sorted(data.glob("*.json")):
        raw = json.loads(path.read_text())
        sessions = sorted(
            (int(key.split("_")[1]), value)
            for key, value in raw.items()
            if re.fullmatch(r"session_\d+", key)
        )
        turns = [
            Turn(t["dia_id"], t["speaker"], t["text"], t.get("blip_caption") or "")
            for _, session in sessions
            for t in session
        ]
        conversation = Conversation(path.stem, turns)
        known = {turn.dia_id for turn in turns}
        assert len(known) == len(turns), f"{path}: a dia_id given twice"
        for index, qa in enumerate(raw["qa"]):
            if not qa.get("evidence"):
                quirks.without_evidence += 1
                continue
            evidence = []
            for entry in qa["evidence"]:
                parts = [part for part in re.split(r"[;,\s]+", entry) if part]
                if len(parts) > 1:
                    quirks.joined.append(f"{path.stem}#{index}: {entry!r}")
                for part in parts:
                    match = DIA_ID.fullmatch(part)
                    where = f"{path.stem}#{index}: {part!r}"
                    if match is None:
                        quirks.unparseable.append(where)
                        continue
                    dia_id = f"D{match[1]}:{match[2]}"
                    if dia_id != part:
                        quirks.repaired.append(where)
                    if dia_id not in known:
                        quirks.missing.append(where)
                    elif dia_id in evidence:
                        quirks.duplicate += 1
                    else:
                        evidence.append(dia_id)
            if not evidence:
                quirks.emptied += 1
                continue
            conversation.questions.append(
                Question(path.stem, index, qa["question"], int(qa["category"]), evidence)
            )
        conversations.append(conversation)
    if not conversations:
        raise SystemExit(f"No conversation (*.json) in {data}.")
    return conversations


def data_digest(conversations: list[Conversation]) -> str:
    digest = hashlib.sha256()
    for conversation in conversations:
        for turn in conversation.turns:
            digest.update(
                f"{conversation.key}|{turn.name}|{turn.description}|{turn.body}\n".encode()
            )
    return digest.hexdigest()[:16]


# The store --------------------------------------------------------------------------------


def git(*args: str) -> str:
    result = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return result.stdout.rstrip()  # not lstrip: a status line may start with a space


def checkout_state(out: Path | None) -> dict:
    """The commit measured, and what the work tree changes of it (the results folder aside)."""
    ignored = (
        str(out.resolve().relative_to(ROOT)) + "/"
        if out and out.resolve().is_relative_to(ROOT)
        else None
    )
    dirty = [
        line
        for line in git("status", "--porcelain", "--untracked-files=all").splitlines()
        if line.strip() and not (ignored and line[3:].startswith(ignored))
    ]
    subject = git("log", "-1", "--format=%s")
    return {
        "commit": git("rev-parse", "HEAD"),
        "code": git("log", "-1", "--format=%H", "--", ".", ":(exclude)bench/results"),
        "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
        "subject": subject if len(subject) <= 80 else subject[:79] + "…",
        "dirty": dirty,
    }


def safe_url(url: str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


class Api:
    def __init__(self, token: str):
        from django.test import Client

        self.client = Client(HTTP_HOST=HOST, HTTP_AUTHORIZATION=f"Bearer {token}")

    def put(self, name: str, project: str, data: dict):
        return self.client.put(
            f"/v1/memories/{name}?project={project}",
            data=json.dumps(data),
            content_type="application/json",
            secure=True,
        )

    def post(self, path: str, data: dict):
        return self.client.post(
            path, data=json.dumps(data), content_type="application/json", secure=True
        )

    def get(self, path: str, params: dict):
        return self.client.get(path, params, secure=True)


def new_token() -> str:
    import io

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    out = io.StringIO()
    create_user = (
        [] if get_user_model().objects.filter(username=USER).exists() else ["--create-user"]
    )
    call_command("apitoken", "create", USER, "--scope", "write", *create_user, stdout=out)
    return out.getvalue().strip().splitlines()[-1]


def build(conversations: list[Conversation], api: Api) -> dict:
    """Every turn written through PUT /v1/memories; returns what the writes said."""
    statuses = collections.Counter()
    notes = collections.Counter()
    noted_examples: dict[str, str] = {}
    near_copies = []  # (turn, the earlier turn the door's note says it nearly copies)
    refused = []
    started = time.perf_counter()
    timings = []
    for conversation in conversations:
        response = api.post("/v1/projects", {"name": conversation.project})
        if response.status_code != 201:
            raise SystemExit(
                f"Adding {conversation.project}: {response.status_code} {response.content!r}"
            )
        for turn in conversation.turns:
            payload = {
                "description": turn.description,
                "body": turn.body,
                "load": "search",
                "tags": [turn.speaker.lower()],
            }
            began = time.perf_counter()
            response = api.put(turn.name, conversation.project, payload)
            timings.append(time.perf_counter() - began)
            statuses[response.status_code] += 1
            content = response.json()
            if response.status_code not in (200, 201):
                refused.append(
                    {
                        "turn": f"{conversation.key}/{turn.dia_id}",
                        "status": response.status_code,
                        "error": content.get("error"),
                        "description_chars": len(turn.description),
                    }
                )
                continue
            for note in content.get("notes") or []:
                kind = re.sub(r"\d[\d,]*", "N", note)[:90]
                notes[kind] += 1
                noted_examples.setdefault(
                    kind, f"{turn.dia_id} ({len(turn.description)} chars): {note}"
                )
                copied = re.match(r"'(turn-d\d+-\d+)' already says something very similar", note)
                if copied:
                    earlier = copied[1][len("turn-d") :].replace("-", ":")
                    near_copies.append(f"{conversation.key} D{earlier} ~ {turn.dia_id}")
    took = time.perf_counter() - started
    return {
        "turns": sum(len(c.turns) for c in conversations),
        "statuses": {str(code): count for code, count in sorted(statuses.items())},
        "refused": refused,
        "notes": dict(notes.most_common()),
        "note_examples": noted_examples,
        "near_copies": near_copies,
        "seconds": round(took, 1),
        "put_median_ms": round(statistics.median(timings) * 1000, 2),
        "put_p90_ms": round(percentile(timings, 0.9) * 1000, 2),
    }


def embed_backlog() -> str:
    """`memory embed`, if the checkout has it: vectors a queue has not kept yet (none when the
    doors keep them in the write's transaction)."""
    import io

    from django.core.management import call_command

    out = io.StringIO()
    started = time.perf_counter()
    try:
        call_command("memory", "embed", stdout=out, stderr=out)
    except Exception as error:  # a checkout without the command, or with another one
        return f"memory embed not run: {error}"
    said = " ".join(out.getvalue().split())[:200]
    return f"memory embed: {said or 'nothing said'} ({time.perf_counter() - started:.1f} s)"


def prepare_store(options, conversations, state) -> tuple[Api, dict]:
    """Django set up on the bench store: built anew, unless --reuse finds the one this
    commit built."""
    database_url = options.database_url
    data_dir = options.data_dir.resolve()
    marker_path = data_dir / MARKER
    wanted = {
        "engine": options.engine,
        "database": safe_url(database_url),
        # the last commit that changed the code (results committed since change nothing)
        "code": state["code"],
        "data": data_digest(conversations),
    }
    reuse = (
        options.reuse
        and not state["dirty"]
        and marker_path.exists()
        and json.loads(marker_path.read_text()).get("store") == wanted
    )
    if options.reuse and not reuse:
        print(
            "No store of this code (committed, unchanged), engine and data to reuse: building one.",
            file=sys.stderr,
        )
    if not reuse:
        if options.engine == "sqlite" and data_dir.exists():
            shutil.rmtree(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        marker_path.unlink(missing_ok=True)
    generate.setup_django(data_dir, database_url)
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor != options.engine:
        raise SystemExit(f"--engine {options.engine} but Django is on {connection.vendor}.")
    call_command("migrate", verbosity=0)
    from memories.models import Memory

    if reuse:
        written = json.loads(marker_path.read_text())["written"]
        written["reused"] = True
        return Api(new_token()), written
    if Memory.objects.exists():
        raise SystemExit(
            f"{safe_url(database_url) or data_dir} already holds memories: give the bench an "
            "empty database (a throwaway cluster), or --reuse at the commit that built it."
        )
    api = Api(new_token())
    print(
        f"Writing {sum(len(c.turns) for c in conversations)} turns through PUT /v1...",
        file=sys.stderr,
    )
    written = build(conversations, api)
    written["embed"] = embed_backlog()
    written["reused"] = False
    # After the bulk of writes, what docs/postgresql.md asks of a bulk load (and autovacuum
    # would do soon after): without it the search index's pending list is read by every
    # question (the words' statistics 14.5 ms against 1.8, bench/results/2026-12-05-pglatency).
    with connection.cursor() as cursor:
        cursor.execute({"sqlite": "ANALYZE", "postgresql": "VACUUM ANALYZE"}[connection.vendor])
    marker_path.write_text(json.dumps({"store": wanted, "written": written}, indent=1))
    return api, written


# Asking /v1 -------------------------------------------------------------------------------


def ask(api: Api, conversations, modes) -> tuple[dict, dict, dict]:
    """Each question in each mode: ranked dia_ids and seconds per request, by mode."""
    from memories.reads import meaning

    ranked = {mode: {} for mode in modes}
    seconds = {mode: [] for mode in modes}
    senses = {mode: collections.Counter() for mode in modes}
    by_name = {(c.project, t.name): t.dia_id for c in conversations for t in c.turns}
    # One untimed request per mode first: a model loaded on first use is not a question's cost.
    first = conversations[0]
    for mode in modes:
        api.get(
            "/v1/memories", {"q": "warm up", "project": first.project, "mode": mode, "limit": LIMIT}
        )
    total = sum(len(c.questions) for c in conversations) * len(modes)
    done = 0
    for conversation in conversations:
        for question in conversation.questions:
            # Modes interleaved question by question, so that a busier minute of the shared
            # machine falls on every mode alike.
            for mode in modes:
                params = {
                    "q": question.text,
                    "project": conversation.project,
                    "mode": mode,
                    "limit": LIMIT,
                }
                meaning.forget_questions()  # as if asked for the first time
                began = time.perf_counter()
                response = api.get("/v1/memories", params)
                seconds[mode].append(time.perf_counter() - began)
                if response.status_code != 200:
                    raise SystemExit(
                        f"{mode} {question.text!r}: {response.status_code} "
                        f"{response.content[:300]!r}"
                    )
                hits = response.json()["memories"]
                ranked[mode][(question.conversation, question.index)] = [
                    by_name.get((hit.get("project"), hit["name"]), f"?{hit['name']}")
                    for hit in hits
                ]
                for hit in hits:
                    senses[mode][str(hit.get("matched_by"))] += 1
                if not hits:
                    senses[mode]["(questions with no hit)"] += 1
                done += 1
            if done % 300 < len(modes):
                print(f"  asked {done}/{total}", file=sys.stderr)
    return ranked, seconds, senses


# Baselines --------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75), Lucene's non-negative idf log(1 + (N - df + 0.5)/(df + 0.5)),
    each distinct query term once.

    The variant moves recall@5 on the dev set by a few points (all but category 5, 2026-12-04):
    0.457 as here, 0.454 counting a repeated query term again, 0.439 with the classic idf
    log((N - df + 0.5)/(df + 0.5)) (negative for the speakers' names, in half the turns),
    0.460 with rank_bm25's floor on it, 0.466 with idf log(N/df).
    """

    def __init__(self, documents: list[str], k1: float = BM25_K1, b: float = BM25_B):
        self.k1, self.b = k1, b
        self.docs = [collections.Counter(tokens(d)) for d in documents]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.average = sum(self.lengths) / len(self.docs)
        df = collections.Counter(term for d in self.docs for term in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(len(self.docs))
        for term in dict.fromkeys(tokens(query)):  # each query term once
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i, doc in enumerate(self.docs):
                tf = doc.get(term)
                if tf:
                    norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.average)
                    out[i] += idf * tf * (self.k1 + 1) / (tf + norm)
        return out


def order(scores: np.ndarray) -> list[int]:
    """Indexes by descending score, ties in conversation order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def rrf(*rankings: list[int], k: int = RRF_K) -> list[int]:
    fused = collections.defaultdict(float)
    for ranking in rankings:
        for rank, i in enumerate(ranking, start=1):
            fused[i] += 1 / (k + rank)
    return sorted(fused, key=lambda i: (-fused[i], i))


REFERENCE_PAIR = ("A man is eating food.", "A man is eating a piece of bread.")
REFERENCE_COSINE = 0.7553  # sentence-transformers' documented value for all-MiniLM-L6-v2


def dense_encoder(choice: str):
    """(name, encode(texts) -> unit float32 rows, notes): the checkout's all-MiniLM-L6-v2 if
    it has one (memories.encoder) and `choice` allows, else the numpy reference."""
    notes = []
    if choice in ("auto", "project"):
        try:
            import memories.encoder as project_encoder
        except ImportError as error:
            project_encoder = None
            notes.append(f"no memories.encoder in this checkout ({error})")
        if project_encoder is not None:
            try:
                if callable(getattr(project_encoder, "encode", None)):
                    name, encode = "memories.encoder.encode", project_encoder.encode
                else:
                    name, encode = (
                        "memories.encoder.Encoder().encode",
                        project_encoder.Encoder().encode,
                    )
                a, b = np.asarray(encode(list(REFERENCE_PAIR)), dtype=np.float32)
                cosine = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
                if len(a) == 384 and abs(cosine - REFERENCE_COSINE) < 0.002:
                    notes.append(f"{name}: reference pair {cosine:.4f}")
                    return name, encode, notes
                notes.append(
                    f"{name} is not all-MiniLM-L6-v2 as sentence-transformers gives it "
                    f"({len(a)} dimensions, reference pair {cosine:.4f}): not used"
                )
            except Exception as error:
                notes.append(f"memories.encoder unusable: {type(error).__name__}: {error}")
        if choice == "project":
            raise SystemExit("--dense project: " + "; ".join(notes))
    from minilm import MiniLM

    model = MiniLM()
    return model.name, model.encode, notes


def cached_vectors(name: str, encode, texts: list[str], cache: Path) -> np.ndarray:
    digest = hashlib.sha256(("\x00".join([name, *texts])).encode()).hexdigest()[:20]
    path = cache / f"dense-{digest}.npy"
    if path.exists():
        return np.load(path)
    started = time.perf_counter()
    print(f"Encoding {len(texts)} texts with {name} (cached for later runs)...", file=sys.stderr)
    vectors = np.asarray(encode(texts), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def baselines(conversations, dense_choice: str, cache: Path) -> tuple[dict, dict]:
    ranked = {name: {} for name in BASELINES}
    name, encode, notes = dense_encoder(dense_choice)
    texts = [t.baseline_text for c in conversations for t in c.turns]
    texts += [q.text for c in conversations for q in c.questions]
    vectors = cached_vectors(name, encode, texts, cache)
    at = 0
    turn_vectors = {}
    for c in conversations:
        turn_vectors[c.key] = vectors[at : at + len(c.turns)]
        at += len(c.turns)
    started = time.perf_counter()
    for c in conversations:
        bm25 = BM25([t.baseline_text for t in c.turns])
        ids = [t.dia_id for t in c.turns]
        for q in c.questions:
            key = (q.conversation, q.index)
            by_words = order(bm25.scores(q.text))
            by_meaning = order(turn_vectors[c.key] @ vectors[at])
            at += 1
            ranked["bm25"][key] = [ids[i] for i in by_words[:LIMIT]]
            ranked["dense"][key] = [ids[i] for i in by_meaning[:LIMIT]]
            ranked["rrf"][key] = [ids[i] for i in rrf(by_words, by_meaning)[:LIMIT]]
    info = {"dense_encoder": name, "dense_notes": notes, "seconds": time.perf_counter() - started}
    return ranked, info


# Metrics ----------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def scores_of(ranking: list[str], evidence: list[str]) -> dict:
    wanted = set(evidence)
    out = {f"r@{k}": len(wanted & set(ranking[:k])) / len(wanted) for k in KS}
    first = next((rank for rank, dia_id in enumerate(ranking, 1) if dia_id in wanted), None)
    out["mrr"] = 1 / first if first else 0.0
    return out


def metrics(ranked: dict, questions: list[Question]) -> dict:
    """{system: {group: {r@5, r@10, mrr, n}}}, groups: each category and "all" (but 5)."""
    out = {}
    for system, rankings in ranked.items():
        groups = collections.defaultdict(list)
        for q in questions:
            s = scores_of(rankings[(q.conversation, q.index)], q.evidence)
            groups[str(q.category)].append(s)
            if q.category != 5:
                groups["all"].append(s)
        out[system] = {
            group: {
                **{key: round(statistics.fmean(s[key] for s in rows), 4) for key in rows[0]},
                "n": len(rows),
            }
            for group, rows in sorted(groups.items())
        }
    return out


def latency(seconds: dict) -> dict:
    return {
        mode: {
            "median_ms": round(statistics.median(values) * 1000, 2),
            "p90_ms": round(percentile(values, 0.9) * 1000, 2),
            "mean_ms": round(statistics.fmean(values) * 1000, 2),
            "max_ms": round(max(values) * 1000, 2),
            "requests": len(values),
        }
        for mode, values in seconds.items()
    }


# Report -----------------------------------------------------------------------------------


def table(results: dict) -> str:
    systems = list(results["metrics"])
    lines = [
        "| system | R@5 | R@10 | MRR | median ms | p90 ms |"
        + "".join(f" R@5 c{c} |" for c in (1, 2, 3, 4, 5)),
        "|---|---:|---:|---:|---:|---:|" + "---:|" * 5,
    ]
    for system in systems:
        m = results["metrics"][system]
        lat = results["latency"].get(system)
        label = (
            f"memadmin {system}"
            if system in MODES
            else {
                "bm25": "BM25 baseline",
                "dense": "dense MiniLM baseline",
                "rrf": "RRF(BM25, dense)",
            }[system]
        )
        cells = [
            f"{m['all']['r@5']:.3f}",
            f"{m['all']['r@10']:.3f}",
            f"{m['all']['mrr']:.3f}",
            f"{lat['median_ms']:.1f}" if lat else "",
            f"{lat['p90_ms']:.1f}" if lat else "",
        ]
        cells += [f"{m[str(c)]['r@5']:.3f}" if str(c) in m else "" for c in (1, 2, 3, 4, 5)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def category_table(results: dict) -> str:
    lines = ["| system | category | n | R@5 | R@10 | MRR |", "|---|---|---:|---:|---:|---:|"]
    for system, groups in results["metrics"].items():
        for group, m in groups.items():
            label = "all but 5" if group == "all" else f"{group} {CATEGORIES[int(group)]}"
            lines.append(
                f"| {system} | {label} | {m['n']} | {m['r@5']:.3f} | {m['r@10']:.3f} "
                f"| {m['mrr']:.3f} |"
            )
    return "\n".join(lines)


def summary(results: dict) -> str:
    r = results
    w = r["store"]
    load_before, load_after = r["loadavg_before"], r["loadavg_after"]
    parts = [
        f"# LoCoMo recall, {r['engine']}, {r['checkout']['commit'][:7]}",
        "",
        f"- command: `{r['command']}`",
        f"- checkout: {r['checkout']['commit']} ({r['checkout']['branch']}: "
        f"{r['checkout']['subject']})"
        + (
            f" with uncommitted changes: {r['checkout']['dirty']}" if r["checkout"]["dirty"] else ""
        ),
        f"- engine: {r['engine']}" + (f" ({r['database']})" if r["database"] else ""),
        f"- started {r['started']}, took {r['seconds']:.0f} s; load average "
        f"{', '.join(f'{x:.2f}' for x in load_before)} before, "
        f"{', '.join(f'{x:.2f}' for x in load_after)} after (1, 5, 15 min; 2 cores shared)",
        f"- data: {r['data']} — {r['conversations']} conversations, {w['turns']} turns, "
        f"{r['questions']} questions asked ({r['questions_scored']} outside category 5)",
        f"- store: {'reused from a run of the same code' if w['reused'] else 'built in this run'}: "
        f"{w['turns']} PUTs in {w['seconds']} s (median {w['put_median_ms']} ms, p90 "
        f"{w['put_p90_ms']} ms), statuses {w['statuses']}, refused {len(w['refused'])}; "
        f"{w.get('embed', '')}",
        f"- write notes: {w['notes'] or 'none'}",
        f"- turns the write door called a near copy of an earlier turn: "
        f"{len(w.get('near_copies', []))} ({', '.join(w.get('near_copies', [])[:8])}, ...)",
        f"- dense baseline: {r['baselines']['dense_encoder']}"
        + (
            f" ({'; '.join(r['baselines']['dense_notes'])})"
            if r["baselines"]["dense_notes"]
            else ""
        ),
        "",
        "## All but category 5 (R@5 per category after)",
        "",
        table(r),
        "",
        "Latency: each `/v1` request through Django's test client in the bench's process "
        "(no network, no gunicorn), one untimed warm-up request per mode first.",
        "",
        "## Hits by sense (matched_by), first 10 of each question",
        "",
        *[f"- {mode}: {dict(counter)}" for mode, counter in r["senses"].items()],
        "",
        "## Data quirks",
        "",
        *[f"- {line}" for line in r["quirks"]],
        "",
        "## By category",
        "",
        category_table(r),
        "",
    ]
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "locomo-dev")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("MEMADMIN_DATABASE_URL", ""),
        help="PostgreSQL's (default: $MEMADMIN_DATABASE_URL)",
    )
    parser.add_argument("--data-dir", type=Path, help="default: var/bench/locomo-<engine>/")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="ask on the store a run of the same committed code built (else build it)",
    )
    parser.add_argument("--out", type=Path, help="write summary.md and results.json there")
    parser.add_argument(
        "--dense",
        choices=("auto", "project", "reference"),
        default="auto",
        help="the dense baseline's encoder: the checkout's if it has all-MiniLM-L6-v2 (auto)",
    )
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument(
        "--per-question",
        action="store_true",
        help="also write each question's first 10 turns per system (per-question-<engine>.jsonl)",
    )
    parser.add_argument("--cache", type=Path, default=ROOT / "var" / "bench" / "locomo-cache")
    options = parser.parse_args()
    # whitenoise's complaint that the bench store has no collected static files
    warnings.filterwarnings("ignore", message="No directory at")
    if options.engine == "postgresql" and not options.database_url:
        raise SystemExit("--engine postgresql needs MEMADMIN_DATABASE_URL (or --database-url).")
    if options.engine == "sqlite":
        options.database_url = ""
    options.data_dir = options.data_dir or ROOT / "var" / "bench" / f"locomo-{options.engine}"

    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    loadavg_before = os.getloadavg()
    began = time.perf_counter()
    state = checkout_state(options.out)
    quirks = Quirks()
    conversations = load(options.data.resolve(), quirks)
    questions = [q for c in conversations for q in c.questions]

    api, written = prepare_store(options, conversations, state)
    ranked, seconds, senses = ask(api, conversations, options.modes)
    baseline_info = {"dense_encoder": "(not run)", "dense_notes": []}
    if not options.no_baselines:
        more, baseline_info = baselines(conversations, options.dense, options.cache.resolve())
        ranked |= more
    results = {
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "checkout": state,
        "engine": options.engine,
        "database": safe_url(options.database_url),
        "data": str(options.data),
        "started": started_at,
        "loadavg_before": loadavg_before,
        "conversations": len(conversations),
        "questions": len(questions),
        "questions_scored": sum(q.category != 5 for q in questions),
        "store": written,
        "quirks": quirks.lines(),
        "baselines": baseline_info,
        "metrics": metrics(ranked, questions),
        "latency": latency(seconds),
        "senses": {mode: dict(counter.most_common()) for mode, counter in senses.items()},
    }
    results["loadavg_after"] = os.getloadavg()
    results["seconds"] = time.perf_counter() - began
    print(table(results))
    print(f"load average {results['loadavg_after']}; dense: {baseline_info['dense_encoder']}")
    for line in quirks.lines():
        print("quirk:", line)
    if options.out:
        options.out.mkdir(parents=True, exist_ok=True)
        (options.out / f"summary-{options.engine}.md").write_text(summary(results))
        (options.out / f"results-{options.engine}.json").write_text(
            json.dumps(results, indent=1) + "\n"
        )
        if options.per_question:
            with (options.out / f"per-question-{options.engine}.jsonl").open("w") as lines:
                for q in questions:
                    key = (q.conversation, q.index)
                    row = {
                        "conversation": q.conversation,
                        "qa": q.index,
                        "category": q.category,
                        "question": q.text,
                        "evidence": q.evidence,
                    } | {system: ranked[system][key] for system in ranked}
                    lines.write(json.dumps(row) + "\n")
        print(f"Wrote {options.out}/summary-{options.engine}.md and results-{options.engine}.json")


if __name__ == "__main__":
    main()
