"""The exported HTML page in a real headless Chromium: it loads offline with no console
errors; at real size it opens on the most connected entities, grows by neighbourhood on
click, filters by type and source and searches aliases; its screenshots show the nodes in
their type's colour with their labels drawn; an entity's passages carry their citations."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.export import to_html, view_data
from redstring.ingest.reports import GraphSnapshot
from tests.backends import backend_unavailable
from tests.browser import INSTALL, Image, chromium, decode_png, missing, wait_until
from tests.unit.cli.names_extractor import CapitalisedNames
from tests.view_world import synthetic_snapshot

pytestmark = pytest.mark.integration

DOCUMENTS = {
    "a.md": "Ada Lovelace works for Analytical Society. Charles Babbage met Ada Lovelace.",
    "b.md": "Grace Hopper works for Remington Rand. The </script><b>Tag Soup</b> Company.",
}
PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4"]


async def _snapshot() -> GraphSnapshot:
    async with KnowledgeGraph.in_memory(
        embeddings=FakeEmbeddingProvider(dimension=16), extractor=CapitalisedNames()
    ) as graph:
        for name, text in DOCUMENTS.items():
            await graph.ingest("view", name, text)
        return await graph.export("view")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium driven through its matching chromium-driver."""
    why = missing()
    if why is not None:
        backend_unavailable("Chromium", why, INSTALL)
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GraphSnapshot]:
    """The page for a small graph written by the pipeline, and its snapshot."""
    snapshot = asyncio.run(_snapshot())
    path = tmp_path_factory.mktemp("view") / "graph.html"
    path.write_text(to_html(snapshot), "utf-8")
    return path, snapshot


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A tenant of 600 entities and 2,400 relationships, opening on its top 40."""
    snapshot = synthetic_snapshot(600, 2400)
    path = tmp_path_factory.mktemp("big") / "graph.html"
    path.write_text(to_html(snapshot, top=40), "utf-8")
    return path, view_data(snapshot)


def _open(browser: Any, path: Path) -> None:
    browser.get(path.as_uri())
    wait_until(browser, "window.redstringView && window.redstringView.ready")


def test_the_page_loads_offline_without_console_errors_and_draws_every_entity(
    browser: Any, page: tuple[Path, GraphSnapshot]
) -> None:
    """A small tenant is drawn whole; no errors, no resource fetched."""
    path, snapshot = page
    _open(browser, path)
    assert browser.find_element("id", "node-count").text == str(len(snapshot.entities))
    assert browser.find_element("id", "shown-count").text == str(len(snapshot.entities))
    assert browser.find_element("id", "edge-count").text == str(len(snapshot.relationships))
    assert browser.execute_script("return window.redstringView.cy.nodes().length") == len(
        snapshot.entities
    )
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_search_finds_a_node_and_shows_its_passages_with_citations(
    browser: Any, page: tuple[Path, GraphSnapshot]
) -> None:
    """Typing part of a name lists it; Enter selects it and shows its cited passages."""
    from selenium.webdriver.common.keys import Keys

    path, _ = page
    _open(browser, path)
    search = browser.find_element("id", "search")
    search.send_keys("hopp")
    results = [item.text for item in browser.find_elements("css selector", "#results li")]
    assert results == ["Grace Hopper (Person)"]
    search.send_keys(Keys.ENTER)
    assert browser.find_element("id", "details-name").text == "Grace Hopper"
    citations = [c.text for c in browser.find_elements("css selector", "#details .cite")]
    assert citations == ["b.md #0"]
    assert "Grace Hopper works for Remington Rand." in browser.find_element("id", "details").text
    assert "WORKS_FOR → Remington Rand" in browser.find_element("id", "relations").text
    selected = browser.execute_script(
        "return window.redstringView.cy.nodes(':selected').map(n => n.data('label'))"
    )
    assert selected == ["Grace Hopper"]


def test_markup_in_names_and_passages_stays_text(
    browser: Any, page: tuple[Path, GraphSnapshot]
) -> None:
    """A passage holding </script> neither breaks the page nor becomes markup."""
    path, _ = page
    _open(browser, path)
    browser.find_element("id", "search").send_keys("Remington")
    browser.find_element("css selector", "#results li").click()
    details = browser.find_element("id", "details").text
    assert "</script><b>Tag Soup</b>" in details
    assert browser.find_elements("css selector", "#details b") == []


def test_a_large_tenant_opens_on_its_most_connected_entities(
    browser: Any, big: tuple[Path, dict[str, Any]]
) -> None:
    """40 of 600 drawn, exactly the 40 with the most relationships; the top can be raised
    (before: every entity at once, an unreadable cloud)."""
    path, data = big
    _open(browser, path)
    shown = set(browser.execute_script("return window.redstringView.shown()"))
    assert shown == {e["id"] for e in data["entities"][:40]}
    assert browser.find_element("id", "shown-count").text == "40"
    assert browser.find_element("id", "node-count").text == "600"
    degrees = [e["degree"] for e in data["entities"]]
    assert min(degrees[:40]) >= max(degrees[40:])
    browser.execute_script("window.redstringView.setTop(120)")
    assert browser.find_element("id", "shown-count").text == "120"


def test_a_click_opens_the_neighbourhood_and_filters_narrow_the_drawing(
    browser: Any, big: tuple[Path, dict[str, Any]]
) -> None:
    """Tapping an entity adds every neighbour; unticking a type or choosing a source keeps
    only what fits; an alias finds its entity."""
    path, data = big
    _open(browser, path)
    leaf = data["entities"][300]
    browser.execute_script("window.redstringView.select(arguments[0])", leaf["id"])
    browser.execute_script(
        "var cy = window.redstringView.cy; cy.getElementById(arguments[0]).emit('tap')", leaf["id"]
    )
    index = 300
    neighbours = {
        data["entities"][o if s == index else s]["id"]
        for s, o, _ in data["relationships"]
        if index in (s, o)
    }
    assert neighbours
    shown = set(browser.execute_script("return window.redstringView.shown()"))
    assert neighbours | {leaf["id"]} <= shown

    browser.find_element("css selector", "#legend input[data-type='Person']").click()
    types = set(browser.execute_script(
        "var d = window.redstringView.data, byId = {};"
        "d.entities.forEach(e => byId[e.id] = e.type);"
        "return window.redstringView.shown().map(id => byId[id])"
    ))  # fmt: skip
    assert "Person" not in types
    assert types

    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "source")).select_by_value("docs/file-003.md")
    in_source = {e["id"] for e in data["entities"] if "docs/file-003.md" in e["sources"]}
    shown = set(browser.execute_script("return window.redstringView.shown()"))
    assert shown
    assert shown <= in_source

    browser.find_element("id", "search").send_keys("N412 alias")
    assert [i.text for i in browser.find_elements("css selector", "#results li")] == [
        "Name412 Surname24 (Location)"
    ]


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _near(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 40) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def _count(image: Image, box: tuple[int, int, int, int], test: Any) -> int:
    left, top, right, bottom = box
    return sum(
        1
        for y in range(max(0, top), min(image.height, bottom))
        for x in range(max(0, left), min(image.width, right))
        if test(image.pixel(x, y))
    )


def test_the_screenshot_shows_each_node_in_its_colour_with_its_label(
    browser: Any, big: tuple[Path, dict[str, Any]]
) -> None:
    """Pixel checks on a real screenshot: at the centre of each of the ten most connected
    nodes the type's colour, below it the dark pixels of its label; an empty corner is
    white (so the checks can fail)."""
    path, data = big
    _open(browser, path)
    placed = browser.execute_script(
        "var box = document.getElementById('graph').getBoundingClientRect();"
        "return window.redstringView.cy.nodes().map(n => {"
        " var p = n.renderedPosition(); return [n.id(), box.left + p.x, box.top + p.y,"
        " n.renderedWidth(), n.data('colour')]; })"
    )
    image = decode_png(browser.get_screenshot_as_png())
    where = {item[0]: item[1:] for item in placed}
    coloured = labelled = 0
    for entity in data["entities"][:10]:
        x, y, width, colour = where[entity["id"]]
        cx, cy, half = round(x), round(y), max(2, round(width / 4))
        want = _hex(colour)
        centre = (cx - half, cy - half, cx + half, cy + half)
        if _count(image, centre, lambda p, want=want: _near(p, want)) > half * half:
            coloured += 1
        below = cy + round(width / 2) + 3  # past the node's dark border
        label = (cx - 40, below, cx + 40, below + 14)
        if _count(image, label, lambda p: max(p) < 90) >= 25:
            labelled += 1
    assert coloured >= 8, coloured
    assert labelled >= 8, labelled
    assert (
        _count(image, (1, image.height - 12, 11, image.height - 2), lambda p: p != (255,) * 3) == 0
    )
