"""Attributes as evidence: which field an attribute is, its normal form, and its ladder level.

An attribute's key decides its :class:`FieldKind` through :data:`DEFAULT_FIELD_KINDS`
("dob", "born" and "date_of_birth" are all the field ``date_of_birth``); any other key is a
``TEXT`` field under its own name. Values are normalised once per record
(:func:`normalise_value`) and compared pairwise (:func:`compare_values`), which returns the
name of the ladder level the pair lands on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import JsonValue
from rapidfuzz import fuzz
from rapidfuzz.distance import OSA, JaroWinkler

from redstring.domain.name_forms import name_form, normalise_name
from redstring.domain.resolution.names import compare_names
from redstring.domain.resolution.weights import FieldKind

DEFAULT_FIELD_KINDS: Mapping[str, tuple[str, FieldKind]] = {
    **dict.fromkeys(
        (
            "date_of_birth", "dob", "born", "birth_date", "birthdate", "birthday",
            "date_born", "d_o_b", "date_of_incorporation", "incorporation_date",
        ),
        ("date_of_birth", FieldKind.DATE),
    ),
    **dict.fromkeys(
        (
            "identifier", "id_number", "national_id", "ssn", "passport", "passport_number",
            "tax_id", "vat_number", "company_number", "registration_number", "lei", "duns",
        ),
        ("identifier", FieldKind.IDENTIFIER),
    ),
    **dict.fromkeys(
        ("email", "email_address", "e_mail", "e_mail_address", "mail"), ("email", FieldKind.EMAIL)
    ),
    **dict.fromkeys(
        (
            "phone", "telephone", "phone_number", "mobile", "mobile_phone", "mobile_number",
            "cell", "cell_phone", "tel", "phone_no",
        ),
        ("phone", FieldKind.PHONE),
    ),
    **dict.fromkeys(
        (
            "address", "street", "street_address", "address_line", "address_1", "address1",
            "address_line_1", "address_line1", "addr", "street_1", "street1", "home_address",
        ),
        ("address", FieldKind.ADDRESS),
    ),
    **dict.fromkeys(
        ("postcode", "postal_code", "zip", "zip_code", "zipcode", "post_code", "postalcode"),
        ("postcode", FieldKind.POSTCODE),
    ),
    **dict.fromkeys(
        ("locality", "city", "town", "suburb", "municipality", "city_name", "town_city"),
        ("locality", FieldKind.LOCALITY),
    ),
    **{
        key: (key, FieldKind.CODE)
        for key in (
            "street_number", "house_number", "street_no", "house_no", "building_number",
            "gender", "sex",
        )
    },
}  # fmt: skip
"""Attribute key, in :func:`key_form` (lowercase, words joined by ``_``) -> (the field it is
evidence for, how it is compared). One hint among others: a kind the schema declares wins,
and a key this table lacks is read by its values (:mod:`~redstring.domain.resolution.kinds`)."""

ADDRESS_WORDS: Mapping[str, str] = {
    "street": "st", "road": "rd", "avenue": "ave", "av": "ave", "lane": "ln", "drive": "dr",
    "court": "ct", "place": "pl", "boulevard": "blvd", "square": "sq", "terrace": "tce",
    "crescent": "cres", "close": "cl", "highway": "hwy", "parkway": "pkwy", "apartment": "apt",
    "unit": "apt", "flat": "apt", "suite": "ste", "north": "n", "south": "s", "east": "e",
    "west": "w", "mount": "mt", "saint": "st", "strasse": "str", "number": "no",
}  # fmt: skip
"""Street words and their short spellings, so "12 High Street" is "12 High St"."""

_DATE_YMD = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
_DATE_DMY = re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$")
_DATE_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_YEAR = re.compile(r"^(\d{4})$")
_DATE_WORDS = re.compile(r"^(?:(\d{1,2})\s+([a-z]+)|([a-z]+)\s+(\d{1,2})),?\s+(\d{4})$")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_NOT_ALNUM = re.compile(r"[^0-9A-Za-z]+")


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_SEPARATORS = re.compile(r"[^0-9a-z]+")


def key_form(key: str) -> str:
    """An attribute key as the field table spells keys: ``"Date of Birth"``, ``"dateOfBirth"``
    and ``"date-of-birth"`` are all ``"date_of_birth"``; ``"ZIP"`` is ``"zip"``."""
    snake = _CAMEL.sub("_", key).casefold()
    return _KEY_SEPARATORS.sub("_", snake).strip("_") or key.casefold()


def flat_attributes(
    attributes: Mapping[str, JsonValue], kinds: Mapping[str, tuple[str, FieldKind]]
) -> dict[str, JsonValue]:
    """``attributes`` with one level of nesting read the way exports nest them.

    An object's members become attributes of their own: under their own key when it names a
    known field (``{"address": {"city": ..., "zip": ...}}`` gives ``city`` and ``zip``),
    else under ``{key}_{member}`` (``address`` + ``line1`` is ``address_line1``, an address).
    A list stands for its first value that is text or a number (``"emails": ["a@x.org"]``).
    A top-level attribute wins over a member of the same key; deeper nesting and lists of
    objects carry nothing.
    """
    flat: dict[str, JsonValue] = {
        key: value for key, value in attributes.items() if not isinstance(value, dict | list)
    }
    for key in sorted(attributes):
        value = attributes[key]
        if isinstance(value, list):
            first = next((item for item in value if _scalar(item)), None)
            if first is not None:
                flat.setdefault(key, first)
        elif isinstance(value, dict):
            for member in sorted(value):
                inner = value[member]
                if isinstance(inner, list):
                    inner = next((item for item in inner if _scalar(item)), None)
                if not _scalar(inner):
                    continue
                known = field_of(member, kinds)[1] is not FieldKind.TEXT
                flat.setdefault(member if known else f"{key}_{member}", inner)
    return flat


def _scalar(value: JsonValue) -> bool:
    return (
        isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and bool(str(value).strip())
    )


def field_of(key: str, kinds: Mapping[str, tuple[str, FieldKind]]) -> tuple[str, FieldKind]:
    """The field an attribute key is evidence for, and its kind (``TEXT`` when unknown).

    Keys are compared in :func:`key_form`, so the spelling conventions of real exports
    (spaces, hyphens, camelCase, capitals) name the same field, and so does a plural
    ("emails", "addresses"); an unknown key is a ``TEXT`` field under its key form, so
    ``"Employer"`` and ``"employer"`` are compared too.
    """
    form = key_form(key)
    known = kinds.get(form)
    if known is None and form.endswith("s"):
        # A plural names the same field: "emails", "phone_numbers", "addresses".
        known = kinds.get(form[:-1]) or (kinds.get(form[:-2]) if form.endswith("es") else None)
    return known or (form, FieldKind.TEXT)


def normalise_value(kind: FieldKind, value: JsonValue) -> str | None:
    """The comparable form of ``value`` for ``kind``, or ``None`` when it carries nothing.

    Lists, objects, ``None`` and blank text carry nothing; a boolean or number is its text.
    """
    if kind is FieldKind.LEGAL_FORM:
        return str(value) if isinstance(value, str) and value else None
    if value is None or isinstance(value, list | dict):
        return None
    text = str(value).strip()
    if not text:
        return None
    if kind is FieldKind.DATE:
        return _normal_date(text)
    if kind in (FieldKind.IDENTIFIER, FieldKind.POSTCODE):
        return _NOT_ALNUM.sub("", text).upper() or None
    if kind is FieldKind.EMAIL:
        return text.casefold()
    if kind is FieldKind.PHONE:
        digits = re.sub(r"\D", "", text)
        return digits[-9:] or None
    if kind is FieldKind.CODE:
        return _NOT_ALNUM.sub("", text).casefold() or None
    folded = _folded(text)
    if folded is None:
        return None
    if kind is FieldKind.NAME:
        return text
    if kind is FieldKind.ADDRESS:
        return " ".join(ADDRESS_WORDS.get(token, token) for token in folded.split())
    return folded


def compare_values(kind: FieldKind, left: str, right: str) -> str:
    """The level two normalised values of ``kind`` land on: "exact", "close" or "different"
    (a ``NAME`` attribute lands on the name ladder's levels)."""
    if left == right:
        return "exact"
    if kind is FieldKind.NAME:
        return compare_names(name_form(left), name_form(right)).level
    close = False
    if kind is FieldKind.DATE:
        close = _dates_close(left, right)
    elif kind is FieldKind.IDENTIFIER:
        close = min(len(left), len(right)) >= 5 and OSA.distance(left, right) <= 1
    elif kind is FieldKind.ADDRESS:
        close = _numbers_agree(left, right) and fuzz.token_set_ratio(left, right) >= 90
    elif kind is FieldKind.POSTCODE:
        close = min(len(left), len(right)) >= 5 and (
            left[:-3] == right[:-3] or OSA.distance(left, right) <= 1
        )
    elif kind in (FieldKind.LOCALITY, FieldKind.TEXT):
        close = JaroWinkler.similarity(left, right) >= 0.92
    elif kind is FieldKind.EMAIL:
        close = left.split("@")[0] == right.split("@")[0] or OSA.distance(left, right) <= 1
    elif kind is FieldKind.PHONE:
        close = min(len(left), len(right)) >= 7 and OSA.distance(left, right) <= 1
    return "close" if close else "different"


def _folded(text: str) -> str | None:
    try:
        return normalise_name(text)
    except ValueError:
        return None


def _normal_date(text: str) -> str | None:
    return parse_date(text) or _NOT_ALNUM.sub("", text).casefold() or None


def parse_date(text: str) -> str | None:
    """``YYYY-MM-DD`` (or ``YYYY`` for a bare year) when ``text`` is a date, else ``None``.

    Read: ``1980-03-07``, ``1980/3/7``, ``07/03/1980`` (day first), ``19800307``,
    ``7 March 1980``, ``March 7, 1980`` and a bare year, with months 1-12, days 1-31 and years
    1000-2999."""
    for pattern, order in (
        (_DATE_YMD, (0, 1, 2)),
        (_DATE_DMY, (2, 1, 0)),
        (_DATE_COMPACT, (0, 1, 2)),
    ):
        match = pattern.match(text)
        if match:
            parts = match.groups()
            year, month, day = (parts[i] for i in order)
            if _plausible(year, int(month), int(day)):
                return f"{year}-{int(month):02d}-{int(day):02d}"
            return None
    words = _DATE_WORDS.match(text.casefold().replace(".", ""))
    if words:
        day_first, month_first, month_second, day_second, year = words.groups()
        month = _MONTHS.get(month_first or month_second)
        day = int(day_first or day_second)
        if month is not None and _plausible(year, month, day):
            return f"{year}-{month:02d}-{day:02d}"
    year_only = _YEAR.match(text)
    if year_only and year_only.group(1)[0] in "12":
        return year_only.group(1)
    return None


def _plausible(year: str, month: int, day: int) -> bool:
    return year[0] in "12" and 1 <= month <= 12 and 1 <= day <= 31


def _dates_close(left: str, right: str) -> bool:
    """One digit wrong, day and month swapped, or a bare year equal to the other's year."""
    if len(left) == 4 or len(right) == 4:
        return left[:4] == right[:4]
    if len(left) != 10 or len(right) != 10:
        return False
    if sum(a != b for a, b in zip(left, right, strict=True)) <= 1:
        return True
    return left[:4] == right[:4] and left[5:7] == right[8:10] and left[8:10] == right[5:7]


def _numbers_agree(left: str, right: str) -> bool:
    """Street numbers, when both carry any, must agree: number 12 is not number 14."""
    left_numbers = {token for token in left.split() if token.isdigit()}
    right_numbers = {token for token in right.split() if token.isdigit()}
    if not left_numbers or not right_numbers:
        return left_numbers == right_numbers
    return left_numbers <= right_numbers or right_numbers <= left_numbers
