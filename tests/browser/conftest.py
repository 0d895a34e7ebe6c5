"""The browser table's tests: Debian's Chromium, driven by Playwright, against a real `poison serve`.

Chromium comes from Debian (`apt-get install chromium`, run here as root when it is missing);
Playwright's own browser download is never used. When Chromium cannot be had, the run stops
with one line saying why: these tests never skip. Every page a test opens is watched: any
console error, page error, failed request or answer of 400 or more fails the test, unless
the test provoked it on purpose (`Watched.expect`), and each page leaves a screenshot in
tests/browser/screenshots/<test name>.png (the second page of a test: <test name>-2.png).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Page,
    Playwright,
    Request,
    Response,
    ViewportSize,
    sync_playwright,
)

from tests.browser.chromium import CHROMIUM, LAUNCH_ARGS, install_chromium
from tests.service.served import serving

SCREENSHOTS = Path(__file__).parent / "screenshots"
DESKTOP = ViewportSize(width=1280, height=900)
PHONE = ViewportSize(width=390, height=844)
#: The table's pace setting (service/static/js/pace.js), kept in the browser's localStorage.
PACE_KEY = "poison-table.pace"


@pytest.fixture(scope="package")
def chromium() -> Iterator[Browser]:
    install_chromium()
    playwright: Playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
    except Exception as error:  # a browser that will not start stops the run, in one line
        playwright.stop()
        pytest.exit(f"tests/browser: Chromium did not start: {str(error).splitlines()[0]}", 1)
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real `poison serve` for the browser tests (each test makes its own games), stopped after them."""
    with serving(tmp_path_factory.mktemp("table-store")) as base:
        yield base


@dataclass
class Expected:
    """A failing answer a test provokes on purpose: its status and a piece of its URL."""

    status: int
    url_part: str
    seen: int = 0


@dataclass
class Watched:
    """A page, and everything that went wrong on it."""

    page: Page
    problems: list[str] = field(default_factory=list)
    expected: list[Expected] = field(default_factory=list)
    #: Pieces of URLs whose failed requests are provoked on purpose (a dropped network).
    may_fail: list[str] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    def expect(self, status: int, url_part: str) -> Expected:
        """Allow (and count) answers of `status` to URLs containing `url_part`."""
        expected = Expected(status, url_part)
        self.expected.append(expected)
        return expected

    def _expected(self, status: int, url: str) -> Expected | None:
        return next((e for e in self.expected if e.status == status and e.url_part in url), None)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        url = message.location.get("url", "") if message.location else ""
        failed_load = re.search(r"status of (\d{3})", message.text)
        if failed_load and self._expected(int(failed_load.group(1)), url):
            return  # the browser's own note of an answer provoked on purpose
        if any(part in url for part in self.may_fail):
            return
        self.problems.append(f"console error: {message.text} ({url})")

    def on_response(self, response: Response) -> None:
        if response.status < 400:
            return
        expected = self._expected(response.status, response.url)
        if expected:
            expected.seen += 1
        else:
            self.problems.append(f"answer {response.status}: {response.request.method} {response.url}")

    def on_failed(self, request: Request) -> None:
        failure = request.failure or ""
        if any(part in request.url for part in self.may_fail):
            return
        # Closing a live stream (the game ended, the page moved on) cancels its request on purpose.
        if failure == "net::ERR_ABORTED" and "/events/stream" in request.url:
            return
        self.problems.append(f"request failed: {request.method} {request.url}: {failure}")


@pytest.fixture
def open_page(chromium: Browser, served: str, request: pytest.FixtureRequest) -> Iterator[Callable[..., Watched]]:
    """`open_page(fragment, phone=False, pace="instant", base=served, script="", locale=None,
    javascript=True)`: a watched page of the table, in a browser context of its own (its own
    storage: a second person), with `script` run in it before the page's own; `locale` is the
    browser's ("fa-IR": the Accept-Language it sends, and its navigator.languages)."""
    pages: list[Watched] = []
    request.node.watched_pages = pages

    def open_(
        fragment: str = "",
        *,
        phone: bool = False,
        pace: str = "instant",
        base: str | None = None,
        script: str = "",
        locale: str | None = None,
        javascript: bool = True,
    ) -> Watched:
        context = chromium.new_context(
            viewport=PHONE if phone else DESKTOP,
            is_mobile=phone,
            has_touch=phone,
            device_scale_factor=2 if phone else 1,
            accept_downloads=True,
            # No animations: Playwright waits for an element to stand still before clicking it.
            reduced_motion="reduce",
            locale=locale,
            java_script_enabled=javascript,
        )
        context.add_init_script(f"localStorage.setItem({PACE_KEY!r}, {pace!r})\n{script}")
        page = context.new_page()
        page.set_default_timeout(15_000)
        watched = Watched(page)
        page.on("console", watched.on_console)
        page.on("pageerror", lambda error: watched.problems.append(f"page error: {error}"))
        page.on("response", watched.on_response)
        page.on("requestfailed", watched.on_failed)
        page.on("request", lambda sent: watched.requests.append(sent))
        pages.append(watched)
        page.goto(f"{base or served}/{fragment}")
        return watched

    yield open_
    for watched in pages:
        watched.page.context.close()


def screenshot_name(item: pytest.Item, index: int) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", item.name).strip("-")
    return f"{name}.png" if index == 0 else f"{name}-{index + 1}.png"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After each test: a screenshot of each of its pages, then a failure for anything that
    went wrong on them (so a test fails on a console error even when its checks passed)."""
    try:
        result = yield
    finally:
        pages: list[Watched] = getattr(item, "watched_pages", [])
        SCREENSHOTS.mkdir(exist_ok=True)
        for index, watched in enumerate(pages):
            if not watched.page.is_closed():
                watched.page.screenshot(path=SCREENSHOTS / screenshot_name(item, index), full_page=True)
    problems = [problem for watched in pages for problem in watched.problems]
    if problems:
        raise AssertionError("the page went wrong:\n" + "\n".join(problems[:20]))
    return result
