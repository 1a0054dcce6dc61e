"""The live page of `redstring serve` in a real headless Chromium: `/` asks for a key, draws
that tenant's graph from `/v1/view`, and its question box answers with cited passages; a
wrong key draws nothing and says why. The server runs in its own process on the memory
backend, with the key it prints at start."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backends import backend_unavailable
from tests.browser import INSTALL, chromium, decode_png, missing, wait_until
from tests.cli_runner import EXTRACTOR, clean_environment

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
DOCUMENTS = {
    "harbour.md": "Ines Carvalho works for Harbour Trust. Tomas Veil works for Harbour Trust.",
    "yard.md": "Grace Hopper works for Remington Rand. Ada Lovelace works for Analytical Society.",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`redstring serve --backend memory` on a free port: its base URL and API key, with
    the two documents ingested through the API."""
    import requests

    if missing() is not None:
        backend_unavailable("Chromium", missing() or "", INSTALL)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path_factory.mktemp("live") / "config.toml"
    config.write_text("")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "redstring", "serve", "--port", str(port), "--backend",
            "memory", "--tenant", "live", "--extractor", EXTRACTOR, "--config", str(config),
        ],
        env=clean_environment({"PYTHONPATH": str(ROOT)}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        lines: list[str] = []
        assert process.stderr is not None
        stream = process.stderr
        threading.Thread(target=lambda: lines.extend(stream), daemon=True).start()
        key, deadline = None, time.monotonic() + 120
        while True:
            assert process.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            found = re.search(r"API key for tenant live \(this run only\): (\S+)", "".join(lines))
            key = found[1] if found else None
            try:
                if key and requests.get(f"{base}/v1/health", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(0.3)
        for name, text in DOCUMENTS.items():
            done = requests.post(
                f"{base}/v1/documents",
                json={"source": name, "text": text},
                headers={"Authorization": f"Bearer {key}"},
                timeout=60,
            )
            assert done.status_code == 200, done.text
        yield base, key
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def _connect(browser: Any, base: str, key: str) -> None:
    browser.get(base + "/")
    browser.execute_script("sessionStorage.clear()")
    browser.get(base + "/")
    field = browser.find_element("id", "key")
    field.clear()
    field.send_keys(key)
    browser.find_element("id", "connect").click()


def test_the_page_draws_the_keys_tenant_and_answers_with_cited_passages(
    browser: Any, server: tuple[str, str]
) -> None:
    """The graph of the key's tenant is drawn (checked on the screenshot); Ask shows the
    answer and the passages it cites, with their sources; Search lists passages."""
    base, key = server
    _connect(browser, base, key)
    wait_until(browser, "window.redstringView.ready")
    names = set(browser.execute_script(
        "return window.redstringView.cy.nodes().map(n => n.data('label'))"
    ))  # fmt: skip
    assert {"Harbour Trust", "Ines Carvalho", "Grace Hopper"} <= names
    assert browser.find_element("id", "tenant").text == "live"

    hub = browser.execute_script(
        "var box = document.getElementById('graph').getBoundingClientRect();"
        "var n = window.redstringView.cy.nodes().filter(n => n.data('label') === 'Harbour Trust');"
        "var p = n.renderedPosition(); return [box.left + p.x, box.top + p.y, n.data('colour')]"
    )
    image = decode_png(browser.get_screenshot_as_png())
    x, y, colour = round(hub[0]), round(hub[1]), hub[2]
    want = (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
    assert all(abs(a - b) <= 40 for a, b in zip(image.pixel(x, y), want, strict=True))

    question = browser.find_element("id", "question")
    question.send_keys("Who works for Harbour Trust?")
    browser.find_element("id", "run-ask").click()
    wait_until(browser, "document.getElementById('answer-text')")
    answer = browser.find_element("id", "answer").text
    assert "Harbour Trust" in browser.find_element("id", "answer-text").text
    citations = [c.text for c in browser.find_elements("css selector", "#answer .cite")]
    assert citations
    assert any("harbour.md #0" in c for c in citations)
    assert "Ines Carvalho works for Harbour Trust." in answer

    browser.find_element("id", "run-query").click()
    wait_until(browser, "document.querySelectorAll('#answer .cite').length > 0 && "
               "document.getElementById('answer-text') === null")  # fmt: skip
    assert "harbour.md" in browser.find_element("id", "answer").text
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_a_wrong_key_draws_nothing_and_says_why(browser: Any, server: tuple[str, str]) -> None:
    """The API refuses the key; the page shows its message and no graph."""
    base, _ = server
    _connect(browser, base, "rs_not-a-real-key")
    message = wait_until(browser, "window.redstringView.error")
    assert message
    assert browser.find_element("css selector", "#details .error").text == message
    assert browser.execute_script("return window.redstringView.ready") is False
