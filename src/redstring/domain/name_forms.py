"""Name forms: a name reduced to the tokens that identify its bearer.

Blocking (``redstring.domain.blocking``) and scoring (``redstring.domain.resolution``) read a
name the same way, so a key that brings two names together and the comparison that judges
them never disagree about what the name says. A :class:`NameForm` is the normalised name, its
significant tokens (honorifics, generational suffixes, legal-form suffixes and a few function
words left out, unless nothing else remains) and the same tokens with nicknames mapped to the
name they shorten ("bob" -> "robert").

The tables are small on purpose: they hold the forms that common data actually carries, and a
name they miss still meets its variants through the phonetic and initial keys.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from redstring.domain.errors import EmptyTextError

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

HONORIFICS: frozenset[str] = frozenset(
    {
        "mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lord",
        "lady", "rev", "revd", "fr", "hon", "jr", "jnr", "sr", "snr", "ii", "iii", "iv",
        "phd", "md", "esq", "mba", "msc", "bsc", "obe", "mbe", "cbe", "herr", "frau", "mme",
        "mlle", "sra", "dott", "ing",
    }
)  # fmt: skip
"""Titles and post-nominals: they say nothing about which person is meant."""

LEGAL_SUFFIXES: frozenset[str] = frozenset(
    {
        "inc", "incorporated", "ltd", "limited", "llc", "llp", "lp", "plc", "corp",
        "corporation", "co", "company", "gmbh", "ag", "sa", "sarl", "sas", "bv", "nv", "pty",
        "pte", "oy", "ab", "spa", "srl", "kg", "kk", "as", "asa", "aps", "se", "ulc", "lc",
        "aktiengesellschaft", "kgaa", "ohg", "ltda", "sl", "sau", "oyj", "kft", "zrt", "sro",
        "doo", "bhd", "sdn", "tbk", "pvt", "cv", "sca", "scs", "snc", "gesmbh", "nl",
        "kabushikigaisha", "kabushikikaisha", "yugengaisha", "yk",
    }
)  # fmt: skip
"""Legal-form words, in several languages: "Acme Ltd" and "ACME Limited" are one company,
and so are "Siemens AG" and "Siemens Aktiengesellschaft"."""

FUNCTION_WORDS: frozenset[str] = frozenset(
    {"the", "of", "and", "und", "et", "de", "la", "for", "in", "at", "on", "by", "des", "du",
     "der", "die", "das", "del", "le", "les"}
)  # fmt: skip
"""Joining words of organisation names; "a" stays, it is also an initial."""

# Titles lead or trail a name, legal forms trail it; inside a name the same words are names
# ("Sa Park", "Co Hanh"), so only the edges are stripped.
_LEGAL_SHORT = {
    "limited": "ltd", "incorporated": "inc", "corporation": "corp", "company": "co",
    "aktiengesellschaft": "ag", "kabushikigaisha": "kk", "kabushikikaisha": "kk",
    "gesmbh": "gmbh", "yugengaisha": "yk", "oyj": "oy",
}  # fmt: skip

_LEADING = HONORIFICS | FUNCTION_WORDS
_TRAILING = HONORIFICS | LEGAL_SUFFIXES | FUNCTION_WORDS

# Each line: the full given name, then the short forms that stand for it. A short form may
# shorten several names ("sandy"); it then maps to the first in this table's order.
_NICKNAME_LINES = """
abigail abby abbie gail
albert al bert bertie
alexander alex alec sandy sasha xander
alexandra alex lexi sandra sasha
andrew andy drew
anthony tony ant
benjamin ben benny benji
catherine cathy cath kate katie kat
charles charlie chuck chas
christopher chris kit topher
daniel dan danny
david dave davey
deborah deb debbie
donald don donnie
edward ed eddie ted teddy ned
elizabeth liz lizzie beth betty bess eliza elsie libby
frederick fred freddie
gregory greg
henry harry hank hal
isabella bella izzy
james jim jimmy jamie
jennifer jen jenny
jessica jess jessie
john jon johnny jack
jonathan jonny
joseph joe joey
josephine jo josie
katherine kathy kate katie kat kathryn
kenneth ken kenny
lawrence larry laurie
margaret maggie meg peggy marge
matthew matt matty
michael mike mick mikey mickey
nicholas nick nicky
patricia pat patty trish
patrick paddy pat
peter pete
philip phil pip
rebecca becky becca
richard rick ricky dick rich richie
robert bob bobby rob robbie bert
ronald ron ronnie
samuel sam sammy
samantha sam sammie
stephen steve stevie
steven steve stevie
susan sue susie suzy
theodore theo ted
thomas tom tommy
timothy tim timmy
victoria vicky tori
william bill billy will willie liam
zachary zach zack
"""


def _nickname_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in _NICKNAME_LINES.strip().splitlines():
        full, *short_forms = line.split()
        for short in short_forms:
            table.setdefault(short, full)
    return table


NICKNAMES: dict[str, str] = _nickname_table()
"""Short form -> the full given name it most often stands for."""


def normalise_name(name: str) -> str:
    """Fold ``name`` to lowercase words separated by single spaces.

    Accents are stripped (NFKD) and Latin letters fold to ASCII; letters and digits of other
    scripts are kept as they are, so a name in any script has keys. Punctuation and
    underscores become separators. Raises :class:`EmptyTextError` when nothing alphanumeric
    remains.
    """
    if name.isascii():
        # Nothing to decompose or fold beyond case: the same result, several times faster.
        folded = _NON_WORD.sub(" ", name.lower()).strip()
    else:
        decomposed = unicodedata.normalize("NFKD", name)
        unaccented = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
        folded = _NON_WORD.sub(" ", unaccented.casefold().translate(_LATIN_FOLDS)).strip()
    if not folded:
        raise EmptyTextError(f"name {name!r} has no letters or digits to derive keys from")
    return folded


# Legal forms written as several words or as dotted letters ("L.L.C." folds to "l l c").
_LEGAL_PHRASES = re.compile(
    r"\b(?:public limited company|limited liability company|limited liability partnership"
    r"|gesellschaft mit beschrankter haftung|kabushiki kaisha|kabushiki gaisha"
    r"|societe anonyme|sociedad anonima|sociedade anonima|societa per azioni"
    r"|naamloze vennootschap|besloten vennootschap|aktiebolag|aksjeselskap|osakeyhtio"
    r"|societe a responsabilite limitee|sociedad limitada|societa a responsabilita limitata"
    r"|l l c|l l p|p l c|s a r l|s a|b v|n v|g m b h|s p a|s r l|p t y)\b"
)
# Legal forms written out in their own language, as the short form registers use.
_LEGAL_WRITTEN = {
    "gesellschaft mit beschrankter haftung": "gmbh",
    "kabushiki kaisha": "kk",
    "kabushiki gaisha": "kk",
    "societe anonyme": "sa",
    "sociedad anonima": "sa",
    "sociedade anonima": "sa",
    "societa per azioni": "spa",
    "naamloze vennootschap": "nv",
    "besloten vennootschap": "bv",
    "aktiebolag": "ab",
    "aksjeselskap": "as",
    "osakeyhtio": "oy",
    "societe a responsabilite limitee": "sarl",
    "sociedad limitada": "sl",
    "societa a responsabilita limitata": "srl",
}


def _join_legal(match: re.Match[str]) -> str:
    written = _LEGAL_WRITTEN.get(match.group(0))
    if written is not None:
        return written
    words = match.group(0).split()
    if len(words) > 2 and all(len(word) > 1 for word in words):
        return "".join(word[0] for word in words)
    return "".join(words)


def canonical_token(token: str) -> str:
    """The full given name a nickname stands for, or the token itself."""
    return NICKNAMES.get(token, token)


@dataclass(frozen=True, slots=True)
class NameForm:
    """A name as resolution reads it; build one with :func:`name_form`.

    ``tokens`` keep the name's order; ``canonical`` is ``tokens`` with nicknames mapped, in
    the same order. Both are non-empty. ``legal_form`` is the trailing legal-form word in
    its short spelling ("ltd" for "Limited"), or ``None``.
    """

    normalised: str
    tokens: tuple[str, ...]
    canonical: tuple[str, ...]
    legal_form: str | None = None


@lru_cache(maxsize=65536)
def name_form(name: str) -> NameForm:
    """The :class:`NameForm` of ``name``; :class:`EmptyTextError` when it has no letters.

    Cached: a name form is immutable, and resolution reads each name several times.
    """
    normalised = normalise_name(name)
    every = tuple(_LEGAL_PHRASES.sub(_join_legal, normalised).split())
    start, end = 0, len(every)
    while start < end and every[start] in _LEADING:
        start += 1
    while end > start and every[end - 1] in _TRAILING:
        end -= 1
    tokens = tuple(token for token in every[start:end] if token not in FUNCTION_WORDS) or every
    legal = next((token for token in reversed(every[end:]) if token in LEGAL_SUFFIXES), None)
    return NameForm(
        normalised=normalised,
        tokens=tokens,
        canonical=tuple(canonical_token(token) for token in tokens),
        legal_form=None if legal is None else _LEGAL_SHORT.get(legal, legal),
    )
