"""PostgresChunkStore: the ChunkStore port on PostgreSQL, through asyncpg.

Four tables: ``{prefix}chunks`` holds each passage keyed on ``(tenant_id, id)``, and
``{prefix}chunk_terms`` holds one row per chunk: its distinct tokens (``terms``), the tokens
occurring more than once (``repeated``) with their counts (``repeat_counts``, aligned), and
its length, all counted at upsert time by
:func:`redstring.domain.chunk_ranking.term_frequencies`. Lexical statistics are read from
those rows, so the database agrees with the domain's tokeniser by construction; PostgreSQL's
own text-search parser splits and folds words differently and would not. Ranking stays in
:mod:`redstring.domain.chunk_ranking`.

A GIN index over ``terms`` finds the chunks holding a query term; a term absent from
``repeated`` occurs once, so a count is a lookup in a short array rather than in all of a
chunk's terms. Every stored term carries a four-character tag derived from the tenant id, so
the index's posting lists are per tenant and a lookup never visits another tenant's rows
(two tenants sharing a tag only share postings, which the ``tenant_id`` test removes). One
row per chunk keeps a bulk write cheap: GIN queues new entries and merges them into its
posting lists in sorted batches, where one B-tree row per (chunk, term), the earlier layout,
cost a random index insertion each.

Document frequencies and corpus totals are kept, not counted per query (ADR 0020): counting
the holders of a term in every chunk costs ~17 ms at 20k chunks, a lookup in
``{prefix}chunk_term_stats`` (tenant, term key, chunks holding it) costs microseconds, and
``{prefix}chunk_corpus`` holds each tenant's chunk count and total length. Every write that
changes them takes a per-tenant advisory lock first, so concurrent writers of one tenant
queue rather than deadlock on those rows; a term whose last holder goes keeps a row of 0.
A term's key is the term itself up to 200 characters, and otherwise its first 100
characters, a unit separator (never inside a token) and the SHA-256 of the whole term.

Ids are content-addressed (``chunk_id(source_id, text)``), so a chunk id already stored for a
tenant already has exactly the terms its text yields: an upsert writes a term row only for a
chunk new to the tenant. A change to the tokeniser therefore needs the projection rebuilt
(dropped and replayed from the event log), as any change to a projection does.

Long values: an index entry holds at most about 2.7 kB, and a token or a source id can be
longer (a DNA sequence is one ``\\w+`` token). A chunk holding a token longer than 200
characters also stores its terms cut to 200 characters (``long_keys``, NULL otherwise) and
the index covers those instead, so a lookup by prefix finds it and the full terms decide. A
source id is indexed on its first 200 characters and compared in full.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from collections.abc import Collection, Sequence
from itertools import compress
from typing import Any

import asyncpg

from redstring.domain.chunk_ranking import (
    DEFAULT_POSTING_BUDGET,
    LexicalCandidates,
    selective_terms,
    term_frequencies,
    tokenize,
)
from redstring.domain.chunks import StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import ChunkId, EntityId, SourceId, TenantId, distinct
from redstring.ports.chunk_store import validate_chunk_limit
from redstring.ports.text_arguments import checks_text_arguments
from redstring.postgres.locks import lock_for_transaction
from redstring.postgres.pool import NamesOnlyStore

__all__ = ["PostgresChunkStore"]

_INDEXED_CHARS = 200
"""How many leading characters of a token or source id the indexes hold."""


_COLUMNS = "id, source_id, chunk_index, text, char_start, char_end, entity_ids, metadata"

_KEY_HEAD = 100
"""How many leading characters of a long term its statistics key keeps before the hash."""


def _stat_key(term: str) -> str:
    """The key of ``term``'s document frequency row; :data:`_STAT_KEY_SQL` computes the same."""
    if len(term) <= _INDEXED_CHARS:
        return term
    return term[:_KEY_HEAD] + "\x1f" + hashlib.sha256(term.encode("utf-8")).hexdigest()


_STAT_KEY_SQL = (
    f"CASE WHEN length({{0}}) <= {_INDEXED_CHARS} THEN {{0}} "
    f"ELSE left({{0}}, {_KEY_HEAD}) || chr(31) || "
    "encode(sha256(convert_to({0}, 'UTF8')), 'hex') END"
)
""":func:`_stat_key` in SQL, over the expression put in for ``{0}``."""


def _array_literal(values: Collection[str], *, tag: str = "") -> str:
    """A PostgreSQL array literal holding ``tag + value`` for each value, every element quoted.

    Quoting keeps a token such as ``null`` a string. Tokens are ``\\w+`` and hold neither a
    quote nor a backslash, and tags are base64url, so escaping is only paid for a value that
    does. ``tag`` is joined in rather than prepended one string at a time: this runs for
    every new chunk.
    """
    if not values:
        return "{}"
    body = tag + ('","' + tag).join(values)
    # The separators hold 2 * (n - 1) quotes; any more came from a value.
    if body.count('"') != 2 * (len(values) - 1) or "\\" in body:
        body = '","'.join(tag + v.replace("\\", "\\\\").replace('"', '\\"') for v in values)
    return '{"' + body + '"}'


def _tenant_tag(tenant_id: str) -> str:
    """Four characters standing for the tenant in every stored term (24 bits of a hash).

    Fixed length, so a tagged term equals another exactly when the tags and terms do.
    """
    digest = hashlib.blake2b(tenant_id.encode("utf-8"), digest_size=3).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")


_MORE_THAN_ONCE = (1).__lt__
"""``count > 1`` as a C-level callable, so ``map`` runs it without a Python frame."""


def _term_row(
    chunk_id: str, counts: Counter[str], length: int, tag: str
) -> tuple[str, int, str, str, str, str | None]:
    """The chunk's term-table row: id, length, tagged terms, repeated terms, their counts
    and, when a token is longer than the index holds, the tagged index keys."""
    repeated = list(compress(counts, map(_MORE_THAN_ONCE, counts.values())))
    long_keys = None
    if max(map(len, counts), default=0) > _INDEXED_CHARS:
        long_keys = _array_literal([term[:_INDEXED_CHARS] for term in counts], tag=tag)
    return (
        chunk_id,
        length,
        _array_literal(counts, tag=tag),
        _array_literal(repeated),
        "{" + ",".join(map(str, map(counts.__getitem__, repeated))) + "}",
        long_keys,
    )


def _is_token(term: str) -> bool:
    """Whether ``term`` is one whole token as ``tokenize`` yields it."""
    return tokenize(term) == [term]


def _chunk(row: Any) -> StoredChunk:
    return StoredChunk(
        id=row["id"],
        source_id=row["source_id"],
        chunk_index=row["chunk_index"],
        text=row["text"],
        char_start=row["char_start"],
        char_end=row["char_end"],
        entity_ids=tuple(row["entity_ids"]),
        metadata=json.loads(row["metadata"]),
    )


@checks_text_arguments()
class PostgresChunkStore(NamesOnlyStore):
    """The passage corpus and its term statistics, for every tenant, in two tables.

    Build it over a pool you own (``close`` then leaves the pool open) or let :meth:`connect`
    create and own one. Call :meth:`ensure_schema` once before use; it is idempotent.
    Every write is one transaction; ``replace_source`` also serialises with other
    replacements of the same source, so two concurrent replacements never leave a mixture.
    """

    LONGEST_SUFFIX = "chunks_tenant_length_idx"
    """Longer than every other derived name, ``chunk_terms_keys_idx`` included."""

    def __init__(
        self, pool: asyncpg.Pool, *, prefix: str = "redstring_", schema: str = "public"
    ) -> None:
        super().__init__(pool, prefix=prefix, schema=schema)
        self._chunks = self._names.table("chunks")
        self._terms = self._names.table("chunk_terms")
        self._stats = self._names.table("chunk_term_stats")
        self._corpus = self._names.table("chunk_corpus")

    @property
    def tables(self) -> tuple[str, str, str, str]:
        """The quoted, schema-qualified chunk, term, term statistics and corpus table names
        (for operators and tests)."""
        return self._chunks, self._terms, self._stats, self._corpus

    async def ensure_schema(self) -> None:
        """Create the tables and indexes if missing; safe to run concurrently."""
        index = self._names.index
        async with self._schema_transaction() as conn:
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self._chunks} (
                    tenant_id text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    source_id text COLLATE "C" NOT NULL,
                    chunk_index integer NOT NULL,
                    text text NOT NULL,
                    char_start integer NOT NULL,
                    char_end integer NOT NULL,
                    entity_ids uuid[] NOT NULL,
                    metadata json NOT NULL,
                    length integer NOT NULL,
                    PRIMARY KEY (tenant_id, id)
                )
                """
            )
            await self._refuse_the_per_term_layout(conn)
            # The key leads with the chunk id so the planner never pairs a term lookup with a
            # scan of the tenant's whole key range; the tenant is checked on the row instead.
            await conn.execute(
                f"""
                CREATE TABLE IF NOT EXISTS {self._terms} (
                    chunk_id text COLLATE "C" NOT NULL,
                    tenant_id text COLLATE "C" NOT NULL,
                    length integer NOT NULL,
                    terms text[] COLLATE "C" NOT NULL,
                    repeated text[] COLLATE "C" NOT NULL,
                    repeat_counts integer[] NOT NULL,
                    long_keys text[] COLLATE "C",
                    PRIMARY KEY (chunk_id, tenant_id)
                )
                """
            )
            await self._create_statistics(conn)
            for statement in (
                f"CREATE INDEX IF NOT EXISTS {index('chunks_source_idx')} ON {self._chunks} "
                f"(tenant_id, left(source_id, {_INDEXED_CHARS}), chunk_index, id)",
                f"CREATE INDEX IF NOT EXISTS {index('chunks_entity_ids_idx')} ON {self._chunks} "
                "USING gin (entity_ids)",
                f"CREATE INDEX IF NOT EXISTS {index('chunks_tenant_length_idx')} ON {self._chunks} "
                "(tenant_id) INCLUDE (length)",
                f"CREATE INDEX IF NOT EXISTS {index('chunk_terms_keys_idx')} ON {self._terms} "
                "USING gin ((coalesce(long_keys, terms)))",
            ):
                await conn.execute(statement)

    async def _create_statistics(self, conn: Any) -> None:
        """Create the statistics tables; when they are new, fill them from the term rows.

        Filling them makes a store written by a version without them correct on upgrade.
        """
        new = await conn.fetchval("SELECT to_regclass($1) IS NULL", self._corpus)
        await conn.execute(
            f"""
            CREATE TABLE IF NOT EXISTS {self._stats} (
                tenant_id text COLLATE "C" NOT NULL,
                term_key text COLLATE "C" NOT NULL,
                chunks bigint NOT NULL,
                PRIMARY KEY (tenant_id, term_key)
            );
            CREATE TABLE IF NOT EXISTS {self._corpus} (
                tenant_id text COLLATE "C" PRIMARY KEY,
                chunks bigint NOT NULL,
                length bigint NOT NULL
            )
            """
        )
        if new:
            await conn.execute(
                f"""
                INSERT INTO {self._corpus} (tenant_id, chunks, length)
                SELECT tenant_id, count(*), sum(length) FROM {self._terms} GROUP BY tenant_id;
                INSERT INTO {self._stats} (tenant_id, term_key, chunks)
                SELECT t.tenant_id, {_STAT_KEY_SQL.format("substr(term, 5)")}, count(*)
                FROM {self._terms} AS t, unnest(t.terms) AS term
                GROUP BY 1, 2
                """
            )

    async def _lock_statistics(self, conn: Any, tenant_id: TenantId) -> None:
        """Serialise the writers of one tenant's statistics rows until the transaction ends."""
        await lock_for_transaction(conn, f"{self._corpus}\x1f{tenant_id}")

    async def _refuse_the_per_term_layout(self, conn: Any) -> None:
        """Raise when ``chunk_terms`` still has the one-row-per-term layout of earlier versions.

        Left in place it would answer no lexical lookup for the chunks it describes, silently.
        """
        old = await conn.fetchval(
            "SELECT EXISTS (SELECT FROM pg_attribute WHERE attrelid = to_regclass($1) "
            "AND attname = 'term' AND NOT attisdropped)",
            self._terms,
        )
        if old:
            raise InvalidArgumentError(
                f"table {self._terms} holds one row per term, the layout of an earlier "
                "version: rebuild the passage projection (drop it and its chunks table, then "
                "replay the event log) or use another prefix"
            )

    async def upsert_many(self, tenant_id: TenantId, chunks: Sequence[StoredChunk]) -> None:
        """Insert or replace every chunk (and its terms) in one transaction; last id wins."""
        latest = {chunk.id: chunk for chunk in chunks}
        if not latest:
            return
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_statistics(conn, tenant_id)
            await self._write(conn, tenant_id, list(latest.values()))

    async def replace_source(
        self, tenant_id: TenantId, source_id: SourceId, chunks: Sequence[StoredChunk]
    ) -> None:
        """Atomically make ``chunks`` the source's whole content (``[]`` empties it).

        Raises :class:`InvalidArgumentError` (a ``ValueError``) before writing anything when a
        chunk belongs to another source.
        """
        for chunk in chunks:
            if chunk.source_id != source_id:
                raise InvalidArgumentError(
                    f"chunk {chunk.id!r} belongs to source {chunk.source_id!r}, not "
                    f"{source_id!r}: replace_source takes only the replaced source's chunks"
                )
        latest = {chunk.id: chunk for chunk in chunks}
        async with self._pool.acquire() as conn, conn.transaction():
            await lock_for_transaction(conn, f"{self._chunks}\x1f{tenant_id}\x1f{source_id}")
            await self._lock_statistics(conn, tenant_id)
            await self._delete_where(
                conn,
                tenant_id,
                f"left(source_id, {_INDEXED_CHARS}) = left($2, {_INDEXED_CHARS}) "
                "AND source_id = $2",
                source_id,
            )
            if latest:
                await self._write(conn, tenant_id, list(latest.values()))

    async def _write(self, conn: Any, tenant_id: TenantId, chunks: list[StoredChunk]) -> None:
        """Upsert ``chunks`` (distinct ids) inside ``conn``'s transaction; terms for new ones.

        Inserting with ``ON CONFLICT DO NOTHING RETURNING`` names exactly the chunks this
        statement created, even when another writer inserts the same chunk concurrently (it
        waits, then sees the row). Only those get a term row: a stored id has the same text,
        hence the same terms. The rest are updated in place, last write winning.
        """
        counts = [term_frequencies(chunk.text) for chunk in chunks]
        lengths = [sum(count.values()) for count in counts]
        columns = (
            [chunk.id for chunk in chunks],
            [chunk.source_id for chunk in chunks],
            [chunk.chunk_index for chunk in chunks],
            [chunk.text for chunk in chunks],
            [chunk.char_start for chunk in chunks],
            [chunk.char_end for chunk in chunks],
            # Each entity once, as the model holds it, even past validation (ADR 0028).
            [
                "{" + ",".join(str(entity) for entity in distinct(chunk.entity_ids)) + "}"
                for chunk in chunks
            ],
            [json.dumps(chunk.metadata, allow_nan=False) for chunk in chunks],
            lengths,
        )
        rows = """
            unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::int[],
                   $8::text[], $9::text[], $10::int[])
            AS r(id, source_id, chunk_index, text, char_start, char_end, entity_ids, metadata,
                 length)
        """
        inserted = {
            row["id"]
            for row in await conn.fetch(
                f"""
                INSERT INTO {self._chunks} (tenant_id, id, source_id, chunk_index, text,
                                            char_start, char_end, entity_ids, metadata, length)
                SELECT $1, r.id, r.source_id, r.chunk_index, r.text, r.char_start, r.char_end,
                       r.entity_ids::uuid[], r.metadata::json, r.length
                FROM {rows}
                ON CONFLICT (tenant_id, id) DO NOTHING
                RETURNING id
                """,
                tenant_id,
                *columns,
            )
        }
        if len(inserted) < len(chunks):
            await conn.execute(
                f"""
                UPDATE {self._chunks} AS c
                SET source_id = r.source_id, chunk_index = r.chunk_index, text = r.text,
                    char_start = r.char_start, char_end = r.char_end,
                    entity_ids = r.entity_ids::uuid[], metadata = r.metadata::json,
                    length = r.length
                FROM {rows}
                WHERE c.tenant_id = $1 AND c.id = r.id AND NOT (r.id = ANY($11::text[]))
                """,
                tenant_id,
                *columns,
                list(inserted),
            )
        tag = _tenant_tag(tenant_id)
        new = [
            _term_row(chunk.id, count, length, tag)
            for chunk, count, length in zip(chunks, counts, lengths, strict=True)
            if chunk.id in inserted
        ]
        if new:
            await conn.execute(
                f"""
                INSERT INTO {self._terms}
                    (tenant_id, chunk_id, length, terms, repeated, repeat_counts, long_keys)
                SELECT $1, r.chunk_id, r.length, r.terms::text[], r.repeated::text[],
                       r.repeat_counts::int[], r.long_keys::text[]
                FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[],
                            $7::text[])
                     AS r(chunk_id, length, terms, repeated, repeat_counts, long_keys)
                """,
                tenant_id,
                *(list(column) for column in zip(*new, strict=True)),
            )
            await self._count_new(
                conn,
                tenant_id,
                [
                    count
                    for chunk, count in zip(chunks, counts, strict=True)
                    if chunk.id in inserted
                ],
            )

    async def _count_new(self, conn: Any, tenant_id: TenantId, counts: list[Counter[str]]) -> None:
        """Add the new chunks (their term counts given) to the tenant's statistics rows.

        Keys are written in sorted order, the same order for every writer.
        """
        holders: Counter[str] = Counter()
        for count in counts:
            holders.update(map(_stat_key, count))
        keys = sorted(holders)
        await conn.execute(
            f"""
            INSERT INTO {self._stats} AS s (tenant_id, term_key, chunks)
            SELECT $1, r.key, r.chunks
            FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS r(key, chunks, position)
            ORDER BY r.position
            ON CONFLICT (tenant_id, term_key) DO UPDATE SET chunks = s.chunks + excluded.chunks;
            """,
            tenant_id,
            keys,
            [holders[key] for key in keys],
        )
        await conn.execute(
            f"""
            INSERT INTO {self._corpus} AS c (tenant_id, chunks, length) VALUES ($1, $2, $3)
            ON CONFLICT (tenant_id) DO UPDATE
            SET chunks = c.chunks + excluded.chunks, length = c.length + excluded.length
            """,
            tenant_id,
            len(counts),
            sum(sum(count.values()) for count in counts),
        )

    async def get(self, tenant_id: TenantId, chunk_id: ChunkId) -> StoredChunk | None:
        """The chunk (a new object on every call), or ``None``."""
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM {self._chunks} WHERE tenant_id = $1 AND id = $2",
            tenant_id,
            chunk_id,
        )
        return None if row is None else _chunk(row)

    async def get_many(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> dict[ChunkId, StoredChunk]:
        """The tenant's chunks among ``chunk_ids`` (absent ids omitted), in one query."""
        if not chunk_ids:
            return {}
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM {self._chunks} "
            "WHERE tenant_id = $1 AND id = ANY($2::text[]) ORDER BY id",
            tenant_id,
            list(set(chunk_ids)),
        )
        return {ChunkId(row["id"]): _chunk(row) for row in rows}

    async def get_by_source(self, tenant_id: TenantId, source_id: SourceId) -> list[StoredChunk]:
        """The source's chunks ordered by ``(chunk_index, id)``."""
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM {self._chunks} WHERE tenant_id = $1 "
            f"AND left(source_id, {_INDEXED_CHARS}) = left($2, {_INDEXED_CHARS}) "
            "AND source_id = $2 ORDER BY chunk_index, id",
            tenant_id,
            source_id,
        )
        return [_chunk(row) for row in rows]

    async def get_by_entity(
        self,
        tenant_id: TenantId,
        entity_id: EntityId,
        *,
        limit: int | None = None,
        prefer: Sequence[ChunkId] = (),
    ) -> list[StoredChunk]:
        """Chunks naming ``entity_id``: those in ``prefer`` first (in its order), then the rest
        ascending by chunk id, at most ``limit``; the limit is applied in the statement."""
        validate_chunk_limit(limit)
        ranked = list(dict.fromkeys(prefer))
        found: list[StoredChunk] = []
        if ranked and limit != 0:
            rows = await self._pool.fetch(
                f"SELECT {_COLUMNS} FROM {self._chunks} "
                "WHERE tenant_id = $1 AND entity_ids @> ARRAY[$2::uuid] AND id = ANY($3::text[]) "
                "ORDER BY array_position($3::text[], id) LIMIT $4",
                tenant_id,
                entity_id,
                ranked,
                limit,
            )
            found = [_chunk(row) for row in rows]
        if limit is not None and len(found) >= limit:
            return found
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM {self._chunks} "
            "WHERE tenant_id = $1 AND entity_ids @> ARRAY[$2::uuid] "
            "AND NOT (id = ANY($3::text[])) ORDER BY id LIMIT $4",
            tenant_id,
            entity_id,
            [chunk.id for chunk in found],
            None if limit is None else limit - len(found),
        )
        return found + [_chunk(row) for row in rows]

    async def existing_ids(
        self, tenant_id: TenantId, chunk_ids: Collection[ChunkId]
    ) -> set[ChunkId]:
        """Which of ``chunk_ids`` the tenant holds (a new set on every call)."""
        if not chunk_ids:
            return set()
        rows = await self._pool.fetch(
            f"SELECT id FROM {self._chunks} WHERE tenant_id = $1 AND id = ANY($2::text[])",
            tenant_id,
            list(set(chunk_ids)),
        )
        return {ChunkId(row["id"]) for row in rows}

    async def list_sources(self, tenant_id: TenantId) -> dict[SourceId, int]:
        """Every source of the tenant with its chunk count."""
        rows = await self._pool.fetch(
            f"SELECT source_id, count(*) AS chunks FROM {self._chunks} "
            "WHERE tenant_id = $1 GROUP BY source_id ORDER BY source_id",
            tenant_id,
        )
        return {SourceId(row["source_id"]): int(row["chunks"]) for row in rows}

    async def lexical_candidates(
        self,
        tenant_id: TenantId,
        terms: Collection[str],
        *,
        posting_budget: int | None = DEFAULT_POSTING_BUDGET,
    ) -> LexicalCandidates:
        """Term statistics for ``terms`` over the tenant's corpus, in one snapshot.

        Corpus totals and document frequencies are read from the statistics tables; the
        postings of the terms ``selective_terms`` chooses are read from the GIN index, and
        each candidate's count of every given term from its term row. Both statements run in
        one repeatable-read transaction, so they see one state of the corpus.
        """
        wanted = list(dict.fromkeys(terms))
        if posting_budget is not None and posting_budget < 0:
            raise InvalidArgumentError(
                f"posting_budget must be non-negative or None, got {posting_budget}"
            )
        tag = _tenant_tag(tenant_id)
        keys = {term: _stat_key(term) for term in wanted}
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            totals = await conn.fetchrow(
                f"""
                SELECT coalesce(c.chunks, 0) AS size, coalesce(c.length, 0) AS total,
                       s.keys, s.frequencies
                FROM (SELECT) AS one
                LEFT JOIN {self._corpus} AS c ON c.tenant_id = $1
                CROSS JOIN LATERAL (
                    SELECT array_agg(term_key) AS keys, array_agg(chunks) AS frequencies
                    FROM {self._stats} WHERE tenant_id = $1 AND term_key = ANY($2::text[])
                ) AS s
                """,
                tenant_id,
                list(set(keys.values())),
            )
            by_key = dict(zip(totals["keys"] or (), totals["frequencies"] or (), strict=True))
            # A term that is no token (empty, or holding punctuation) has no postings even
            # when its key happens to name another term's row.
            document_frequencies = {
                term: int(by_key.get(keys[term], 0)) if _is_token(term) else 0 for term in wanted
            }
            chosen = selective_terms(document_frequencies, posting_budget)
            rows = []
            if chosen:
                # GIN finds the holders of each chosen term by its tagged first 200
                # characters; the overlap with the full tagged terms makes it exact. Each
                # row then counts every wanted term from the candidate's own arrays.
                rows = await conn.fetch(
                    f"""
                    SELECT t.chunk_id, t.length,
                           ARRAY(SELECT CASE WHEN ($2 || w.term) = ANY(t.terms)
                                        THEN coalesce(t.repeat_counts[
                                                 array_position(t.repeated, w.term)], 1)
                                        ELSE 0 END
                                 FROM unnest($3::text[]) WITH ORDINALITY AS w(term, position)
                                 ORDER BY w.position) AS counts
                    FROM {self._terms} AS t
                    WHERE coalesce(t.long_keys, t.terms) && $4::text[]
                      AND t.tenant_id = $1
                      AND t.terms && $5::text[]
                    ORDER BY t.chunk_id
                    """,
                    tenant_id,
                    tag,
                    wanted,
                    [tag + term[:_INDEXED_CHARS] for term in chosen],
                    [tag + term for term in chosen],
                )
        # Validating plain data in one call is about twice as fast as building each
        # LexicalCandidate in Python.
        return LexicalCandidates.model_validate(
            {
                "corpus_size": totals["size"],
                "total_length": totals["total"],
                "document_frequencies": document_frequencies,
                "candidate_terms": chosen,
                "candidates": [
                    {
                        "chunk_id": chunk,
                        "length": length,
                        "term_frequencies": {
                            term: count for term, count in zip(wanted, counts, strict=True) if count
                        },
                    }
                    for chunk, length, counts in rows
                ],
            }
        )

    async def delete_by_source(self, tenant_id: TenantId, source_id: SourceId) -> int:
        """Remove the source's chunks and their terms; returns how many chunks."""
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_statistics(conn, tenant_id)
            return await self._delete_where(
                conn,
                tenant_id,
                f"left(source_id, {_INDEXED_CHARS}) = left($2, {_INDEXED_CHARS}) "
                "AND source_id = $2",
                source_id,
            )

    async def _delete_where(
        self, conn: Any, tenant_id: TenantId, condition: str, *arguments: Any
    ) -> int:
        """Delete the tenant's chunks matching ``condition``, their term rows and their part
        of the statistics; the caller holds the tenant's statistics lock."""
        deleted = [
            row["id"]
            for row in await conn.fetch(
                f"DELETE FROM {self._chunks} WHERE tenant_id = $1 AND {condition} RETURNING id",
                tenant_id,
                *arguments,
            )
        ]
        if deleted:
            await conn.execute(
                f"""
                WITH gone AS (
                    DELETE FROM {self._terms}
                    WHERE tenant_id = $1 AND chunk_id = ANY($2::text[])
                    RETURNING terms, length
                ), holders AS (
                    SELECT {_STAT_KEY_SQL.format("substr(term, 5)")} AS key, count(*) AS chunks
                    FROM gone, unnest(gone.terms) AS term
                    GROUP BY 1
                ), counted AS (
                    UPDATE {self._stats} AS s SET chunks = s.chunks - holders.chunks
                    FROM holders WHERE s.tenant_id = $1 AND s.term_key = holders.key
                )
                UPDATE {self._corpus}
                SET chunks = chunks - (SELECT count(*) FROM gone),
                    length = length - (SELECT coalesce(sum(length), 0) FROM gone)
                WHERE tenant_id = $1
                """,
                tenant_id,
                deleted,
            )
        return len(deleted)

    async def delete_by_tenant(self, tenant_id: TenantId) -> int:
        """Remove every chunk (and term row) of the tenant; returns how many chunks."""
        # Term rows are keyed by chunk id first, so they are found through the deleted
        # chunks' ids rather than by a scan of every tenant's term rows.
        async with self._pool.acquire() as conn, conn.transaction():
            await self._lock_statistics(conn, tenant_id)
            removed = await self._delete_where(conn, tenant_id, "true")
            await conn.execute(f"DELETE FROM {self._stats} WHERE tenant_id = $1", tenant_id)
            await conn.execute(f"DELETE FROM {self._corpus} WHERE tenant_id = $1", tenant_id)
            return removed
