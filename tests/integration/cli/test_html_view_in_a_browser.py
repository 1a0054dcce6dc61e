"""The exported HTML page in a real headless Chromium: it loads offline with no console
errors, draws every entity, and its search finds a node and shows its passages."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redstring import KnowledgeGraph
from redstring.embeddings.adapters.fake import FakeEmbeddingProvider
from redstring.export import to_html
from redstring.ingest.reports import GraphSnapshot
from tests.backends import backend_unavailable
from tests.unit.cli.names_extractor import CapitalisedNames

pytestmark = pytest.mark.integration

INSTALL = "apt-get install -y chromium chromium-driver (./scripts/test does it when run as root)"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
)
DOCUMENTS = {
    "a.md": "Ada Lovelace works for Analytical Society. Charles Babbage met Ada Lovelace.",
    "b.md": "Grace Hopper works for Remington Rand. The </script><b>Tag Soup</b> Company.",
}


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
    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver_path is None:
        backend_unavailable("Chromium", "chromium or chromedriver is not on PATH", INSTALL)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GraphSnapshot]:
    """The page for a small graph written by the pipeline, and its snapshot."""
    snapshot = asyncio.run(_snapshot())
    path = tmp_path_factory.mktemp("view") / "graph.html"
    path.write_text(to_html(snapshot), "utf-8")
    return path, snapshot


def test_the_page_loads_offline_without_console_errors_and_draws_every_entity(
    browser: Any, page: tuple[Path, GraphSnapshot]
) -> None:
    """Node count as the snapshot's, a drawn canvas, no errors, no resource fetched."""
    path, snapshot = page
    browser.get(path.as_uri())
    assert browser.find_element("id", "node-count").text == str(len(snapshot.entities))
    assert browser.find_element("id", "edge-count").text == str(len(snapshot.relationships))
    assert browser.execute_script(
        "return window.redstringView.network.body.data.nodes.length"
    ) == len(snapshot.entities)
    assert browser.find_elements("css selector", "#graph canvas")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []


def test_search_finds_a_node_and_shows_its_aliases_sources_and_passages(
    browser: Any, page: tuple[Path, GraphSnapshot]
) -> None:
    """Typing part of a name lists it; Enter selects it and shows its passages."""
    from selenium.webdriver.common.keys import Keys

    path, _ = page
    browser.get(path.as_uri())
    search = browser.find_element("id", "search")
    search.send_keys("hopp")
    results = [item.text for item in browser.find_elements("css selector", "#results li")]
    assert results == ["Grace Hopper (Person)"]
    search.send_keys(Keys.ENTER)
    assert browser.find_element("id", "details-name").text == "Grace Hopper"
    details = browser.find_element("id", "details").text
    assert "b.md" in details
    assert "Grace Hopper works for Remington Rand." in details
    selected = browser.execute_script("return window.redstringView.network.getSelectedNodes()")
    assert len(selected) == 1


def test_markup_in_names_and_passages_stays_text(
    browser: Any, page: tuple[Path, GraphSnapshot]
) -> None:
    """A passage holding </script> neither breaks the page nor becomes markup."""
    path, _ = page
    browser.get(path.as_uri())
    search = browser.find_element("id", "search")
    search.send_keys("Remington")
    browser.find_element("css selector", "#results li").click()
    details = browser.find_element("id", "details").text
    assert "</script><b>Tag Soup</b>" in details
    assert browser.find_elements("css selector", "#details b") == []
