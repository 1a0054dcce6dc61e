"""A tenant's graph snapshot as JSON, GraphML or one self-contained, offline HTML page.

All three are pure functions of a :class:`~redstring.ingest.reports.GraphSnapshot`, so the
same snapshot always gives byte-identical output. The HTML page inlines the vendored
cytoscape.js (``static/cytoscape``, MIT), the view's script and the graph's data
(:func:`view_data`); its content security policy forbids every network request, so it works
from a file with no connection. It opens on the most connected entities (a top-N the reader
can raise) and grows by neighbourhood on click (ADR 0045). :func:`live_page` is the same
view for ``redstring serve``, which loads the data from the API with the reader's key.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any
from xml.etree import ElementTree as ET

from redstring.ingest.reports import GraphSnapshot

__all__ = ["FORMATS", "TOP_ENTITIES", "live_page", "to_graphml", "to_html", "to_json", "view_data"]

FORMATS = ("json", "graphml", "html")
PASSAGES_PER_ENTITY = 20
TOP_ENTITIES = 150
"""How many of the most connected entities the view shows first (the reader can raise it)."""

_GRAPHML = "http://graphml.graphdrawing.org/xmlns"
_PLACEHOLDER = re.compile(r"__(TITLE|GRAPH_DATA|LIBRARY|VIEW_SCRIPT|MODE|TOP|CSP)__")
_FILE_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
)
_LIVE_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'"
)


def to_json(snapshot: GraphSnapshot) -> str:
    """The snapshot's own JSON (``GraphSnapshot.model_dump(mode="json")``), indented."""
    return json.dumps(snapshot.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def to_graphml(snapshot: GraphSnapshot) -> str:
    """GraphML 1.0: one directed graph; entities are nodes (type, name, aliases, sources as
    JSON text), relationships are edges (type, attributes)."""
    ET.register_namespace("", _GRAPHML)
    root = ET.Element(f"{{{_GRAPHML}}}graphml")
    keys = [
        ("type", "node"),
        ("name", "node"),
        ("aliases", "node"),
        ("sources", "node"),
        ("attributes", "node"),
        ("type", "edge"),
        ("attributes", "edge"),
    ]
    for name, domain in keys:
        ET.SubElement(
            root,
            f"{{{_GRAPHML}}}key",
            {"id": f"{domain}_{name}", "for": domain, "attr.name": name, "attr.type": "string"},
        )
    graph = ET.SubElement(
        root, f"{{{_GRAPHML}}}graph", {"id": snapshot.tenant_id, "edgedefault": "directed"}
    )
    for item in snapshot.entities:
        node = ET.SubElement(graph, f"{{{_GRAPHML}}}node", {"id": str(item.entity.id)})
        values = {
            "type": item.entity.type,
            "name": item.entity.name,
            "aliases": json.dumps(sorted({a.name for a in item.aliases if a.name})),
            "sources": json.dumps(sorted(str(s) for s in item.sources)),
            "attributes": json.dumps(item.entity.attributes, sort_keys=True),
        }
        for name, value in values.items():
            ET.SubElement(node, f"{{{_GRAPHML}}}data", {"key": f"node_{name}"}).text = value
    for relationship in snapshot.relationships:
        edge = ET.SubElement(
            graph,
            f"{{{_GRAPHML}}}edge",
            {
                "id": str(relationship.id),
                "source": str(relationship.subject_id),
                "target": str(relationship.object_id),
            },
        )
        ET.SubElement(edge, f"{{{_GRAPHML}}}data", {"key": "edge_type"}).text = relationship.type
        ET.SubElement(edge, f"{{{_GRAPHML}}}data", {"key": "edge_attributes"}).text = json.dumps(
            relationship.attributes, sort_keys=True
        )
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def view_data(snapshot: GraphSnapshot) -> dict[str, Any]:
    """What the view draws, each passage once.

    ``entities``: id, name, type, aliases, sources, attributes, ``degree`` (relationships
    touching it) and ``passages`` (indices into ``passages``, at most
    ``PASSAGES_PER_ENTITY``, in snapshot order), most connected first (ties by the passages
    naming them, then name, then id). ``relationships``: ``[subject, object, type]`` as
    indices into ``entities`` and ``relationship_types``. ``passages``: ``{"source_id",
    "chunk_index", "text"}`` for the passages some entity lists.
    """
    live = {str(item.entity.id) for item in snapshot.entities}
    kept = [
        r for r in snapshot.relationships if str(r.subject_id) in live and str(r.object_id) in live
    ]
    degree: dict[str, int] = dict.fromkeys(live, 0)
    for r in kept:
        degree[str(r.subject_id)] += 1
        degree[str(r.object_id)] += 1
    mentions: dict[str, int] = dict.fromkeys(live, 0)
    for chunk in snapshot.passages:
        for entity_id in {str(e) for e in chunk.entity_ids} & live:
            mentions[entity_id] += 1
    # Most connected first; among equals (a sparse graph), the most mentioned.
    ordered = sorted(
        snapshot.entities,
        key=lambda item: (
            -degree[str(item.entity.id)],
            -mentions[str(item.entity.id)],
            item.entity.name,
            str(item.entity.id),
        ),
    )
    position = {str(item.entity.id): index for index, item in enumerate(ordered)}
    passages: list[dict[str, object]] = []
    passages_of: dict[str, list[int]] = {}
    for chunk in snapshot.passages:
        wanted = [
            str(e)
            for e in chunk.entity_ids
            if str(e) in live and len(passages_of.get(str(e), ())) < PASSAGES_PER_ENTITY
        ]
        if not wanted:
            continue
        passages.append(
            {
                "source_id": str(chunk.source_id),
                "chunk_index": chunk.chunk_index,
                "text": chunk.text,
            }
        )
        for entity_id in wanted:
            passages_of.setdefault(entity_id, []).append(len(passages) - 1)
    entities = [
        {
            "id": str(item.entity.id),
            "type": item.entity.type,
            "name": item.entity.name,
            "attributes": item.entity.attributes,
            "aliases": sorted(
                {name for name in item.names if name != item.entity.name}
                | {a.name for a in item.aliases if a.name and a.name != item.entity.name}
            ),
            "sources": sorted(str(s) for s in item.sources),
            "degree": degree[str(item.entity.id)],
            "passages": passages_of.get(str(item.entity.id), []),
        }
        for item in ordered
    ]
    relationship_types = sorted({r.type for r in kept})
    type_index = {name: index for index, name in enumerate(relationship_types)}
    relationships = [
        [position[str(r.subject_id)], position[str(r.object_id)], type_index[r.type]] for r in kept
    ]
    return {
        "tenant": snapshot.tenant_id,
        "entities": entities,
        "relationships": relationships,
        "relationship_types": relationship_types,
        "passages": passages,
    }


def _script_safe(text: str) -> str:
    """JSON that cannot close its ``<script>`` element or start a comment inside it."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _static(name: str) -> str:
    return resources.files("redstring.export").joinpath("static", name).read_text("utf-8")


def _page(title: str, data: str, *, mode: str, csp: str, top: int) -> str:
    template = _static("graph_view.html")
    values = {
        "TITLE": title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"),
        "GRAPH_DATA": data,
        "LIBRARY": _static("cytoscape/cytoscape.min.js"),
        "VIEW_SCRIPT": _static("graph_view.js"),
        "MODE": mode,
        "TOP": str(top),
        "CSP": csp,
    }
    # One pass over the template only: the library and the data are full of braces, and a
    # name in the data that looks like a placeholder must stay a name.
    return _PLACEHOLDER.sub(lambda match: values[match[1]], template)


def to_html(snapshot: GraphSnapshot, *, top: int = TOP_ENTITIES) -> str:
    """One offline page: the graph drawn by the vendored cytoscape.js, opening on the
    ``top`` most connected entities; no network access at all."""
    data = _script_safe(json.dumps(view_data(snapshot), ensure_ascii=False, sort_keys=True))
    return _page(snapshot.tenant_id, data, mode="file", csp=_FILE_CSP, top=top)


def live_page(*, top: int = TOP_ENTITIES) -> str:
    """The same view for a server: it asks for an API key, loads ``/v1/view`` with it, and
    adds a box that runs ``/v1/query`` and ``/v1/ask`` (requests to its own origin only)."""
    return _page("live", "null", mode="live", csp=_LIVE_CSP, top=top)
