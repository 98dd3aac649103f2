"""The annotate pages run as a user runs them: the real command in a child process
(uvicorn on 127.0.0.1), driven in Debian's Chromium through Playwright's
``executable_path`` (never ``playwright install``: nothing is downloaded)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import ragtriage

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
SRC = Path(ragtriage.__file__).resolve().parents[1]
# the docs' screenshots are taken on every run, and written over docs/images only when
# asked (RAGTRIAGE_WRITE_SCREENSHOTS=1): a test run must leave the checkout as it was
IMAGES = (
    Path(__file__).resolve().parents[2] / "docs" / "images"
    if os.environ.get("RAGTRIAGE_WRITE_SCREENSHOTS") == "1"
    else Path(tempfile.mkdtemp(prefix="ragtriage-screens-"))
)
HOSTILE = (
    "<img src=x onerror=\"window.__pwned=1;document.title='pwned'\">"
    "<script>window.__pwned=2;document.title='pwned'</script> **bold** [x](javascript:alert(1))"
)


@dataclass
class Server:
    proc: subprocess.Popen
    url: str
    token: str
    lines: list[str]

    @property
    def base(self) -> str:
        return self.url.split("/?", 1)[0]

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)


def start_server(args: list[str], timeout: float = 120.0) -> Server:
    """Run ``ragtriage annotate ARGS --no-browser`` and wait for the URL it prints."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "400"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragtriage.cli.main", "annotate", *args, "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        found = re.search(r"open (http://\S+)", line)
        if found:
            url = found.group(1)
            return Server(proc, url, url.split("token=", 1)[1], lines)
    proc.kill()
    raise AssertionError("the server printed no URL:\n" + "\n".join(lines))


# module scope, not session: Playwright's sync API keeps an asyncio loop running in this
# thread while it is open, and every later test that calls asyncio.run (each audit) then
# failed with "asyncio.run() cannot be called from a running event loop"
@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: apt-get install -y chromium (the pages are tested in a "
            "real browser; .ci/run installs it)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        chromium = play.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page_of(browser):
    """``page_of(url, width)``: a fresh page (own cookies) that failed on any script error."""
    contexts = []

    def open_page(url: str, width: int = 1100, height: int = 900):
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.goto(url)
        page.wait_for_selector("body[data-ready=true]", timeout=20_000)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """Servers a test started; each stopped at the end whatever happened."""
    started: list[Server] = []
    yield started
    for server in started:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait(timeout=30)


def wait_saved(page) -> None:
    page.wait_for_selector("#status[data-state=saved]", timeout=10_000)


def read_jsonl(path: Path) -> list[dict]:
    # "\n" only: str.splitlines would also split inside a text holding U+2028
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
