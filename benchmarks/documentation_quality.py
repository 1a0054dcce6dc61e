"""How clean a graph the offline default builds from real software documentation.

Run with ``uv run --frozen --no-sync python -m benchmarks.documentation_quality`` (offline;
``--sample`` prints 30 entities and 30 relationships of the graph, ``--list`` every entity,
``--json`` the numbers). Needs Debian's ``git-doc``, ``python3-doc`` and ``nodejs`` docs
(``apt-get install git-doc python3-doc nodejs``); a missing file is named and skipped.

The corpus (:data:`FILES`): 23 real pages nobody here wrote, read as ``redstring ingest``
reads them (``redstring.documents.read_document``) and ingested on the defaults
(``KnowledgeGraph.in_memory`` with ``SpacyExtractor`` and the default schema) into one tenant.
Measured on the resolved graph:

* **junk by rule**: every entity name is checked against the rules below, written for this
  benchmark from what junk in real manuals looks like (they are not the extractor's code):
  markup or URL fragments; code identifiers (``snake_case``, ``a.b``, ``f()``, ``A::B``,
  ``camelCase``, ``--option``); paths; numbers, versions and hex; ALL-CAPS headings of two
  words or more; a lowercase first word (a phrase, not a name); more than six words (a line,
  not a name). Target: at most 5% of entities.
* **hand-checked sample**: 100 entities chosen by a hash of name and type (so the sample is
  stable while the graph changes), each judged by a person as ``ok``, ``junk`` (not a name
  of anything) or ``type`` (a name, wrongly typed) in
  ``benchmarks/annotations/documentation_judgements.json``. Entities of the sample not yet
  judged are listed so they can be; the share is over the judged ones.
* **split names**: names (``normalise_name``) held by more than one entity, and by more than
  two (target: none). A name with two entities of different types may be right ("Python" the
  language and a person named Python are rare; "Windows" the system and "windows" are not).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import time
from collections import Counter
from pathlib import Path

from redstring import KnowledgeGraph
from redstring.documents import Document, read_document
from redstring.domain.blocking import normalise_name
from redstring.domain.errors import EmptyTextError
from redstring.extraction.adapters.spacy import SpacyExtractor

FILES = (
    "/usr/share/doc/git-doc/gittutorial.html",
    "/usr/share/doc/git-doc/gittutorial-2.html",
    "/usr/share/doc/git-doc/everyday.html",
    "/usr/share/doc/git-doc/git-add.html",
    "/usr/share/doc/git-doc/git-commit.html",
    "/usr/share/doc/git-doc/git-clone.html",
    "/usr/share/doc/git-doc/gitglossary.html",
    "/usr/share/doc/git-doc/MyFirstContribution.html",
    "/usr/share/doc/git-doc/SubmittingPatches.html",
    "/usr/share/doc/git-doc/git-bisect-lk2009.html",
    "/usr/share/doc/git/README.md",
    "/usr/share/doc/python3.11/html/tutorial/appetite.html",
    "/usr/share/doc/python3.11/html/tutorial/interpreter.html",
    "/usr/share/doc/python3.11/html/tutorial/modules.html",
    "/usr/share/doc/python3.11/html/tutorial/stdlib.html",
    "/usr/share/doc/python3.11/html/tutorial/stdlib2.html",
    "/usr/share/doc/python3.11/html/tutorial/venv.html",
    "/usr/share/doc/python3.11/html/tutorial/whatnow.html",
    "/usr/share/doc/python3.11/html/faq/general.html",
    "/usr/share/doc/python3.11/html/howto/pyporting.html",
    "/usr/share/doc/nodejs/README.md",
    "/usr/share/doc/nodejs/api/url.md",
    "/usr/share/doc/python3-pip/html/installation.md",
)
JUDGEMENTS = Path(__file__).parent / "annotations" / "documentation_judgements.json"
SAMPLE = 100

_MARKUP = re.compile(r"\]\(|://|[<>\[\]{}=`|\\*#@$%^~]|&\w+;")
_CODE = re.compile(
    r"\w_\w|^_|\w\.\w|\(\)|::|^-{1,2}\w|^[a-z]+[A-Z]\w*$|\w\(|\.(?:py|c|h|js|md|txt|html|sh)$"
)
_PATH = re.compile(r"(?:^|\s)[~.]?/\w|\w/\w")
_NUMBER = re.compile(r"^[\W\d_]*$|^v?\d+(?:\.\d+)+\w*$|^0x[0-9a-f]+$|^[0-9a-f]{7,40}$", re.I)


def junk_rule(name: str) -> str | None:
    """The rule a name breaks, or ``None`` when it looks like a name (see the module doc)."""
    words = name.split()
    if _MARKUP.search(name):
        return "markup"
    if _PATH.search(name):
        return "path"
    if _NUMBER.match(name):
        return "number"
    if _CODE.search(name):
        return "code"
    if len(words) >= 2 and name.isupper():
        return "allcaps_heading"
    if words and words[0][:1].islower() and not re.match(r"^[a-z]+[A-Z]", words[0]):
        return "lowercase"
    if len(words) > 6:
        return "too_long"
    return None


def read_corpus() -> list[Document]:
    """The files of :data:`FILES` that are installed, read as ``redstring ingest`` reads them."""
    present = [Path(name) for name in FILES if Path(name).is_file()]
    for name in sorted(set(FILES) - {str(path) for path in present}):
        print(f"missing, skipped: {name}")
    return [read_document(path) for path in present]


def sample_key(name: str, kind: str) -> str:
    return hashlib.sha256(f"{name}|{kind}".encode()).hexdigest()


def _key(name: str) -> str:
    try:
        return normalise_name(name)
    except EmptyTextError:
        return name


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--sample", action="store_true", help="print 30 entities and 30 edges")
    parser.add_argument("--list", action="store_true", help="print every entity and its rule")
    args = parser.parse_args()
    extractor = SpacyExtractor()
    chunks = 0
    dropped: Counter[str] = Counter()
    started = time.perf_counter()
    documents = read_corpus()
    async with KnowledgeGraph.in_memory(extractor=extractor) as kg:
        for document in documents:
            report = await kg.ingest("docs", document.path.name, document.text)
            chunks += report.chunks
            dropped.update(report.dropped)
        seconds = time.perf_counter() - started
        snapshot = await kg.export("docs")
    names = {item.entity.id: item.entity.name for item in snapshot.entities}
    entities = [(item.entity.name, item.entity.type) for item in snapshot.entities]
    rules = Counter(rule for name, _ in entities if (rule := junk_rule(name)) is not None)
    by_name = Counter(_key(name) for name, _ in entities)
    split = {name: count for name, count in by_name.items() if count > 1}
    judgements: dict[str, str] = (
        json.loads(JUDGEMENTS.read_text("utf-8")) if JUDGEMENTS.is_file() else {}
    )
    sample = sorted(entities, key=lambda e: sample_key(*e))[:SAMPLE]
    verdicts = Counter(judgements.get(f"{name}|{kind}", "unjudged") for name, kind in sample)
    judged = sum(count for verdict, count in verdicts.items() if verdict != "unjudged")
    junk_share = sum(rules.values()) / len(entities) if entities else 0.0
    numbers = {
        "model": extractor.model,
        "files": len(FILES),
        "passages": chunks,
        "passages_per_second_end_to_end": round(chunks / seconds, 1),
        "entities": len(entities),
        "entities_by_type": dict(Counter(kind for _, kind in entities).most_common()),
        "relationships": len(snapshot.relationships),
        "relationships_by_type": dict(Counter(r.type for r in snapshot.relationships)),
        "junk_by_rule": dict(rules.most_common()),
        "junk_share_by_rule": round(junk_share, 3),
        "sample_verdicts": dict(verdicts),
        "sample_junk_share": round(verdicts["junk"] / judged, 3) if judged else None,
        "sample_wrong_type_share": round(verdicts["type"] / judged, 3) if judged else None,
        "names_on_2_entities": sum(1 for count in split.values() if count == 2),
        "names_on_more_than_2": sum(1 for count in split.values() if count > 2),
        "dropped": dict(sorted(dropped.items())),
    }
    if args.json:
        print(json.dumps(numbers, indent=2))
    else:
        for key, value in numbers.items():
            print(f"{key:>32}: {value}")
        worst = sorted(split.items(), key=lambda kv: -kv[1])[:10]
        print(f"{'most split names':>32}: {worst}")
    unjudged = [f"{name}|{kind}" for name, kind in sample if f"{name}|{kind}" not in judgements]
    if unjudged:
        print(f"\n{len(unjudged)} sampled entities not judged yet:")
        print(json.dumps(dict.fromkeys(unjudged, "?"), indent=1, ensure_ascii=False))
    if args.sample:
        print("\n30 entities (every 1/30th of the sorted graph):")
        ordered = sorted(entities, key=lambda e: sample_key(*e))
        for name, kind in ordered[:: max(1, len(ordered) // 30)][:30]:
            print(f"  {name} ({kind})")
        print("\n30 relationships:")
        edges = sorted(snapshot.relationships, key=lambda r: sample_key(str(r.subject_id), r.type))
        for edge in edges[:: max(1, len(edges) // 30)][:30]:
            subject, obj = names.get(edge.subject_id), names.get(edge.object_id)
            print(f"  {subject} {edge.type} {obj}")
    if args.list:
        for name, kind in sorted(entities):
            print(f"  {junk_rule(name) or '':>16} {kind:<13} {name}")


if __name__ == "__main__":
    asyncio.run(main())
