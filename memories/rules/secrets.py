"""Credentials in a memory's text: the rule every write door holds a body, description, source
and references to, the hygiene page's finder, and the mask the history keeps them under.

High confidence only: a token of a known shape (cloud and service keys, a JWT, a PEM private
key block), a credential in a known wrapper (`Authorization: Bearer`, a password in a URL), or
a value assigned to a name that says key, secret, token or password when it looks like a key
(long, random, letters and digits). Hashes, UUIDs and commit ids standing alone are not
credentials, and a documentation example is not one: a value holding "example" (AWS's
AKIAIOSFODNN7EXAMPLE), a placeholder (`<token>`, `${TOKEN}`, `your-api-key`, `xxxx`) or a
run of few distinct characters is let through.

Our own rules rather than detect-secrets (bench/results/2026-12-05-secrets/README.md): its
plugins scan line by line under a process-wide settings object, and its keyword plugin flags
any quoted value after a keyword; a handful of compiled patterns scan a 16 KiB body in a
fraction of a millisecond, with the same shapes as its high-confidence plugins.
"""

import base64
import binascii
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memories.rules.errors import InvalidField, NotPermitted, SecretRefused

FIELDS = ("description", "body", "source", "references")
ALLOWED_ONLY_BY_ADMIN = "Only an admin can allow a write that holds a secret."

_TOKEN_CHARS = r"[A-Za-z0-9_-]"
_PLACEHOLDER = re.compile(
    r"example|your|xxxx|changeme|change[_-]me|placeholder|redacted|dummy|sample|replace"
    r"|\.\.\.|\*\*\*|^[$%<{(\[]|\{\{|^(?:password|secret|pass|pwd|token)$",
    re.IGNORECASE,
)


def _entropy(text: str) -> float:
    counts = Counter(text)
    length = len(text)
    return -sum(n / length * math.log2(n / length) for n in counts.values())


def _not_example(value: str, quoted: bool = False) -> bool:
    """Not a documentation example or a placeholder: no "example", "your", "<...>", "${...}",
    "xxxx" in it, and more than a few distinct characters."""
    return not _PLACEHOLDER.search(value) and len(set(value)) >= 6


def _random(value: str, quoted: bool = False) -> bool:
    """Random enough to be a key: letters and digits (or, quoted, three kinds of character)
    and a spread of characters no word, number or slug has."""
    if not _not_example(value):
        return False
    letters_and_digits = any(c.isalpha() for c in value) and any(c.isdigit() for c in value)
    if quoted:
        kinds = sum(
            (
                any(c.islower() for c in value),
                any(c.isupper() for c in value),
                any(c.isdigit() for c in value),
                any(not c.isalnum() for c in value),
            )
        )
        return (kinds >= 3 or letters_and_digits) and _entropy(value) >= 3.0
    return letters_and_digits and _entropy(value) >= 3.5


def _user_and_password(value: str, quoted: bool = False) -> bool:
    """Base64 of "user:password", the password no placeholder."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and password and decoded.isprintable()) and not _PLACEHOLDER.search(password)


def _key_block(value: str, quoted: bool = False) -> bool:
    """A PEM body, not a header quoted alone in a sentence."""
    return bool(_BASE64_RUN.search(value))


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{40,}")


@dataclass(frozen=True)
class _Shape:
    kind: str  # in a sentence: "The body holds what looks like {kind} on line 3"
    pattern: re.Pattern
    plausible: Callable[[str, bool], bool]  # the value is a credential, not an example
    group: int | str  # the credential itself within the match; "value": the assigned one
    lowered: bool  # matched in the text with A-Z lowered (case-insensitive)
    word_start: bool  # the match starts a word: no letter, digit or "_" before it


def _shape(kind, pattern, plausible=_not_example, group=0, *, lowered=False, word_start=True):
    return _Shape(kind, re.compile(pattern), plausible, group, lowered, word_start)


# Every pattern starts with a literal, which the regular expression engine looks for at C
# speed; a leading \b or (?i) would have it try every position of a 16 KiB body in turn
# (bench/secrets_bench.py). Where a match must start a word, find() checks the character
# before it; where case does not matter, the pattern runs on the text with A-Z lowered.
_ASSIGNED = (
    r"(?:[_.-][\w.-]{0,40})?[\"']?[ \t]*(?::=|=>|=|:)[ \t]*"
    r"(?:\"(?P<dq>[^\"\s]{8,300})\"|'(?P<sq>[^'\s]{8,300})'"
    r"|(?P<bare>[a-z0-9+/=_.~!@#%^&*-]{16,300}))"
)
# Names that say they hold a credential, as a word of a longer name (SECRET_KEY,
# db.password, api-token) but not a word they are part of (monkey, tokens, keyboard).
_NAMES = (
    "secret",
    "passwd",
    "password",
    "passphrase",
    "pwd",
    "token",
    "apikey",
    "credential",
    "key",
)
SHAPES = (
    _shape(
        "a private key block",
        r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----((?:(?!-----END)[\s\S])*)",
        _key_block,
        1,
        word_start=False,
    ),
    _shape("an AWS access key", r"A(?:3T[A-Z0-9]|KIA|SIA|BIA|CCA|GPA|ROA)[A-Z0-9]{16}\b"),
    _shape("a GitHub token", r"gh[pousr]_[A-Za-z0-9]{36,255}"),
    _shape("a GitHub token", r"github_pat_[A-Za-z0-9_]{50,}"),
    _shape("a GitLab token", r"gl(?:pat|dt|rt|ptt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),
    _shape("a Slack token", r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    _shape(
        "a Slack webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}"
    ),
    _shape("a Stripe key", r"sk_(?:live|test)_[A-Za-z0-9]{20,}"),
    _shape("a Stripe key", r"rk_(?:live|test)_[A-Za-z0-9]{20,}"),
    _shape(
        "an OpenAI or Anthropic key",
        r"sk-(?:(?:proj|svcacct|admin|ant-api\d\d|ant-admin\d\d)-)?[A-Za-z0-9_-]{20,}",
        _random,
    ),
    _shape("a Google API key", r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
    _shape("a SendGrid key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    _shape("an npm token", r"npm_[A-Za-z0-9]{36}\b"),
    _shape("a PyPI token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    _shape("a Hugging Face token", r"hf_[A-Za-z0-9]{34,}\b"),
    _shape("a Shopify token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b"),
    _shape("a DigitalOcean token", r"do[por]_v1_[a-f0-9]{64}\b"),
    _shape(
        "a JSON web token",
        rf"eyJ{_TOKEN_CHARS}{{8,}}\.eyJ{_TOKEN_CHARS}{{8,}}\.{_TOKEN_CHARS}{{16,}}",
    ),
    _shape("a bearer token", r"bearer[ \t]+([a-z0-9._~+/-]{16,}=*)", _random, 1, lowered=True),
    _shape(
        "basic-auth credentials",
        r"basic[ \t]+([a-z0-9+/]{8,}={0,2})(?![a-z0-9+/=])",
        _user_and_password,
        1,
        lowered=True,
    ),
    _shape(
        "a password in a URL",
        r"://[^\s:/?#@'\"<>]{1,200}:([^\s/?#@'\"<>]{1,200})@",
        group=1,
        word_start=False,
    ),
    *(
        _shape("a secret assigned to a key name", name + _ASSIGNED, _random, "value", lowered=True)
        for name in _NAMES
    ),
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Found:
    kind: str
    start: int
    end: int
    line: int  # counted from 1


def _span(shape: _Shape, match: re.Match) -> tuple[int, int, bool]:
    """Where the credential is in the match, and whether it was quoted."""
    if shape.group == "value":
        for group, quoted in (("dq", True), ("sq", True), ("bare", False)):
            if match.group(group) is not None:
                return match.start(group), match.end(group), quoted
    return match.start(shape.group), match.end(shape.group), False


def _starts_word(text: str, at: int, shape: _Shape) -> bool:
    if at == 0:
        return True
    before = text[at - 1]
    if shape.lowered:  # a name's word: SECRET_KEY's KEY, not monkey's
        return not before.isalpha()
    return not (before.isalnum() or before == "_")


def find(text: str) -> tuple[Found, ...]:
    """Every credential in the text, in order, none overlapping another."""
    if len(text) < _REMEMBERED_FROM:
        return _find(text)
    return _find_remembered(text)


def _find(text: str) -> tuple[Found, ...]:
    if not text:
        return ()
    lowered = text.translate(_ASCII_LOWER)
    spans: list[Found] = []
    for shape in SHAPES:
        for match in shape.pattern.finditer(lowered if shape.lowered else text):
            if shape.word_start and not _starts_word(text, match.start(), shape):
                continue
            start, end, quoted = _span(shape, match)
            if not shape.plausible(text[start:end], quoted):
                continue
            if any(start < other.end and other.start < end for other in spans):
                continue
            spans.append(Found(shape.kind, start, end, text.count("\n", 0, start) + 1))
    return tuple(sorted(spans, key=lambda found: found.start))


# A write scans the body it is given, then the history masks the row before and after it:
# the body written is scanned once, not twice (bench/secrets_bench.py). Short texts scan in
# microseconds and are not kept; a few long ones are.
_REMEMBERED_FROM = 1024
_find_remembered = functools.lru_cache(maxsize=4)(_find)


def mask(text: str, found: tuple[Found, ...] | None = None) -> str:
    """The text with each credential in it replaced by a mark naming its kind."""
    found = find(text) if found is None else found
    if not found:
        return text
    parts, at = [], 0
    for each in found:
        parts.append(text[at : each.start])
        parts.append(f"[masked: {each.kind}]")
        at = each.end
    parts.append(text[at:])
    return "".join(parts)


def masked_line(text: str, found: Found) -> str:
    """The line the credential is on, the credentials on it masked, at most 200 characters."""
    lines = text.split("\n")
    line = mask(lines[found.line - 1]) if found.line <= len(lines) else ""
    return line if len(line) <= 200 else line[:199] + "…"


def _texts(field: str, value) -> Iterable[tuple[int, str]]:
    """(line offset, text) of one field's value: a list field's items are its lines."""
    if isinstance(value, list | tuple):
        yield from enumerate(value)
    elif value:
        yield 0, value


@dataclass(frozen=True)
class Held:
    field: str
    kind: str
    line: int
    shown: str  # the line, every credential on it masked


def held(fields: dict) -> list[Held]:
    """The credentials in these fields (of FIELDS; None and the others are skipped)."""
    held_here = []
    for field in FIELDS:
        for offset, text in _texts(field, fields.get(field)):
            held_here.extend(
                Held(field, each.kind, offset + each.line, masked_line(text, each))
                for each in find(text)
            )
    return held_here


def check(fields: dict, *, allowed: bool) -> list[Held]:
    """The credentials in the fields, when an admin allowed them; SecretRefused (naming the
    first) when not; [] when there is none."""
    found = held(fields)
    if found and not allowed:
        first = found[0]
        raise SecretRefused(first.field, first.kind, first.line)
    return found


def allowance(asked, *, admin: bool) -> bool:
    """An `allow_secret` as a door receives it: true or false, and true from an admin alone."""
    if asked is None:
        return False
    if not isinstance(asked, bool):
        raise InvalidField("allow_secret", "allow_secret is true or false.")
    if asked and not admin:
        raise NotPermitted(ALLOWED_ONLY_BY_ADMIN, field="allow_secret")
    return asked


def allowed_reason(found: list[Held]) -> str:
    """What the history records of a write an admin allowed although it holds credentials."""
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return f"secret allowed by an admin: {first.kind} in the {first.field}, line {first.line}{more}"
