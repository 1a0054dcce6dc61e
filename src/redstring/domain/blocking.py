"""Blocking keys: cheap keys under which likely duplicates of an entity name collide.

Resolution never compares a new mention with every entity of a tenant. It derives these keys,
reads the entities indexed under any of them in one batched store call, and scores only those
candidates. Keys are namespaced by entity type, so a person and a city never block together.

Three families of key are derived from the normalised name:

* ``n:`` the whole normalised name ("acme corp" for "ACME Corp.");
* ``s:`` the tokens sorted, so word order does not matter ("john smith" for "Smith, John");
* ``p:`` a Soundex code per significant token, so spelling variants meet ("Jon"/"John").
"""

from __future__ import annotations

import re
import unicodedata

from redstring.domain.errors import EmptyTextError
from redstring.domain.portable import MAX_BLOCKING_KEY_LENGTH

_NON_WORD = re.compile(r"[\W_]+")

# Latin letters that NFKD leaves whole; folded by hand so "Łódź" meets "Lodz".
_LATIN_FOLDS = str.maketrans(
    {
        "ł": "l",
        "ø": "o",
        "đ": "d",
        "ð": "d",
        "ħ": "h",
        "\u0131": "i",
        "æ": "ae",
        "œ": "oe",
        "þ": "th",
    }
)

_STOP_TOKENS = frozenset(
    {"the", "a", "an", "of", "and", "inc", "ltd", "llc", "corp", "co", "mr", "mrs", "ms", "dr"}
)

_SOUNDEX_CODES = {
    **dict.fromkeys("bfpv", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}


def normalise_name(name: str) -> str:
    """Fold ``name`` to lowercase words separated by single spaces.

    Accents are stripped (NFKD) and Latin letters fold to ASCII; letters and digits of other
    scripts are kept as they are, so a name in any script has keys. Punctuation and
    underscores become separators. Raises :class:`EmptyTextError` when nothing alphanumeric
    remains.
    """
    decomposed = unicodedata.normalize("NFKD", name)
    unaccented = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = _NON_WORD.sub(" ", unaccented.casefold().translate(_LATIN_FOLDS)).strip()
    if not folded:
        raise EmptyTextError(f"name {name!r} has no letters or digits to derive keys from")
    return folded


def soundex(token: str) -> str:
    """The four-character American Soundex code of an ASCII token.

    Soundex is defined for the Latin alphabet only: a token of digits, or one holding letters
    outside ASCII (another script), is returned unchanged.
    """
    if token.isdigit() or not token.isascii():
        return token
    letters = [ch for ch in token.lower() if "a" <= ch <= "z"]
    if not letters:
        return token
    first = letters[0]
    code = [first.upper()]
    previous = _SOUNDEX_CODES.get(first, "")
    for ch in letters[1:]:
        digit = _SOUNDEX_CODES.get(ch, "")
        if digit and digit != previous:
            code.append(digit)
            if len(code) == 4:
                break
        if ch not in "hw":
            previous = digit
    return "".join(code).ljust(4, "0")


def blocking_keys(entity_type: str, name: str) -> tuple[str, ...]:
    """The sorted, de-duplicated blocking keys of an entity of ``entity_type`` named ``name``.

    Each is at most ``MAX_BLOCKING_KEY_LENGTH`` characters, as ``Entity`` requires.
    """
    normalised = normalise_name(name)
    tokens = normalised.split()
    significant = [token for token in tokens if token not in _STOP_TOKENS] or tokens
    keys = {
        f"{entity_type}|n:{normalised}",
        f"{entity_type}|s:{' '.join(sorted(significant))}",
    }
    keys.update(f"{entity_type}|p:{soundex(token)}" for token in significant if len(token) > 1)
    # Whole-name keys of a very long name are cut to the length every backend can index
    # (ADR 0023); two names sharing their first thousand characters may then meet, which
    # only nominates a candidate for scoring.
    return tuple(sorted({key[:MAX_BLOCKING_KEY_LENGTH] for key in keys}))
