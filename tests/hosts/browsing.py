"""A browser through the lab's HAProxy: which host answered each request, and the lab's seals.

Every response through HAProxy names its host in ``X-Lab-Host``; ``Traffic`` records it for the
page's responses (playwright's ``page.on("response")``: the page, its scripts, the CSV files)
and for every websocket's upgrade response, which playwright does not show and the browser's
DevTools protocol does (``Network.webSocketHandshakeResponseReceived``).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass, field

from playwright.sync_api import Browser, Page, Response
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from exercises import seal
from tests.e2e.harness import Session, keep_work, kept_work, new_session, settle
from tests.e2e.tabs import spoil
from tests.hosts.harness import Lab


@dataclass
class Traffic:
    """The host of every response a page got from the lab, in order."""

    base: str
    responses: list[tuple[str, int, str | None]] = field(default_factory=list)  # path, status
    sockets: list[str | None] = field(default_factory=list)  # one per websocket opened

    def attach(self, page: Page) -> None:
        page.on("response", self._on_response)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.webSocketHandshakeResponseReceived", self._on_socket)

    def _on_response(self, response: Response) -> None:
        if response.url.startswith(self.base + "/"):
            path = response.url[len(self.base) :]
            self.responses.append((path, response.status, response.headers.get("x-lab-host")))

    def _on_socket(self, event: dict) -> None:
        headers = {k.lower(): v for k, v in event["response"]["headers"].items()}
        self.sockets.append(headers.get("x-lab-host"))

    def hosts(self) -> set[str | None]:
        """Every host that answered something, websockets included."""
        return {host for _, _, host in self.responses} | set(self.sockets)

    def media(self) -> list[tuple[str, int, str | None]]:
        """The downloads (/media/...): path, status, host."""
        return [r for r in self.responses if r[0].startswith("/media/")]

    def strays(self) -> list[str]:
        """Each request answered by another host than the websocket open at the time, and each
        download that was not found: what session affinity prevents. Empty when every request
        of the page reached its session's host."""
        if not self.sockets:
            return ["no websocket opened"]
        home = self.sockets[0]
        found = [f"{p}: {status} from {host}" for p, status, host in self.media() if status != 200]
        found += [
            f"{p} from {host}, the websocket on {home}"
            for p, _, host in self.responses
            if host != home
        ]
        found += [
            f"websocket {i} on {host}, the first on {home}"
            for i, host in enumerate(self.sockets[1:], start=2)
            if host != home
        ]
        return found

    def wait_socket(self, page: Page, count: int, timeout: float = 30.0) -> str | None:
        """Wait until ``count`` websockets have opened; the host of the last one."""
        deadline = time.monotonic() + timeout
        while len(self.sockets) < count and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        if len(self.sockets) < count:
            raise AssertionError(f"no websocket number {count} in {timeout} s: {self.sockets}")
        return self.sockets[count - 1]


@dataclass
class Visit:
    """One browser context through the lab, and what it got from which host."""

    session: Session
    traffic: Traffic

    @property
    def page(self) -> Page:
        return self.session.page

    def go_to_host(self, server: str) -> None:
        """The next requests go to ``server`` (hA, ...): the SERVERID cookie says so."""
        context = self.page.context
        context.clear_cookies()
        context.add_cookies([{"name": "SERVERID", "value": server, "url": self.session.base}])

    def kept(self) -> dict:
        """The browser's copy of the learner's work."""
        return kept_work(self.page) or {}

    def wait_kept(self, cell_id: str, entry: dict, timeout: float = 10.0) -> dict:
        """Wait until the browser's copy holds ``entry`` for ``cell_id`` (the store writes it
        after the run that changed it); the whole copy, as it is then."""
        deadline = time.monotonic() + timeout
        kept = self.kept()
        while kept.get(cell_id) != entry and time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            kept = self.kept()
        return kept

    def keep(self, entries: dict) -> None:
        keep_work(self.page, entries)

    def close(self) -> None:
        self.session.close()


def visit(browser: Browser, lab: Lab, server: str | None = None) -> Visit:
    """A new browser context on the lab, sent to ``server`` (hA, ...) if given, else where
    HAProxy's rotation puts it."""
    session = new_session(browser, lab.url)
    # not kept for the next test (tests.e2e.tabs): a context keeps its connections open, and one
    # kept to HAProxy would carry this visit's host, and a sticky HAProxy's cookie, into it
    spoil(session.page)
    traffic = Traffic(lab.url)
    traffic.attach(session.page)
    current = Visit(session, traffic)
    if server is not None:
        current.go_to_host(server)
    return current


def seal_key(secret: str) -> bytes:
    """The key a host derives from its cookie secret for the seals (ui.turn.progress._key)."""
    return hmac.new(secret.encode(), b"attention-lab exercise seals", hashlib.sha256).digest()


def sealed(secret: str, cell_id: str, code: str) -> str:
    """The seal a host with ``secret`` gives a pass of ``cell_id`` with ``code``."""
    return seal.seal(seal_key(secret), cell_id, code)


def download(page: Page, name: str, tries: int = 3) -> Response:
    """Click a table's CSV button until the page fetches its file; the file's response."""
    button = page.get_by_role("button", name=f"{name} · CSV")
    for attempt in range(1, tries + 1):
        try:
            with page.expect_response(lambda r: "/media/" in r.url, timeout=15_000) as answer:
                button.click()
            return answer.value
        except PlaywrightTimeout:
            if attempt == tries:
                raise
            settle(page)
    raise AssertionError("unreachable")
