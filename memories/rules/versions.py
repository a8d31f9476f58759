"""A memory's version as a request names it: the entity tags of If-Match and If-None-Match
(RFC 9110, 13.1.1 and 13.1.2), held against the memory's ETag (Memory.etag)."""

import re

# An entity tag, strong or weak ("W/"): what a list in either header is made of.
ENTITY_TAG = re.compile(r'\s*(W/)?("[^"]*")\s*(?:,|$)')


def _tags(header: str) -> list[tuple[bool, str]]:
    """The (weak, tag) pairs a header lists; a value that is no list of tags lists none."""
    tags, position = [], 0
    while position < len(header):
        found = ENTITY_TAG.match(header, position)
        if found is None or found.end() == position:
            return []
        tags.append((found.group(1) is not None, found.group(2)))
        position = found.end()
    return tags


def if_match(header: str, etag: str | None) -> bool:
    """Whether If-Match holds: `*` for a memory that exists, else a strong tag naming its
    version. No memory (`etag` None) matches nothing, `*` included."""
    if etag is None:
        return False
    if header.strip() == "*":
        return True
    return any(not weak and tag == etag for weak, tag in _tags(header))


def if_none_match(header: str, etag: str | None) -> bool:
    """Whether If-None-Match holds: `*` when no memory exists, else no tag, weak or strong,
    naming its version."""
    if etag is None:
        return True
    if header.strip() == "*":
        return False
    return all(tag != etag for _, tag in _tags(header))
