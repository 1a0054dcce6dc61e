"""A tenant's graph snapshot as JSON, GraphML or one self-contained, offline HTML page.

All three are pure functions of a :class:`~redstring.ingest.reports.GraphSnapshot`, so the
same snapshot always gives byte-identical output. The HTML page inlines the vendored
vis-network (``static/vis-network``, Apache-2.0 or MIT) and the graph's data; its content
security policy forbids every network request, so it works from a file with no connection.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any
from xml.etree import ElementTree as ET

from redstring.ingest.reports import GraphSnapshot

__all__ = ["FORMATS", "to_graphml", "to_html", "to_json", "view_data"]

FORMATS = ("json", "graphml", "html")
PASSAGES_PER_ENTITY = 20

_GRAPHML = "http://graphml.graphdrawing.org/xmlns"
_PLACEHOLDER = re.compile(r"__(TITLE|GRAPH_DATA|VIS_NETWORK)__")


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
    """What the HTML page draws: entities with aliases, sources and their passages (at most
    ``PASSAGES_PER_ENTITY`` each, in snapshot order), and relationships between them."""
    passages_of: dict[str, list[dict[str, object]]] = {}
    for chunk in snapshot.passages:
        for entity_id in chunk.entity_ids:
            bucket = passages_of.setdefault(str(entity_id), [])
            if len(bucket) < PASSAGES_PER_ENTITY:
                bucket.append(
                    {
                        "source_id": str(chunk.source_id),
                        "chunk_index": chunk.chunk_index,
                        "text": chunk.text,
                    }
                )
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
            "passages": passages_of.get(str(item.entity.id), []),
        }
        for item in snapshot.entities
    ]
    known = {str(item.entity.id) for item in snapshot.entities}
    relationships = [
        {
            "id": str(r.id),
            "type": r.type,
            "subject_id": str(r.subject_id),
            "object_id": str(r.object_id),
        }
        for r in snapshot.relationships
        if str(r.subject_id) in known and str(r.object_id) in known
    ]
    return {"tenant": snapshot.tenant_id, "entities": entities, "relationships": relationships}


def _script_safe(text: str) -> str:
    """JSON that cannot close its ``<script>`` element or start a comment inside it."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _static(name: str) -> str:
    return resources.files("redstring.export").joinpath("static", name).read_text("utf-8")


def to_html(snapshot: GraphSnapshot) -> str:
    """One page with the graph drawn by the vendored vis-network; no network access at all."""
    template = _static("graph_view.html")
    library = _static("vis-network/vis-network.min.js")
    # The source map is not shipped; the comment would only make devtools look for it.
    library = "\n".join(
        line for line in library.splitlines() if not line.startswith("//# sourceMappingURL=")
    )
    data = _script_safe(json.dumps(view_data(snapshot), ensure_ascii=False, sort_keys=True))
    title = snapshot.tenant_id.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    values = {"TITLE": title, "GRAPH_DATA": data, "VIS_NETWORK": library}
    # One pass over the template only: the library and the data are full of braces, and a
    # name in the data that looks like a placeholder must stay a name.
    return _PLACEHOLDER.sub(lambda match: values[match[1]], template)
