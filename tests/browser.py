"""Debian's chromium, headless, through its matching chromium-driver; a PNG decoder for
checking screenshots pixel by pixel (no imaging library needed)."""

from __future__ import annotations

import shutil
import struct
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

INSTALL = "apt-get install -y chromium chromium-driver (./scripts/test does it when run as root)"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--window-size=1280,900",
    "--force-device-scale-factor=1",
)


def missing() -> str | None:
    """Why the browser cannot run here, or None."""
    if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
        return "chromium or chromedriver is not on PATH"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (selenium WebDriver), quit on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    try:
        yield driver
    finally:
        driver.quit()


def wait_until(driver: Any, script: str, *, seconds: float = 60.0) -> Any:
    """Poll ``return <script>`` until it is truthy; its value (fails after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        value = driver.execute_script(f"return {script}")
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{script} stayed falsy for {seconds} s")
        time.sleep(0.05)


@dataclass(frozen=True)
class Image:
    """An RGB(A) image: ``pixel(x, y)`` is an ``(r, g, b)`` tuple."""

    width: int
    height: int
    channels: int
    rows: list[bytes]

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        row = self.rows[y]
        start = x * self.channels
        return row[start], row[start + 1], row[start + 2]


def decode_png(data: bytes) -> Image:
    """An 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8, depth
    assert colour in (2, 6), colour
    assert interlace == 0, interlace
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        offset = y * (stride + 1)
        kind = raw[offset]
        line = bytearray(raw[offset + 1 : offset + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                pa, pb, pc = abs(guess - left), abs(guess - up), abs(guess - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 0xFF
        rows.append(bytes(line))
        previous = line
    return Image(width, height, channels, rows)
