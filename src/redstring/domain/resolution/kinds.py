"""Which kind of evidence an attribute is: from the schema, the key's name, or its values.

An attribute is read, in this order of precedence, as the kind the schema declares for it
(``EntityTypeSpec.attributes``), the kind an earlier estimate recorded for it (so a tenant's
records stay comparable), the kind its key names in
:data:`~redstring.domain.resolution.fields.DEFAULT_FIELD_KINDS`, or the kind its values show
(:func:`infer_kind`): dates that parse, e-mail and phone shapes, street addresses, codes
that repeat, identifiers that rarely do, short place-like words. Only what none of these
recognises is free text, so no evidence is left unread for want of a familiar key.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from pydantic import JsonValue

from redstring.domain.resolution.fields import (
    ADDRESS_WORDS,
    field_of,
    flat_attributes,
    key_form,
    parse_date,
)
from redstring.domain.resolution.weights import FieldKind

Kinds = Mapping[str, tuple[str, FieldKind]]
"""Attribute key (in key form) -> (the field it is evidence for, its kind)."""

SAMPLE = 400
"""At most this many values of an attribute are looked at to infer its kind."""

MIN_VALUES = 5
"""An attribute with fewer non-blank values than this in view stays free text."""

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.IGNORECASE)
_PHONE = re.compile(r"^\+?[\d\s().-]{7,}$")
_CODE = re.compile(r"^[0-9a-z][0-9a-z./-]*$", re.IGNORECASE)
_WORDS = re.compile(r"^[^\W\d_]+(?:[\s'-][^\W\d_]+){0,3}$")


def infer_kind(values: Sequence[str]) -> FieldKind:
    """The kind ``values`` (one attribute's non-blank values, as text) look like.

    * ``DATE``: nine in ten parse as a date (:func:`~.fields.parse_date`);
    * ``EMAIL``: nine in ten are shaped ``local@domain.tld``;
    * ``PHONE``: nine in ten are 8-15 digits written as phone numbers are (a leading ``+``,
      or spaces, dashes, dots or brackets between groups);
    * ``ADDRESS``: most name a street (a word such as "street", "rd" or "avenue");
    * single tokens holding digits: ``IDENTIFIER`` when they are five or more characters
      and mostly distinct, ``POSTCODE`` when they repeat with one length, else ``CODE``;
    * ``CODE`` for a few values repeated throughout (a state, a category);
    * ``LOCALITY`` for short words that repeat (a town, a suburb);
    * ``TEXT`` otherwise, and for fewer than :data:`MIN_VALUES` values.
    """
    sample = [value.strip() for value in values[:SAMPLE] if value.strip()]
    if len(sample) < MIN_VALUES:
        return FieldKind.TEXT
    total = len(sample)

    def share(test: Iterable[bool]) -> float:
        return sum(test) / total

    if share(parse_date(value) is not None and len(value) >= 6 for value in sample) >= 0.9:
        return FieldKind.DATE
    if share(bool(_EMAIL.match(value)) for value in sample) >= 0.9:
        return FieldKind.EMAIL
    if share(_phone_shaped(value) for value in sample) >= 0.9:
        return FieldKind.PHONE
    if share(_names_a_street(value) for value in sample) >= 0.6:
        return FieldKind.ADDRESS
    counts = Counter(value.casefold() for value in sample)
    distinct = len(counts) / total
    if (
        share(bool(_CODE.match(value)) and any(c.isdigit() for c in value) for value in sample)
        >= 0.9
    ):
        lengths = Counter(len(value) for value in sample)
        typical_length, typical_count = lengths.most_common(1)[0]
        if typical_length >= 5 and distinct >= 0.4:
            return FieldKind.IDENTIFIER
        if typical_length >= 3 and typical_count / total >= 0.9 and distinct < 0.4:
            return FieldKind.POSTCODE
        return FieldKind.CODE
    if total >= 40 and (len(counts) <= 12 or distinct < 0.03):
        return FieldKind.CODE
    if share(bool(_WORDS.match(value)) and len(value) <= 32 for value in sample) >= 0.9 and (
        distinct < 0.7
    ):
        return FieldKind.LOCALITY
    return FieldKind.TEXT


def _phone_shaped(value: str) -> bool:
    if not _PHONE.match(value):
        return False
    digits = sum(c.isdigit() for c in value)
    if not 8 <= digits <= 15:
        return False
    # Bare digits are an identifier's shape too (zero-padded numbers): a phone number is
    # written in groups, or with its country code.
    return value[0] == "+" or any(c in value for c in " -.()")


def _names_a_street(value: str) -> bool:
    tokens = re.split(r"[^0-9a-z]+", value.casefold())
    return len([t for t in tokens if t]) >= 2 and any(token in ADDRESS_WORDS for token in tokens)


def attribute_kinds(
    records: Iterable[Mapping[str, JsonValue]],
    *,
    declared: Kinds,
    recorded: Kinds,
    hints: Kinds,
) -> dict[str, tuple[str, FieldKind]]:
    """The kind of every attribute key ``records`` carry, in key form (see the module doc).

    ``declared`` comes from the schema, ``recorded`` from the tenant's last estimate and
    ``hints`` is the key table; keys none of them knows are inferred from the values seen
    here (nested objects read as :func:`~.fields.flat_attributes` reads them).
    """
    kinds: dict[str, tuple[str, FieldKind]] = {}
    values: dict[str, list[str]] = {}
    for attributes in records:
        for key, value in flat_attributes(attributes, hints).items():
            form = key_form(key)
            if form in kinds or (form in values and len(values[form]) >= SAMPLE):
                continue
            known = declared.get(form) or recorded.get(form)
            if known is None:
                field_name, kind = field_of(key, hints)
                if kind is not FieldKind.TEXT:
                    known = (field_name, kind)
            if known is not None:
                kinds[form] = known
                continue
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                values.setdefault(form, []).append(str(value))
    for form, seen in values.items():
        if form not in kinds:
            kinds[form] = (form, infer_kind(seen))
    return kinds
