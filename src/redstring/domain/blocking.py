"""Blocking keys: cheap keys under which likely duplicates of an entity name collide.

Resolution never compares a new mention with every entity of a tenant. It derives these keys,
reads the entities indexed under any of them in one batched store call, and scores only those
candidates. Keys are namespaced by entity type, so a person and a city never block together.

Every key is built from the name's :class:`~redstring.domain.name_forms.NameForm`: accents
folded, honorifics ("Dr."), legal suffixes ("Ltd") and joining words ("of") left out, and
nicknames mapped to the name they shorten ("Bob" -> "robert"). The families:

* ``n:`` the whole normalised name ("the acme corp" for "The ACME Corp.");
* ``s:`` the significant tokens, nicknames mapped, sorted, so word order, titles and "Bob" for
  "Robert" do not matter ("robert smith" for "Smith, Bob"); names of three or more tokens
  also give the same key with one token left out, so a middle name may come and go;
* ``p:`` the Soundex codes of those tokens, sorted, so spelling variants meet ("Jon Smyth");
* ``i:`` / ``j:`` the last token's Soundex code with the first token's initial, and the
  first's code with the last's initial, so "A. Okafor", "Okafor, A." and "Amara Okafor"
  meet. One-sided: every name is stored under ``i:``, a name holding an initial also under
  ``j:``; a name with an initial looks up ``i:``, a full name only ``j:``;
* ``k:`` the last token's Soundex code with the first two letters of the first token, and
  the other way round, so a misspelt given name still meets ("Fatimma Tayylor" and "Faima
  Taylor" share ``k:T460 fa``);
* ``a:`` the acronym of a name of three or more tokens, and a short single token itself, so
  "International Business Machines" meets "IBM";
* ``f:`` and ``o:`` let a one-token name ("Westgate", "Okafor") meet the longer names it
  begins or ends ("Westgate Foods Ltd", "Amara Okafor"). They are one-sided: a longer name is
  *stored* under ``f:`` with its first and its last token and *looks up* ``o:`` with them; a
  one-token name is stored under ``o:`` and looks up ``f:``. So a full name never reads the
  broad bucket of every name sharing one token; only a one-token mention, which is ambiguous
  anyway, does (:func:`lookup_keys`).

Records also block on their most decisive attributes (:func:`attribute_keys`): ``d:`` a full
date of birth and ``x:`` an identifier, e-mail or phone number, so that a record whose name is
badly misspelt still meets its duplicates when those agree.

Every name key holds at least two tokens' worth of information, except for one-token names: a key
holding one common token ("smith") would grow with the tenant and make resolution cost grow
with it. A name yields at most :data:`MAX_KEYS_PER_NAME` keys. Every key is cut to
:data:`~redstring.domain.portable.MAX_BLOCKING_KEY_LENGTH` characters, the length every backend
can index (ADR 0023).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TypeVar

from pydantic import JsonValue

from redstring.domain.errors import EmptyTextError
from redstring.domain.name_forms import NameForm, name_form, normalise_name
from redstring.domain.portable import MAX_BLOCKING_KEY_LENGTH
from redstring.domain.resolution.fields import (
    DEFAULT_FIELD_KINDS,
    field_of,
    flat_attributes,
    normalise_value,
)
from redstring.domain.resolution.names import LONG_NAME_TOKENS
from redstring.domain.resolution.weights import FieldKind

__all__ = [
    "MAX_ATTRIBUTE_KEYS",
    "MAX_KEYS_PER_NAME",
    "attribute_keys",
    "blocking_keys",
    "lookup_keys",
    "name_keys",
    "normalise_name",
    "place_keys",
    "soundex",
    "spread",
]

T = TypeVar("T")

MAX_KEYS_PER_NAME = 16
"""The most keys one name yields: n, s, up to three subsets, p, up to three i and three j
(only names with an initial, which have no subsets of their own beyond one), two k, a, two f;
a long name has up to :data:`_MAX_WORD_PAIRS` b keys instead of i, j and k."""

_MAX_SUBSETS = 3

_MAX_WORD_PAIRS = 8

MAX_ATTRIBUTE_KEYS = 4
"""The most attribute keys one record yields (see :func:`attribute_keys`)."""

_SOUNDEX_CODES = {
    **dict.fromkeys("bfpv", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}


@lru_cache(maxsize=65536)
def soundex(token: str) -> str:
    """The four-character American Soundex code of an ASCII token.

    Soundex is defined for the Latin alphabet only: a token holding a digit ("r2d2", "1984")
    or letters outside ASCII (another script) is returned unchanged.
    """
    if not token.isascii() or any(ch.isdigit() for ch in token):
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


def name_keys(form: NameForm, *, lookup: bool = False) -> set[str]:
    """The keys of a name form, without the type namespace (``"s:robert smith"``, ...).

    ``lookup`` swaps the one-sided families: the keys to look a name up by, not to store it.
    """
    tokens, canonical = form.tokens, form.canonical
    keys = {f"n:{form.normalised}", f"s:{' '.join(sorted(canonical))}"}
    if len(canonical) >= 3:
        # Middle tokens come and go most often; then the first, then the last.
        order = [*range(1, len(canonical) - 1), 0, len(canonical) - 1]
        subsets = 0
        for left_out in order:
            if not canonical[left_out].isalpha():
                continue  # numbers distinguish ("Unit 7"): never leave one out
            rest = canonical[:left_out] + canonical[left_out + 1 :]
            if sum(len(token) > 1 for token in rest) >= 2:
                keys.add(f"s:{' '.join(sorted(rest))}")
                subsets += 1
                if subsets == _MAX_SUBSETS:
                    break
    codes = sorted(soundex(token) for token in canonical if len(token) > 1 or token.isdigit())
    if len(codes) >= 2 or len(canonical) == 1:
        keys.add(f"p:{' '.join(codes or canonical)}")
    if canonical != tokens:
        # A nickname maps to its full name ("liam" -> "william"), so a typo of the nickname
        # ("laim") would meet it through no code: the written tokens get codes too.
        written = sorted(soundex(token) for token in tokens if len(token) > 1 or token.isdigit())
        if len(written) >= 2:
            keys.add(f"p:{' '.join(written)}")
    numbered = any(ch.isdigit() for token in tokens for ch in token)
    lengthy = len(canonical) >= LONG_NAME_TOKENS and not any(len(t) == 1 for t in tokens)
    if lengthy:
        # A long name's ends ("Board ... University") are shared by many names: it meets
        # its variants through the word pairs it keeps, of which the common ones
        # ("united states") fill their buckets and are read no further (ADR 0025).
        pairs = sorted({f"b:{a} {b}" for a, b in itertools.pairwise(canonical)})
        keys.update(spread(pairs, _MAX_WORD_PAIRS))
    elif len(tokens) >= 2 and not numbered:
        # A number distinguishes ("Unit 7", "Unit 9"): such names get no key without it.
        first, last = tokens[0], tokens[-1]
        initials: set[str] = set()
        if len(last) > 1:
            initials.add(f"{soundex(last)} {first[0]}")
            initials.add(f"{soundex(last)} {canonical[0][0]}")
        if len(first) > 1:
            initials.add(f"{soundex(canonical[0])} {last[0]}")
        # One-sided like f:/o:: every name is stored under i:, a name holding an initial also
        # under j:. A name with an initial looks up i: (all the names it may abbreviate); a
        # full name looks up only j: (the abbreviations of itself), never the broad i: bucket.
        abbreviated = any(len(token) == 1 for token in tokens)
        if lookup:
            families: tuple[str, ...] = ("i",) if abbreviated else ("j",)
        else:
            families = ("i", "j") if abbreviated else ("i",)
        keys.update(f"{family}:{suffix}" for family in families for suffix in initials)
        # Both sides of k: alike: the surname's code and two letters of the given name, narrow
        # enough to look up from every full name, loose enough for a typo in either.
        if len(last) > 1 and len(canonical[0]) > 1:
            keys.add(f"k:{soundex(last)} {canonical[0][:2]}")
            keys.add(f"k:{soundex(canonical[0])} {last[:2]}")
            if first != canonical[0] and len(first) > 1:
                keys.add(f"k:{soundex(last)} {first[:2]}")
    if len(tokens) >= 3 and all(token.isalpha() and len(token) > 1 for token in tokens):
        keys.add(f"a:{''.join(token[0] for token in tokens)}")
    elif len(tokens) == 1 and 2 <= len(tokens[0]) <= 5:
        keys.add(f"a:{tokens[0]}")
    if len(tokens) == 1:
        keys.add(f"{'f' if lookup else 'o'}:{canonical[0]}")
    else:
        ends = {canonical[0], canonical[-1]}
        keys.update(f"{'o' if lookup else 'f'}:{token}" for token in ends if len(token) > 1)
    return keys


def blocking_keys(entity_type: str, name: str) -> tuple[str, ...]:
    """The sorted, de-duplicated blocking keys of an entity of ``entity_type`` named ``name``.

    Raises :class:`~redstring.domain.errors.EmptyTextError` for a name without letters or
    digits. At most :data:`MAX_KEYS_PER_NAME` keys, each prefixed ``"{entity_type}|"`` and at
    most ``MAX_BLOCKING_KEY_LENGTH`` characters long, as ``Entity`` requires.
    """
    keys = name_keys(name_form(name))
    return _bounded(f"{entity_type}|{key}" for key in keys)


def lookup_keys(entity_type: str, name: str) -> tuple[str, ...]:
    """The keys under which to look for entities that may be the one named ``name``.

    The same as :func:`blocking_keys` except for the one-sided ``f:``/``o:`` families.
    """
    keys = name_keys(name_form(name), lookup=True)
    return _bounded(f"{entity_type}|{key}" for key in keys)


def attribute_keys(entity_type: str, attributes: Mapping[str, JsonValue]) -> tuple[str, ...]:
    """The sorted keys of a record's decisive attributes: full dates and identifiers.

    A date of birth gives ``d:YYYY-MM-DD`` (partial dates give nothing); an identifier,
    e-mail or phone gives ``x:{field}={value}`` in normal form, and so does a value of a key
    the table does not know that is shaped like an identifier or an e-mail address. At most
    :data:`MAX_ATTRIBUTE_KEYS`, taken in attribute-key order, each cut to
    ``MAX_BLOCKING_KEY_LENGTH`` characters; values that carry nothing are skipped.
    """
    keys: set[str] = set()
    flat = flat_attributes(attributes, DEFAULT_FIELD_KINDS)
    for key in sorted(flat):
        field, kind = field_of(key, DEFAULT_FIELD_KINDS)
        if kind is FieldKind.TEXT:
            # A key the table does not know is keyed by what its value looks like, so that
            # "soc_sec_id" or "member_no" pairs records as an identifier does.
            kind = _shape_of(flat[key])
        if kind not in (FieldKind.DATE, FieldKind.IDENTIFIER, FieldKind.EMAIL, FieldKind.PHONE):
            continue
        value = normalise_value(kind, flat[key])
        if value is None:
            continue
        if kind is FieldKind.DATE:
            if len(value) == 10 and value[4] == "-":
                keys.add(f"{entity_type}|d:{value}")
        elif len(value) >= 5:
            keys.add(f"{entity_type}|x:{field}={value}")
        if len(keys) == MAX_ATTRIBUTE_KEYS:
            break
    return _bounded(keys)


def place_keys(entity_type: str, name: str, attributes: Mapping[str, JsonValue]) -> tuple[str, ...]:
    """``l:`` keys: the Soundex code of the name's first and of its last token, each with the
    record's locality or postcode ("R500 cleveland"), so two records that share a surname and
    a town meet even when their given names share nothing ("Amelia Ryan", "A. E. Ryan").

    A broad family: a common surname in a large town holds many entities, which the resolver
    then reads no further than its bound (ADR 0025). Empty for a name without letters or
    digits, or a record without a locality or postcode.
    """
    places: list[str] = []
    flat = flat_attributes(attributes, DEFAULT_FIELD_KINDS)
    for key in sorted(flat):
        kind = field_of(key, DEFAULT_FIELD_KINDS)[1]
        if kind in (FieldKind.LOCALITY, FieldKind.POSTCODE):
            value = normalise_value(kind, flat[key])
            if value is not None and value not in places:
                places.append(value)
    if not places:
        return ()
    try:
        form = name_form(name)
    except EmptyTextError:
        return ()
    ends = {form.canonical[0], form.canonical[-1]}
    codes = sorted({soundex(token) for token in ends if len(token) > 1 and token.isalpha()})
    return _bounded(f"{entity_type}|l:{code} {place}" for code in codes for place in places[:2])


def _shape_of(value: JsonValue) -> FieldKind:
    """``IDENTIFIER`` for one token of five or more letters and digits holding a digit,
    ``EMAIL`` for an e-mail address, ``TEXT`` for anything else. (Dates are left to keys the
    table knows: a code of eight digits may look like one.)"""
    if not isinstance(value, str | int) or isinstance(value, bool):
        return FieldKind.TEXT
    text = str(value).strip()
    if "@" in text and " " not in text:
        return FieldKind.EMAIL
    if len(text) >= 5 and text.isalnum() and any(ch.isdigit() for ch in text):
        return FieldKind.IDENTIFIER
    return FieldKind.TEXT


def spread(items: Sequence[T], limit: int) -> Sequence[T]:
    """At most ``limit`` of ``items``, evenly spaced, in order."""
    if len(items) <= limit:
        return items
    step = len(items) / limit
    return [items[int(n * step)] for n in range(limit)]


def _bounded(keys: Iterable[str]) -> tuple[str, ...]:
    # Keys of a very long name or value are cut to the length every backend can index
    # (ADR 0023); two names sharing their first thousand characters may then meet, which
    # only nominates a candidate for scoring.
    return tuple(sorted({key[:MAX_BLOCKING_KEY_LENGTH] for key in keys}))
