"""What a passage is about: the name its first line opens with (ADR 0049).

Encyclopaedias, manuals, profiles and titled documents open with their subject: a title
("Maximum Overdrive"), a heading ("## About Okafor Laboratories") or a first sentence that
starts with it ("The Philadelphia Eagles are ..."). The name is compared with an entity's
blocking keys, the exact and sorted-token families, as the question's names are linked
(:mod:`~redstring.retrieval.linking`), so case, word order and legal suffixes do not matter.
Both the ``names`` signal (the passages about the question's own entities first) and the
``hop`` signal (:mod:`~redstring.retrieval.second_hop`) use it.
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.models import Entity
from redstring.retrieval.linking import NameSpan, name_spans, span_keys

__all__ = ["OPENING_CHARS", "OPENING_NAME_WORDS", "names_in_opening", "opens_about"]

FULL_NAME = 3
"""The link strength of the exact and sorted-token key families (``linking._STRENGTH``)."""

OPENING_CHARS = 200
"""At most this much of a passage's first line is read for its subject."""

OPENING_NAME_WORDS = 3
"""A passage "opens with" a name that starts within the first this many words of its first
line ("Maximum Overdrive", "## About Okafor Laboratories", "The Philadelphia Eagles are")."""


def names_in_opening(text: str) -> list[NameSpan]:
    """The names a passage opens with: the first name of its first line (a title, a heading
    without its Markdown marks, or the first sentence) and the shorter names it begins with,
    when it starts within :data:`OPENING_NAME_WORDS` words. A headline that names a second thing
    later ("Halvard research chief moves to rival Okafor Labs") is not about the second."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = first.lstrip("#").strip()[:OPENING_CHARS]
    spans = name_spans(first) if first else []
    if not spans:
        return []
    start = min(span.start for span in spans)
    return [span for span in spans if span.start == start and start < OPENING_NAME_WORDS]


def opens_about(opening: Sequence[NameSpan], entity: Entity) -> bool:
    """Whether one of the ``opening`` names is a full name of ``entity``: an exact or
    sorted-token blocking key in common (legal suffixes, case and word order folded)."""
    keys = set(entity.blocking_keys)
    return any(
        key in keys
        for span in opening
        for key, strength in span_keys(span, [entity.type]).items()
        if strength >= FULL_NAME
    )
