"""Bytes to text, the same way for every text format: UTF-8 when the bytes are UTF-8, else
the encoding ``charset-normalizer`` finds; bytes that are not text are refused by name.

A byte-order mark decides first (and is dropped). Strict UTF-8 comes next because it is by
far the most common and a successful strict decode is proof enough. Only then is the
detector asked, so a Latin-1 or Windows-1252 file reads as the text its author wrote,
whatever its suffix (``.txt``, ``.md`` and ``.html`` alike), and the encoding found goes in
the source's metadata.
"""

from __future__ import annotations

import codecs

from redstring.domain.errors import InvalidArgumentError

__all__ = ["NotTextError", "decode_text", "looks_like_text"]

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


_CHAOS_MARGIN = 0.1


class NotTextError(InvalidArgumentError):
    """The bytes are not text in any encoding the detector knows (a binary file)."""


def decode_text(data: bytes, name: str) -> tuple[str, str]:
    """``(text, encoding)`` of ``data``; :class:`NotTextError` naming ``name`` otherwise."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError:
                break
    if b"\x00" in data[:8192]:
        raise NotTextError(f"{name} is not text (it holds NUL bytes: a binary file?)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        raise NotTextError(
            f"{name} is not UTF-8 and no other text encoding fits it (a binary file?)"
        )
    best = matches[0]
    # On short texts the detector cannot tell the single-byte Latin code pages apart (a
    # French sentence came back as Baltic cp1257). Among candidates about as clean as the
    # best, Windows-1252 wins: the commonest legacy encoding, and the fallback the WHATWG
    # encoding standard gives Latin-1 and unlabelled Western text (ADR 0044).
    for match in matches:
        if match.chaos <= best.chaos + _CHAOS_MARGIN and "cp1252" in match.could_be_from_charset:
            return data.decode("cp1252", errors="replace"), "cp1252"
    return str(best), best.encoding


def looks_like_text(data: bytes) -> bool:
    """True when ``data`` (a file's first bytes) decodes as text: how a file without a
    suffix is recognised."""
    if not data.strip():
        return True
    try:
        decode_text(data, "the sample")
    except NotTextError:
        return False
    return True
