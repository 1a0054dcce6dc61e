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
  lowercase identifier (``os.path``), a file name (``setup.py``, ``README.md``), or single
  letters joined by dots, a placeholder (``A.B``, ``A.B.C``; "U.S." ends with its dot);
* ``junk_number``: no letter at all (but in the words of a range: "0 to 3"), a version
  (``3.11.2``, ``v2``), hexadecimal (``0x1f``, a commit id), more digits than letters
  (``amd64`` is kept as a name only if it is typed sensibly, so it is not refused here), a
  letter in a formula (``N/2``, ``n+1``), or a date (``April 24``, ``24 April 2024``,
  ``Sept. 3``: a month with its day);
* ``junk_heading``: two or more words in capitals ("SEE ALSO", "CALLGRIND OPTIONS"), or one
  capitalised word of eight letters or more ("DESCRIPTION"): acronyms are shorter;
* ``junk_phrase``: not a name but a phrase: a lowercase first word (other than a particle
  such as "de" or "van", or a name like "iPhone"), more than six words, or a single
  character;
* ``junk_phrase`` also: an adjective made of a name ("UTF-8-encoded", "Git-based",
  "XML-like": a hyphenated ending of :data:`ADJECTIVE_ENDINGS`), and one letter repeated
  ("BBBBBB", a placeholder), a fragment ending in a hyphen, slash or colon ("Content-", a
  mail header's "Cc:"), doubled question or exclamation marks ("SQUASH???"), an
  abbreviation of Latin ("e.g", "i.e", "etc"), a name cut after a middle initial ("Italo
  A." of "Italo A. Casas": no name ends in an initial) or an initial alone ("Y."), and
  single letters listed ("W and Z": placeholders);
* ``junk_common_noun``: a common noun written in capitals: the plural of an acronym ("APIs",
  "PRs": a name is never counted) or one of :data:`COMMON_ACRONYMS`, the abbreviations of
  generic things that manuals and mail are full of ("API", "CPU", "CI", "LTS", "FAQ").

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
_DOTTED_LETTERS: Final = re.compile(r"^[A-Za-z](?:\.[A-Za-z])+$")
_FORMULA: Final = re.compile(r"^[A-Za-z]\s?[/*+]\s?\d+$")
_MONTH: Final = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?"
)
_DATE: Final = re.compile(
    rf"^(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+\d{{4}})?)$"
)
_CUT_AT_INITIAL: Final = re.compile(r"(?:^|\s)[A-Z]\.$")
_LETTERS_LISTED: Final = re.compile(r"^[A-Za-z](?:,?\s+(?:and|or|&)\s+[A-Za-z]|,\s*[A-Za-z])+$")
_VERSION: Final = re.compile(r"^v?\d+(?:\.\d+)+[a-z]*\d*$|^v\d+$", re.IGNORECASE)
_ORDINAL_OR_CODE_POINT: Final = re.compile(r"^\d+(?:st|nd|rd|th)$|^U\+[0-9A-F]{4,6}$", re.I)
_HEX: Final = re.compile(r"^(?:0x[0-9a-f]+|[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*)$", re.IGNORECASE)
_PARTICLES: Final = frozenset({"de", "van", "von", "da", "di", "le", "la", "del", "der", "al"})
_LOWER_BRAND: Final = re.compile(r"^[a-z][A-Z]|^[a-z]{1,4}[A-Z]{2,}")


COMMON_ACRONYMS: Final = frozenset(
    {
        "ABI", "API", "AST", "BOM", "BTW", "CC", "BCC", "CD", "CI", "CLI", "CPU", "CR", "CRLF",
        "CVE", "DAG", "DB", "DST", "DVCS", "EOF", "EOL", "FAQ", "FIXME", "FYI", "GC", "GID",
        "GIL", "GPU", "GUI", "HDD", "HOWTO", "I/O", "ID", "IDE", "IMHO", "IO", "IOW", "IRQ",
        "ISP", "JIT", "LAN", "LF", "LTS", "MR", "NOP", "NUL", "NULL", "OK", "OOP", "OS", "PC",
        "PEP", "PID", "PR", "PS", "QA", "RAM", "REPL", "RFC", "ROM", "SCM", "SDK", "SSD", "TBD",
        "TL;DR", "TODO", "TTY", "UI", "UID", "URI", "URL", "VCS", "VM", "WAN", "WIP",
    }
)  # fmt: skip
"""Acronyms of generic things, not names: an interface, a processor, a pull request, a
document kind ("HOWTO", "FAQ", "RFC"). Named standards and protocols ("HTTP", "UTF-8",
"SMTP") are names and are not listed."""

_ACRONYM_PLURAL: Final = re.compile(r"^[A-Z]{2,}s$")

ADJECTIVE_ENDINGS: Final = (
    "based", "encoded", "like", "valued", "ish", "formatted", "intensive", "terminated",
    "style", "compatible", "aware", "specific", "only", "free", "friendly", "oriented",
    "enabled", "related", "safe", "driven", "powered", "sign", "signed",
)  # fmt: skip
"""Endings that make a hyphenated word an adjective ("Git-based", "thread-safe")."""

_ADJECTIVE: Final = re.compile(rf"-(?:{'|'.join(ADJECTIVE_ENDINGS)})$", re.IGNORECASE)
_REPEATED: Final = re.compile(r"^(\w)\1{2,}$")
_FRAGMENT: Final = re.compile(r"[-/:]$|[?!]{2}|^(?:e\.g|i\.e|etc|cf|viz)\.?$", re.IGNORECASE)


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
    if _CODE.search(text) or _DOTTED_LETTERS.match(text):
        return "junk_code"
    if _number(text) or _FORMULA.match(text) or _DATE.match(text):
        return "junk_number"
    if _heading(text, words):
        return "junk_heading"
    if text in COMMON_ACRONYMS or _ACRONYM_PLURAL.match(text):
        return "junk_common_noun"
    if _phrase(text, words) or _ADJECTIVE.search(text) or _REPEATED.match(text):
        return "junk_phrase"
    if _FRAGMENT.search(text) or _CUT_AT_INITIAL.search(text) or _LETTERS_LISTED.match(text):
        return "junk_phrase"
    return None


_RANGE_WORDS: Final = frozenset({"to", "and", "or", "through", "of"})


def _number(text: str) -> bool:
    letters = sum(
        ch.isalpha() for word in text.split() if word.lower() not in _RANGE_WORDS for ch in word
    )
    digits = sum(ch.isdigit() for ch in text)
    if letters == 0:
        return True
    compact = text.replace(" ", "")
    if _VERSION.match(compact) or _ORDINAL_OR_CODE_POINT.match(compact):
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
