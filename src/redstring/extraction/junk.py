"""What is not a name: rules that refuse a candidate before it becomes an entity.

A statistical recogniser trained on news reads real documentation badly: it calls section
headers, constants, paths, options, version numbers and fragments of markup "organisations"
and "people". Each rule below describes a shape no entity name of any type has, and returns
the reason an extractor counts in ``Extraction.dropped``:

* ``junk_markup``: markup or URL residue: ``](``, ``://``, brackets, braces, ``<``/``>``,
  ``=``, backticks, ``|``, ``\\``, ``@``, ``$``, ``%``, ``^``, ``~``, ``*``, or ``#`` other
  than in a language's name ("C#");
* ``junk_path``: a path: a leading ``/``, ``./`` or ``~/``, or a slash beside a lowercase part
  (``src/main``; "TCP/IP" and "OS/2" are names);
* ``junk_code``: a code identifier: ``snake_case`` or a leading underscore, ``a::b``, ``f()``
  or ``f(x``, a command-line option (``-v``, ``--force``), ``camelCase`` (two lowercase
  letters, then a capitalised word: ``getValue``; "iPhone" and "macOS" are names), a dotted
  lowercase identifier (``os.path``), or a file name (``setup.py``, ``README.md``);
* ``junk_number``: no letter at all, a version (``3.11.2``, ``v2``), hexadecimal (``0x1f``,
  a commit id), or more digits than letters (``amd64`` is kept as a name only if it is typed
  sensibly, so it is not refused here);
* ``junk_heading``: two or more words in capitals ("SEE ALSO", "CALLGRIND OPTIONS"), or one
  capitalised word of eight letters or more ("DESCRIPTION"): acronyms are shorter;
* ``junk_phrase``: not a name but a phrase: a lowercase first word (other than a particle
  such as "de" or "van", or a name like "iPhone"), more than six words, or a single
  character.

Pure: a name in, a reason (or ``None``) out; the extractors apply it to every candidate. Two
more reasons need the passage, so the offline extractor applies them itself: ``junk_phrase``
for a dictionary word capitalised only because it opens a sentence ("Content is king"), and
``junk_handle`` for a user name beside the name it stands for ("BethGriggs" by "Beth Griggs").
"""

from __future__ import annotations

import re
from typing import Final

from redstring.domain.extraction import DROP_REASONS

JUNK_REASONS: Final = tuple(reason for reason in DROP_REASONS if reason.startswith("junk_"))
"""Every junk reason an extractor may count (declared with the other drop reasons)."""

_MARKUP: Final = re.compile(r"\]\(|://|[<>\[\]{}=`|\\@$%^~*]|&\w+;|#(?<![A-Z]#)|#\w")
_PATH: Final = re.compile(r"^[~.]?/|(?:^|[\s(])\.{1,2}/|[a-z]/\w|\w/[a-z]")
_CODE: Final = re.compile(
    r"\w_\w|(?:^|\s)_|::|\(\)|\w\((?!\s)|(?:^|\s)--?\w|^[a-z]{2,}[A-Z][a-z]|"
    r"(?:^|\s)[a-z_]+\.[a-z_]+\b|\.(?:py|pyc|c|h|cc|cpp|rs|go|java|rb|md|rst|txt|html?|json|"
    r"ya?ml|toml|cfg|ini|sh|bat|exe|dll|so|o|a|lock|log|tar|gz|zip)$"
)
_VERSION: Final = re.compile(r"^v?\d+(?:\.\d+)+[a-z]*\d*$|^v\d+$", re.IGNORECASE)
_HEX: Final = re.compile(r"^(?:0x[0-9a-f]+|[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*)$", re.IGNORECASE)
_PARTICLES: Final = frozenset({"de", "van", "von", "da", "di", "le", "la", "del", "der", "al"})
_LOWER_BRAND: Final = re.compile(r"^[a-z][A-Z]|^[a-z]{1,4}[A-Z]{2,}")


def junk_reason(name: str) -> str | None:
    """Why ``name`` cannot be an entity's name (one of :data:`JUNK_REASONS`), or ``None``."""
    text = name.strip()
    words = text.split()
    if not words:
        return "junk_phrase"
    if _MARKUP.search(text):
        return "junk_markup"
    if _PATH.search(text):
        return "junk_path"
    if _CODE.search(text):
        return "junk_code"
    if _number(text):
        return "junk_number"
    if _heading(text, words):
        return "junk_heading"
    if _phrase(text, words):
        return "junk_phrase"
    return None


def _number(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    digits = sum(ch.isdigit() for ch in text)
    if letters == 0:
        return True
    compact = text.replace(" ", "")
    if _VERSION.match(compact):
        return True
    if (compact.lower().startswith("0x") or len(compact) >= 7) and _HEX.match(compact):
        return True
    return digits > letters


def _heading(text: str, words: list[str]) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    if not letters or not all(ch.isupper() for ch in letters):
        return False
    alphabetic = [word for word in words if any(ch.isalpha() for ch in word)]
    return len(alphabetic) >= 2 or len(letters) >= 8


def _phrase(text: str, words: list[str]) -> bool:
    if len(text.replace(" ", "")) < 2 or len(words) > 6:
        return True
    first = words[0]
    return first[:1].islower() and first not in _PARTICLES and not _LOWER_BRAND.match(first)
