"""A separate process ingesting documents into one tenant: ``python -m ... DSN PREFIX TENANT N``.

Worker ``N`` ingests every document in ``DOCUMENTS`` in its own order (rotated by N), so
two workers write overlapping entities into one tenant at the same time.
"""

from __future__ import annotations

import asyncio
import sys

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.ingest.service import IngestSettings
from tests.ingest_support import ORGS, PEOPLE, VocabularyExtractor


def _sentence(index: int, offset: int) -> str:
    person = PEOPLE[(index + offset) % len(PEOPLE)]
    org = ORGS[(index * 3 + offset) % len(ORGS)]
    return f"{person} works for {org}."


DOCUMENTS = {
    f"doc-{index}.md": " ".join(_sentence(index, offset) for offset in range(4))
    for index in range(8)
}


async def ingest_all(kg: KnowledgeGraph, tenant: str, worker: int) -> None:
    names = sorted(DOCUMENTS)
    rotated = names[worker:] + names[:worker]
    for name in rotated:
        await kg.ingest(tenant, name, DOCUMENTS[name])


def build_graph_args() -> dict[str, object]:
    return {
        "embeddings": FakeEmbeddingProvider(dimension=8),
        "extractor": VocabularyExtractor(),
        "settings": IngestSettings(chunk_chars=50, chunk_overlap=0),
    }


async def main(dsn: str, prefix: str, tenant: str, worker: int) -> None:
    kg = await KnowledgeGraph.on_postgres(dsn, prefix=prefix, **build_graph_args())  # type: ignore[arg-type]
    async with kg:
        await ingest_all(kg, tenant, worker)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
