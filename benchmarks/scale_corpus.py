"""A generated corpus of LightRAG's benchmark shape, an instant model and hashed embeddings.

What ``benchmarks.scale_bench`` ingests. Everything is seeded (``random.Random(7)`` unless told
otherwise), so two runs ingest the same text and ask the same questions:

* **Documents** of five paragraphs of about 65 words. The words are lowercase, drawn
  Zipf-like from a generated vocabulary, so its first ranks behave like "the" and "of"; each
  paragraph names two to five of **300 recurring two-word names** (capitalised), drawn
  Zipf-like too, so a few names appear in most documents and the evidence of those entities
  grows with every document: the accumulation the benchmark is about.
* **The instant model** is an ``LlmProvider`` that counts its calls and answers at once:
  every capitalised name pair in the passage as an entity (its type fixed per name), and a
  ``RELATED_TO`` between each pair of consecutive names. It goes through ``LlmExtractor``
  like a real model, so grounding and drop accounting are measured; only the model's own time
  is not.
* **Hashed bag-of-words embeddings**: each word adds a signed unit to one of ``dimension``
  components (a stable hash, never Python's salted ``hash``), normalised. Texts sharing
  words are close, which is enough for vector search to do real work.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import re
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

from redstring.domain.errors import EmptyTextError, InvalidArgumentError
from redstring.domain.schema import EntityTypeSpec, RelationshipTypeSpec, Schema

SEED = 7
NAMES = 300
PARAGRAPHS = 5
PARAGRAPH_WORDS = 65
VOCABULARY = 3_000
_SYLLABLES = (
    "ka", "lo", "ve", "ri", "tan", "mor", "sel", "dun", "ak", "ber", "ost", "vin", "sa", "mi",
    "tor", "el", "quin", "ra", "po", "leth", "an", "gu", "dre", "ny",
)  # fmt: skip
_TYPES = ("Person", "Organization", "Location")
_NAME = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")

SCALE_SCHEMA = Schema(
    entity_types=tuple(EntityTypeSpec(name=name) for name in _TYPES),
    relationship_types=(
        RelationshipTypeSpec(name="RELATED_TO", description="Named one after the other."),
    ),
)
"""The schema the corpus is extracted to: three entity types and one relationship."""

SchemaT = TypeVar("SchemaT", bound=BaseModel)


def _word(rng: random.Random, low: int, high: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(low, high)))


def _zipf(count: int, exponent: float = 1.0) -> list[float]:
    return [1.0 / (rank + 1) ** exponent for rank in range(count)]


class Corpus:
    """Names, vocabulary and documents, all drawn from one seeded generator."""

    def __init__(self, seed: int = SEED) -> None:
        self.rng = random.Random(seed)
        names: dict[str, str] = {}
        while len(names) < NAMES:
            name = f"{_word(self.rng, 2, 3).capitalize()} {_word(self.rng, 2, 3).capitalize()}"
            names.setdefault(name, _TYPES[len(names) % len(_TYPES)])
        self.names = list(names)
        self.types = names
        self._name_weights = _zipf(NAMES)
        words: dict[str, None] = {}
        while len(words) < VOCABULARY:
            words.setdefault(_word(self.rng, 1, 3), None)
        self.vocabulary = list(words)
        self._word_weights = _zipf(VOCABULARY)

    def document(self, index: int) -> str:
        """Document ``index``: the same text for the same index in every run."""
        rng = random.Random(f"{SEED}:document:{index}")
        return "\n\n".join(self._paragraph(rng) for _ in range(PARAGRAPHS))

    def _paragraph(self, rng: random.Random) -> str:
        length = rng.randint(PARAGRAPH_WORDS - 10, PARAGRAPH_WORDS + 10)
        words = rng.choices(self.vocabulary, weights=self._word_weights, k=length)
        for name in rng.choices(self.names, weights=self._name_weights, k=rng.randint(2, 5)):
            words.insert(rng.randrange(len(words) + 1), name)
        sentences, start = [], 0
        while start < len(words):
            end = start + rng.randint(9, 15)
            sentences.append(" ".join(words[start:end]) + ".")
            start = end
        return " ".join(sentences)

    def common_words(self, count: int = 30) -> list[str]:
        """The vocabulary's most frequent words: the corpus's "the", "of" and "and"."""
        return self.vocabulary[:count]

    def question(self, rng: random.Random, *, common: bool) -> str:
        """A question naming one entity (drawn like the documents) and two content words."""
        name = rng.choices(self.names, weights=self._name_weights)[0]
        rare = rng.sample(self.vocabulary[300:], 2)
        if common:
            filler = rng.sample(self.common_words(), 3)
            return f"what did {name} {rare[0]} {filler[0]} the {rare[1]} of {filler[1]}?"
        return f"{name} {rare[0]} {rare[1]}"


class InstantModel:
    """An ``LlmProvider`` that answers at once: capitalised names, consecutive ones linked."""

    def __init__(self, types: dict[str, str]) -> None:
        self.calls = 0
        self._types = types

    @property
    def model(self) -> str:
        return "bench/instant-1"

    async def extract(
        self, text: str, schema: type[SchemaT], *, system_prompt: str | None = None
    ) -> SchemaT:
        if not text.strip():
            raise EmptyTextError("blank passage")
        self.calls += 1
        found = [name for name in _NAME.findall(text) if name in self._types]
        entities = [{"name": name, "type": self._types[name]} for name in dict.fromkeys(found)]
        links = {(left, right): None for left, right in itertools.pairwise(found) if left != right}
        relationships = [
            {"subject": left, "type": "RELATED_TO", "object": right} for left, right in links
        ]
        return schema.model_validate({"entities": entities, "relationships": relationships})


class HashedEmbeddings:
    """An ``EmbeddingProvider`` of hashed bag-of-words vectors (symmetric)."""

    def __init__(self, dimension: int = 64) -> None:
        self._dimension = dimension
        self._slots: dict[str, tuple[int, float]] = {}

    @property
    def model(self) -> str:
        return f"bench/hashed-bow-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidArgumentError("pass a list of texts")
        return [self._vector(text) for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.embed(texts)

    def _slot(self, word: str) -> tuple[int, float]:
        slot = self._slots.get(word)
        if slot is None:
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            number = int.from_bytes(digest, "big")
            slot = (number % self._dimension, 1.0 if number >> 63 else -1.0)
            self._slots[word] = slot
        return slot

    def _vector(self, text: str) -> list[float]:
        if not text.strip():
            raise EmptyTextError(f"text {text!r} is blank")
        vector = [0.0] * self._dimension
        for word in re.findall(r"\w+", text.casefold()):
            index, sign = self._slot(word)
            vector[index] += sign
        norm = math.sqrt(sum(value * value for value in vector))
        if norm == 0.0:
            vector[0], norm = 1.0, 1.0
        return [value / norm for value in vector]
