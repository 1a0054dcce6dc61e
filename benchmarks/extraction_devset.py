"""A second, small check of the offline extractor on text it was not built on.

Run with ``uv run --frozen --no-sync python -m benchmarks.extraction_devset`` (offline).

Three short documents (a news item, an email, meeting notes) about a different fictional
world, written after the offline rules were first developed on the Velmar corpus, annotated
the same way (typed entities with their surface names; relationships the prose states).
History, so the numbers can be read for what they are: the first run scored entity F1 0.69
and relationship recall 0.24; five general bugs it exposed were then fixed (a place opening
an event's name took the event's type; a dateline in capitals; "Mills"/"Works" company words;
"who wrote X"; a surname the tagger called an adjective), bringing it to the figures in
docs/benchmarks.md. It is therefore a development set now, not a held-out one.
"""

from __future__ import annotations

import asyncio
import re

from redstring.domain.blocking import normalise_name
from redstring.domain.schema import DEFAULT_SCHEMA
from redstring.extraction.adapters.spacy import SpacyExtractor

DOCUMENTS: dict[str, str] = {
    "a": (
        "# Kiln & Carrow names new chief designer\n"
        "\n"
        "FENWICK, 3 June 2025 - Kiln & Carrow Ltd, the furniture maker based in Fenwick, "
        "has appointed Odile Marchetti as chief designer. Marchetti previously worked at "
        "Brightwell Studio in Calderport, where she designed the Aster chair.\n"
        "\n"
        '"Odile understands how people actually sit," said Hamish Dorran, the managing '
        "director of Kiln & Carrow. The company was founded in 1987 by Dorran's father, "
        "Callum Dorran.\n"
        "\n"
        "Marchetti will present the firm's spring collection at the Calderport Design "
        "Fair in September. Kiln & Carrow makes the Larch range of oak tables, which is "
        "sold in more than forty shops.\n"
    ),
    "b": (
        "From: Priti Solanki\n"
        "To: Jonas Abernethy\n"
        "Subject: Visit to Tarnby\n"
        "\n"
        "Jonas,\n"
        "\n"
        "Thanks for organising the visit. As you know, Verrin Foods acquired Tarnby "
        "Mills last year, and I would like to see the mill before we decide on the new "
        "oven line. Tarnby Mills is located in Ostrava Bay, an hour north of the city.\n"
        "\n"
        "Greta Holm, who runs the bakery side at Verrin Foods, will join us. She lives "
        "in Ostrava Bay and knows the site well.\n"
        "\n"
        "Could you also ask Dr. Lenz at the Harwick Institute whether his report on "
        "grain storage is finished? I would like to read Grain at Rest before the board "
        "meeting.\n"
        "\n"
        "Priti\n"
    ),
    "c": (
        "# Meeting notes: Northfield Library Trust\n"
        "\n"
        "Present: Ada Brennan (chair), Tomasz Wilk, Rosa Quill\n"
        "\n"
        "1. The Northfield Library Trust will host the Northfield Book Festival in "
        "October. Rosa Quill reported that forty authors have agreed to attend.\n"
        "\n"
        "2. Tomasz Wilk, treasurer of the trust, presented the accounts. The grant from "
        "Calder Bank was received in May.\n"
        "\n"
        "3. The chair thanked Mira Osei, who wrote The Salt Road, for agreeing to open "
        "the festival. Osei lives in Northfield and has spoken at the festival twice "
        "before.\n"
        "\n"
        "4. The trust is based in Northfield, in the old corn exchange on Mill Street. "
        "Next meeting: 4 November.\n"
    ),
}

# (canonical name, type) -> surface names; relationships as (subject, type, object).
GOLD: dict[str, dict[str, object]] = {
    "a": {
        "entities": {
            ("Kiln & Carrow Ltd", "Organization"): ["Kiln & Carrow Ltd", "Kiln & Carrow"],
            ("Fenwick", "Location"): ["Fenwick", "FENWICK"],
            ("Odile Marchetti", "Person"): ["Odile Marchetti", "Marchetti", "Odile"],
            ("Brightwell Studio", "Organization"): ["Brightwell Studio"],
            ("Calderport", "Location"): ["Calderport"],
            ("Aster chair", "Product"): ["Aster", "Aster chair"],
            ("Hamish Dorran", "Person"): ["Hamish Dorran", "Dorran"],
            ("Callum Dorran", "Person"): ["Callum Dorran"],
            ("Calderport Design Fair", "Event"): ["Calderport Design Fair"],
            ("Larch", "Product"): ["Larch", "Larch range"],
        },
        "relationships": [
            ("Kiln & Carrow Ltd", "LOCATED_IN", "Fenwick"),
            ("Odile Marchetti", "WORKS_FOR", "Kiln & Carrow Ltd"),
            ("Odile Marchetti", "WORKS_FOR", "Brightwell Studio"),
            ("Brightwell Studio", "LOCATED_IN", "Calderport"),
            ("Hamish Dorran", "WORKS_FOR", "Kiln & Carrow Ltd"),
            ("Callum Dorran", "FOUNDED", "Kiln & Carrow Ltd"),
            ("Odile Marchetti", "PARTICIPATED_IN", "Calderport Design Fair"),
            ("Kiln & Carrow Ltd", "PRODUCES", "Larch"),
            ("Calderport Design Fair", "LOCATED_IN", "Calderport"),
        ],
    },
    "b": {
        "entities": {
            ("Priti Solanki", "Person"): ["Priti Solanki", "Priti"],
            ("Jonas Abernethy", "Person"): ["Jonas Abernethy", "Jonas"],
            ("Tarnby Mills", "Organization"): ["Tarnby Mills"],
            ("Verrin Foods", "Organization"): ["Verrin Foods"],
            ("Ostrava Bay", "Location"): ["Ostrava Bay"],
            ("Greta Holm", "Person"): ["Greta Holm"],
            ("Lenz", "Person"): ["Lenz", "Dr. Lenz"],
            ("Harwick Institute", "Organization"): ["Harwick Institute"],
            ("Grain at Rest", "Work"): ["Grain at Rest"],
            ("Tarnby", "Location"): ["Tarnby"],
        },
        "relationships": [
            ("Verrin Foods", "ACQUIRED", "Tarnby Mills"),
            ("Tarnby Mills", "LOCATED_IN", "Ostrava Bay"),
            ("Greta Holm", "WORKS_FOR", "Verrin Foods"),
            ("Greta Holm", "LIVES_IN", "Ostrava Bay"),
            ("Lenz", "WORKS_FOR", "Harwick Institute"),
            ("Lenz", "AUTHORED", "Grain at Rest"),
        ],
    },
    "c": {
        "entities": {
            ("Northfield Library Trust", "Organization"): ["Northfield Library Trust"],
            ("Ada Brennan", "Person"): ["Ada Brennan"],
            ("Tomasz Wilk", "Person"): ["Tomasz Wilk"],
            ("Rosa Quill", "Person"): ["Rosa Quill"],
            ("Northfield Book Festival", "Event"): ["Northfield Book Festival"],
            ("Calder Bank", "Organization"): ["Calder Bank"],
            ("Mira Osei", "Person"): ["Mira Osei", "Osei"],
            ("The Salt Road", "Work"): ["The Salt Road", "Salt Road"],
            ("Northfield", "Location"): ["Northfield"],
            ("Mill Street", "Location"): ["Mill Street"],
        },
        "relationships": [
            ("Northfield Library Trust", "PARTICIPATED_IN", "Northfield Book Festival"),
            ("Tomasz Wilk", "WORKS_FOR", "Northfield Library Trust"),
            ("Mira Osei", "AUTHORED", "The Salt Road"),
            ("Mira Osei", "LIVES_IN", "Northfield"),
            ("Mira Osei", "PARTICIPATED_IN", "Northfield Book Festival"),
            ("Northfield Library Trust", "LOCATED_IN", "Northfield"),
        ],
    },
}


def _key(name: str) -> str:
    return re.sub(r"^(?:(?:the|a|an|dr|mr|mrs|ms) )+", "", normalise_name(name))


async def main() -> None:
    extractor = SpacyExtractor()
    etp = efp = efn = rtp = rfp = rfn = 0
    for name, text in DOCUMENTS.items():
        gold = GOLD[name]
        entities: dict[tuple[str, str], list[str]] = gold["entities"]  # type: ignore[assignment]
        relationships = set(gold["relationships"])  # type: ignore[call-overload]
        extraction = await extractor.extract(text, DEFAULT_SCHEMA)
        index = {
            (kind, _key(surface)): canonical
            for (canonical, kind), surfaces in entities.items()
            for surface in surfaces
        }
        found: set[str] = set()
        wrong: set[tuple[str, str]] = set()
        by_name: dict[str, str] = {}
        for entity in extraction.entities:
            canonical = index.get((entity.type, _key(entity.name)))
            if canonical is None:
                wrong.add((entity.name, entity.type))
            else:
                found.add(canonical)
                by_name[entity.name] = canonical
        expected = {canonical for canonical, _ in entities}
        etp, efp, efn = etp + len(found & expected), efp + len(wrong), efn + len(expected - found)
        triples = set()
        stray = 0
        for rel in extraction.relationships:
            subject, obj = by_name.get(rel.subject), by_name.get(rel.object)
            if subject is None or obj is None:
                stray += 1
            else:
                triples.add((subject, rel.type, obj))
        rtp += len(triples & relationships)
        rfp += len(triples - relationships) + stray
        rfn += len(relationships - triples)
        print(f"{name}: entity false positives {sorted(wrong)}; misses {sorted(expected - found)}")
        print(f"   relationship misses {sorted(relationships - triples)}")
    precision, recall = etp / (etp + efp), etp / (etp + efn)
    print(
        f"entities P {precision:.3f} R {recall:.3f} "
        f"F1 {2 * precision * recall / (precision + recall):.3f}"
    )
    print(
        f"relationships P {rtp / (rtp + rfp) if rtp + rfp else 0:.3f} "
        f"R {rtp / (rtp + rfn):.3f} ({rtp} found, {rfp} wrong, {rfn} missed)"
    )


if __name__ == "__main__":
    asyncio.run(main())
