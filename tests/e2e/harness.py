"""Helpers of the browser tests: start and stop a server, open pages, read what they show."""

from __future__ import annotations

import base64
import contextlib
import itertools
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from playwright.sync_api import Browser, ConsoleMessage, Frame, Locator, Page, WebSocketRoute
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

import llm
from bench.common import worker_ports
from tests.e2e.tabs import close_tab, new_tab
from ui.frame.components.page_lang import page_title
from ui.frame.follow import OUTLINE
from ui.frame.navigation import slug
from ui.frame.page import PAGES
from ui.text.common import TEXT as FRAME_TEXT
from ui.turn.progress import STORE, STORE_KEY

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    # the tabs of one context share one renderer process, and the code it compiled (tests.e2e.tabs)
    "--process-per-site",
]
PORTS = range(8720, 8800)
# the user agents of the phones the tests are: an Android one and an iPhone (Safari)
PHONE_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0 Mobile Safari/537.36"
)
IPHONE_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)
SIDEBAR = "[data-testid='stSidebar']"
# the sidebar's page links (ui.frame.components.page_list): data-page is the page's URL path
# without the slash ('' for home)
PAGE_LINK = f"{SIDEBAR} .al-pages a[data-page]"
STARTUP_SECONDS = 90  # a cold start imports numpy, pandas and plotly on a busy machine
WAIT_MS = 30_000
REPORT_MS = 10_000  # the store's report, on a page that has drawn: a second at most, unless busy
DEFAULT_TEXT = "the cat sat on mat"
# for each formula on the page, whether it fits its box (the box does not scroll sideways)
FORMULAS_FIT_JS = """() => [...document.querySelectorAll('.katex-display')].map(
  (el) => el.scrollWidth <= el.clientWidth)"""


# --- server --------------------------------------------------------------------------------


def free_port() -> int:
    """The first port of this process's share of 8720-8799 that nothing listens on."""
    share = worker_ports(PORTS)
    for port in share:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {share.start}-{share.stop - 1}")


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        """Stop the server and anything it started (its whole process group)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)


def http_status(url: str, timeout: float = 5.0) -> int:
    """The HTTP status of a GET, or 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return 0


_logs = itertools.count(1)


def server_log(name: str) -> Path:
    """A new log file for a server called ``name``: one per server, worker and start, so that
    the log of a server that failed a test stays there after later servers of the same name
    (another test's, or the other worker's) have run."""
    ARTIFACTS.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return ARTIFACTS / f"server-{name}-{worker}-{next(_logs)}.log"


def start_server(
    name: str,
    python: str = sys.executable,
    cwd: Path = ROOT,
    launcher: tuple[str, ...] = ("-m", "streamlit"),
    env: Mapping[str, str] | None = None,
) -> Server:
    """Start ``streamlit run app.py`` on a free local port and wait until it is healthy.

    If another program takes the port between the check and the start, the next free port is
    tried. ``launcher``: what runs Streamlit's command line, given ``run app.py`` and the
    server's options after it (a script that watches the server, ``tests/test_no_pandas.py``).
    ``env``: variables added to the server's environment (a class store's folder or URL).
    """
    log = server_log(name)
    for _attempt in range(3):
        port = free_port()
        command = [python, *launcher, "run", "app.py", "--server.headless", "true"]
        command += ["--server.address", "127.0.0.1", "--server.port", str(port)]
        with log.open("w") as out:
            process = subprocess.Popen(
                command,
                cwd=cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, **(env or {})},
            )
        server = Server(f"http://127.0.0.1:{port}", process, log)
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline and process.poll() is None:
            healthy = http_status(f"{server.url}/_stcore/health", timeout=2) == 200
            if healthy and process.poll() is None:  # the answer came from this server
                return server
            time.sleep(0.3)
        if process.poll() is None:
            server.stop()
            raise RuntimeError(f"not healthy after {STARTUP_SECONDS} s:\n{log.read_text()}")
        if "already in use" not in log.read_text():
            break
    raise RuntimeError(f"the server exited early:\n{log.read_text()[-3000:]}")


# --- browser -------------------------------------------------------------------------------


# Streamlit's own start-up probe on a deep link (streamlit/streamlit#7074, open): on
# /softmax the front end first asks /softmax/_stcore/health and /softmax/_stcore/host-config,
# in case the app lives under /softmax, gets a 404 for both, then connects at /. Only a
# ``window.__streamlit.BACKEND_BASE_URL`` injected into Streamlit's own index.html could skip
# the probe; neither config.toml nor the app can. Exactly these two 404s are ignored.
_STARTUP_PROBE = re.compile(r"^/[a-z]+/_stcore/(health|host-config)$")


def is_startup_probe(message: ConsoleMessage) -> bool:
    url = message.location.get("url", "")
    path = urllib.parse.urlsplit(url).path
    return (
        message.text.startswith(
            "Failed to load resource: the server responded with a status of 404"
        )
        and _STARTUP_PROBE.match(path) is not None
    )


@dataclass
class Console:
    """Console errors and uncaught page errors seen by one page."""

    errors: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("console", self._on_console)
        page.on("pageerror", lambda err: self.errors.append(f"pageerror: {err}"))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and not is_startup_probe(message):
            self.errors.append(f"{message.text} at {message.location.get('url', '')}")


@dataclass
class Session:
    """One browser context with one page, its console, and the server it talks to."""

    page: Page
    console: Console
    base: str

    def open(self, path: str) -> None:
        """Visit a path (with its query) and wait until the script has run to its end, and
        the rerun that brings the browser's saved work has too (``reported``): a key pressed in
        that rerun could meet a widget it draws again with the value it had."""
        self.page.goto(self.base + path)
        settle(self.page)
        # the store stays mounted when the restore has something to write back: no rerun comes
        with contextlib.suppress(PlaywrightTimeout):
            reported(self.page, timeout_ms=REPORT_MS)

    def move(self, path: str) -> None:
        """Another page with the same settings, in the same document (``move``)."""
        move(self.page, path)

    def close(self) -> None:
        """Give the tab back (``tests.e2e.tabs.close_tab``): its context is kept, cleaned."""
        close_tab(self.page)

    def go(self, path: str) -> None:
        """Moved to when this document shows the app with the settings ``path``'s query asks
        (``lang=en``, the contexts' language, is left out of the address bar as a default is),
        else loaded (``open``)."""
        asked = urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query)
        settings = {name: value for name, value in asked if (name, value) != ("lang", "en")}
        if self.page.url.startswith(self.base) and query(self.page) == settings:
            self.move(path)
        else:
            self.open(path)


def new_session(
    browser: Browser,
    base: str,
    viewport: tuple[int, int] = (1280, 900),
    locale: str = "en-US",
    user_agent: str | None = None,
) -> Session:
    """A new tab with a clean context (no cookies, nothing stored: ``tests.e2e.tabs``) and a
    Streamlit session of its own; ``user_agent`` as a phone would send it, or chromium's own
    when None. ``Session.close`` gives it back."""
    agent = {"user_agent": user_agent, "is_mobile": True, "has_touch": True} if user_agent else {}
    page = new_tab(
        browser, viewport={"width": viewport[0], "height": viewport[1]}, locale=locale, **agent
    )
    page.context.set_default_timeout(WAIT_MS)
    console = Console()
    console.attach(page)
    return Session(page, console, base)


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"e2e-{re.sub(r'[^A-Za-z0-9_.-]+', '-', name).strip('-')}.png"
    page.screenshot(path=path)  # the viewport: Streamlit scrolls the lesson inside stMain
    return path


# --- reading the page ----------------------------------------------------------------------


# how long the page must not change before it counts as settled, and the shortest wait, in
# which an action's rerun has begun (ms)
QUIET_MS = 250
LEAST_MS = 100
_waits = itertools.count()


def settle(page: Page | Frame) -> None:
    """Wait until the script has finished and the page (or the app in a frame) has stopped
    changing.

    The script state turns ``notRunning`` before React has drawn the last elements, so this
    also waits for the whole navigation, no stale element, and no change to the document (a
    node, an attribute, a text: a ``MutationObserver``, set up by the first wait in a document)
    for ``QUIET_MS``. A page that was already quiet answers after ``LEAST_MS``, time for the
    rerun of an action just taken to begin.
    """
    page.wait_for_function(
        """([link, pages, quiet, least, wait]) => {
            if (window.__settleWait !== wait) {
                window.__settleWait = wait;
                window.__settleStart = performance.now();
            }
            if (!window.__settleWatch) {
                window.__settleWatch = true;
                window.__lastChange = performance.now();
                new MutationObserver(() => { window.__lastChange = performance.now(); })
                    .observe(document, {
                        subtree: true, childList: true, attributes: true, characterData: true,
                    });
            }
            const app = document.querySelector("[data-testid='stApp']");
            const ready = app !== null && app.dataset.testScriptState === 'notRunning'
                && !document.querySelector("[data-stale='true']")
                && document.querySelectorAll(link).length === pages;
            const now = performance.now();
            return ready && now - window.__lastChange >= quiet
                && now - window.__settleStart >= least;
        }""",
        arg=[PAGE_LINK, len(PAGES), QUIET_MS, LEAST_MS, next(_waits)],
        polling=50,
    )


# a click on the sidebar's link to a page (there even when the sidebar is folded away, as on a
# phone or in presenter mode)
_MOVE = """([selector, path]) => {
    const link = [...document.querySelectorAll(selector)].find(
        (a) => a.dataset.page === path.slice(1));
    if (!link) return false;
    link.click();
    return true;
}"""


def move(page: Page, path: str) -> None:
    """Open another page of the app through the sidebar's link to it, without reloading the
    document, and wait until it has run and settled: its address, then its own title (which
    its run sets), then the end of the run.

    A reload costs chromium about 1.4 s of CPU (the app's JavaScript starts again), a move
    about a quarter of it. The link carries the session's settings, so ``path``'s query must
    be the one the current page was opened with; the URL after the move is checked to hold
    the same settings."""
    target, _, _ = path.partition("?")
    shown = query(page)
    key = next(key for file, key, _ in PAGES if url_path(file) == target)
    title = page_title(FRAME_TEXT[shown.get("lang", "en")][key])
    assert page.evaluate(_MOVE, [PAGE_LINK, target]), f"no link to {target} in the sidebar"
    page.wait_for_function(
        "([path, title]) => location.pathname === path && document.title === title",
        arg=[target, title],
    )
    settle(page)
    assert query(page) == shown, f"the move to {path} changed the settings: {query(page)}"


def url_path(file: str) -> str:
    """``app.py`` -> ``/``; ``pages/3_softmax.py`` -> ``/softmax`` (the app's ``slug``)."""
    return "/" + slug(file)


# once the store's script has seen the session's question: whether this browser keeps work,
# which it reports ("keeps"), or not ("empty")
_STORE_ASKED = """(name) => {
    const asked = window.__localStoreAsked || {};
    if (!(name in asked)) return null;
    try {
        const kept = JSON.parse(localStorage.getItem(name) || '{}') || {};
        return Object.keys(kept).length > 0 ? 'keeps' : 'empty';
    } catch (err) { return 'empty'; }
}"""


def reported(page: Page | Frame, timeout_ms: float = WAIT_MS) -> None:
    """Wait until a new browser has reported its saved work and the rerun that brings it has
    ended. The first run mounts the hidden store (``ui.turn.progress``), the page is drawn, then a
    store that holds work reports it, which reruns the page: a click in that rerun can meet a
    widget it replaces (a download button's file is registered again). With nothing to write
    back, the store is not mounted again. An empty store reports nothing: no rerun comes."""
    kept = page.wait_for_function(_STORE_ASKED, arg=STORE, timeout=timeout_ms).json_value()
    if kept == "keeps":
        page.locator(f".st-key-{STORE_KEY}").wait_for(state="detached", timeout=timeout_ms)
    settle(page)


def kept_work(page: Page | Frame) -> dict | None:
    """This browser's copy of the learner's work (``ui.turn.progress.STORE``); None if none."""
    return page.evaluate("(name) => JSON.parse(localStorage.getItem(name))", STORE)


def keep_work(page: Page | Frame, entries: dict) -> None:
    """Put ``entries`` in this browser's copy of the learner's work, as the app would keep them."""
    page.evaluate(
        "([name, value]) => localStorage.setItem(name, JSON.stringify(value))", [STORE, entries]
    )


Message = bytes | str
Relay = Callable[[Message], Iterable[Message]]


def relay_stream(page: Page, sent: Relay, received: Relay = lambda message: ()) -> None:
    """Pass the page's websocket to the app through the test: for each message the page sends,
    the server gets the messages ``sent`` returns (none: it is lost, twice: it comes again);
    each message the server sends reaches the page, after the server has got the messages
    ``received`` returns for it (what the page asks before it has read that message)."""

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_server(message: Message) -> None:
            for out in sent(message):
                server.send(out)

        def to_page(message: Message) -> None:
            for out in received(message):
                server.send(out)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    page.route_web_socket("**/_stcore/stream", route)


def store_report(message: Message) -> bool:
    """Whether a message the page sends carries a browser store's report (its token)."""
    return isinstance(message, bytes) and b'"token"' in message


def run_ended(message: Message) -> bool:
    """Whether a message the server sends says that a run of the page ended (not cut short)."""
    if not isinstance(message, bytes):
        return False
    sent = ForwardMsg.FromString(message)
    return (
        sent.WhichOneof("type") == "script_finished"
        and sent.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
    )


def exceptions(page: Page) -> list[str]:
    """The texts of the exception boxes on the page (the server log has the tracebacks)."""
    return page.locator("[data-testid='stException']").all_inner_texts()


def heatmaps(page: Page) -> list[np.ndarray]:
    """The z matrix of the first trace of every plotly chart and of every heatmap table
    (``ui.draw.heatmap_table``: its ``data-z``) on the page, in page order.

    Plotly gets numpy arrays as base64 (``{"dtype", "bdata", "shape"}``); NaN marks masked cells.
    Page 3's middle chart, the masked scores, repeats the scaled ones with the future hidden:
    it is left out so that chart 0 is S/sqrt(d_k) and chart 1 the pattern on every link
    (AppTest checks the masked chart itself).
    """
    raw = page.evaluate(
        """() => [...document.querySelectorAll('.js-plotly-plot, .lab-heatmap[data-z]')]
            .filter(el => !el.closest('.st-key-masked') && el.dataset.key !== 'masked')
            .map(el => el.dataset.z ? {bdata: el.dataset.z, dtype: 'f8', shape: el.dataset.shape}
                : el.data && el.data[0] ? el.data[0].z : null)"""
    )
    return [decode(z) for z in raw]


def decode(z: object) -> np.ndarray:
    if isinstance(z, dict) and "bdata" in z:
        flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"]))
        shape = z.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return flat.reshape(shape).astype(np.float64)
    return np.array(z, dtype=np.float64)  # plain lists: JSON null (a masked cell) -> NaN


def wait_heatmap(page: Page, index: int, expected: np.ndarray, timeout: float = 30.0) -> None:
    """Wait until chart ``index`` shows ``expected`` (NaN where masked), then until idle."""
    deadline = time.monotonic() + timeout
    shown = None
    while time.monotonic() < deadline:
        maps = heatmaps(page)
        if len(maps) > index:
            shown = maps[index]
            if shown.shape == expected.shape and np.allclose(
                shown, expected, rtol=0, atol=1e-12, equal_nan=True
            ):
                settle(page)
                return
        page.wait_for_timeout(200)
    raise AssertionError(
        f"chart {index} never showed the expected numbers:\n{shown}\n!=\n{expected}"
    )


def expected_head(
    d_model: int = 8,
    n_heads: int = 4,
    seed: int = 0,
    head: int = 0,
    causal: bool = True,
    text: str = DEFAULT_TEXT,
    embeddings: str = "seeded",
) -> tuple[np.ndarray, np.ndarray]:
    """Page 3's two heatmaps computed here with ``llm``: (scaled scores, pattern with NaN where
    masked). Shapes: -> [T, T], [T, T]."""
    cfg = llm.AttentionConfig(d_model=d_model, n_heads=n_heads, seed=seed, embeddings=embeddings)
    x = llm.embed(llm.tokenize(text), cfg)
    trace = llm.multi_head_attention(x, llm.init_params(cfg), causal=causal)
    h = trace.heads[head]
    return h.scaled, np.where(trace.mask, h.pattern, np.nan)


def wait_lang(page: Page, lang: str) -> None:
    """Wait until the document says the page's language (set by the frame's component)."""
    page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)


def switch_language(page: Page, lang: str) -> None:
    """Press the sidebar's language button ``lang``, then wait until the page is in it and idle."""
    buttons = page.locator(f"{SIDEBAR} [data-testid='stButtonGroup'] button")
    buttons.filter(has_text=re.compile(f"^{lang}$")).first.click()
    wait_lang(page, lang)
    settle(page)


def sidebar_values(page: Page) -> dict[str, str]:
    """What the sidebar controls show, as text, keyed like the URL."""
    side = page.locator(SIDEBAR)
    selects = side.locator("[data-testid='stSelectbox'] input")
    return {
        "lang": side.locator(
            "[data-testid='stButtonGroup'] button[aria-checked='true']"
        ).inner_text(),
        "text": side.locator("[data-testid='stTextInput'] input").input_value(),
        "d_model": side.locator("[data-testid='stSlider'] input[type='range']").input_value(),
        "n_heads": selects.nth(0).input_value(),
        "seed": side.locator("[data-testid='stNumberInput'] input").input_value(),
        "causal": str(side.locator("[data-testid='stCheckbox'] input").is_checked()).lower(),
        "embeddings": side.locator(
            "[data-testid='stRadioOption'][data-selected='true'] "
            "[data-testid='stMarkdownContainer']"
        ).inner_text(),
        "head": selects.nth(1).input_value(),
    }


def query(page: Page) -> dict[str, str]:
    """The page URL's query parameters (one value each)."""
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def wait_query(page: Page, timeout: float = WAIT_MS / 1000, **values: str | None) -> None:
    """Wait until the URL carries these parameter values (None: the parameter is absent)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(query(page).get(k) == v for k, v in values.items()):
            return
        page.wait_for_timeout(100)  # lets playwright take in the browser's URL changes
    raise AssertionError(f"the URL never got {values}: {page.url}; {page_summary(page)}")


SUMMARY_JS = """() => {
    const app = document.querySelector("[data-testid='stApp']");
    const main = document.querySelector("[data-testid='stMain']");
    // whole characters: a cut through a pair of UTF-16 halves (a math letter) cannot be sent
    const text = main
        ? Array.from(main.innerText.replace(/\\s+/g, " ")).slice(0, 300).join("") : "no main";
    const stores = JSON.stringify(window.__localStoreTrace || []);
    return `script ${app ? app.dataset.testScriptState : "absent"}, page: ${text}; `
        + `at ${Math.round(performance.now())} ms, the browser stores did ${stores}`;
}"""


def page_summary(page: Page) -> str:
    """What the page shows, for a failure's message: the script's state, its text's start, and
    what the browser's stores did (``ui/frame/components/local_store``: ms since the page
    opened, step, store, token)."""
    try:
        return page.evaluate(SUMMARY_JS)
    except PlaywrightError as err:
        return f"the page could not be read ({err.message})"


def press_slider(slider: Locator, key: str, times: int = 1) -> None:
    """Press ``key`` on a focused slider ``times`` times, one step a press: each press waits
    until the slider shows a new value, and is made again if the page, still busy drawing,
    did not take it in within 5 s."""

    def value() -> str | None:
        return slider.evaluate("el => el.getAttribute('aria-valuenow') ?? el.value")

    for _ in range(times):
        before = value()
        for _attempt in range(3):
            slider.focus()
            slider.press(key)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and value() == before:
                slider.page.wait_for_timeout(100)
            if value() != before:
                break
        else:
            raise AssertionError(f"the slider never took {key} (it stays at {before})")


def choose(page: Page, box: int, option: str) -> None:
    """Pick ``option`` in the sidebar's selectbox number ``box`` (0 = heads, 1 = head shown)."""
    field = page.locator(SIDEBAR).locator("[data-testid='stSelectbox'] input").nth(box)
    field.click()
    field.press("ArrowDown")  # opens the list
    page.get_by_role("listbox").get_by_role("option", name=option, exact=True).click()


def type_seed(page: Page, seed: int) -> None:
    """Type a seed in the sidebar's number input and press Enter."""
    field = page.locator(SIDEBAR).locator("[data-testid='stNumberInput'] input")
    field.fill(str(seed))
    field.press("Enter")


def nav_labels(page: Page) -> list[str]:
    """The sidebar's page links, in order."""
    return [text.strip() for text in page.locator(PAGE_LINK).all_inner_texts()]


def touch_drag(page: Page, x: float, y: float, dy: float, steps: int = 15) -> None:
    """A finger put down at (x, y) and moved up by ``dy`` px, as the browser gets it from a
    touch screen (the page's context needs ``has_touch``)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]}
        )
        for k in range(1, steps + 1):
            point = {"x": x, "y": y - dy * k / steps}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
            page.wait_for_timeout(16)  # one frame between moves, as a finger does
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def chart_traces(page: Page, key: str, field: str) -> list[tuple[str, np.ndarray]]:
    """(name, ``field`` decoded) of every trace of the chart drawn with key ``key``, in order:
    ``field`` "y" for a line chart's values, "z" for a heatmap's matrix (null -> NaN)."""
    raw = page.evaluate(
        """([key, field]) => {
            const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
            return el && el.data ? el.data.map(t => [t.name || '', t[field]]) : [];
        }""",
        [key, field],
    )
    return [(name, decode(values)) for name, values in raw]


def wait_until(page: Page, shown: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Poll ``shown`` every 200 ms until it is true, then wait until the page is idle; fail with
    ``what`` (what never showed) after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if shown():
            settle(page)
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"{what} never showed")


def outlined_rows(page: Page, key: str) -> list[float]:
    """The rows outlined on the chart drawn with ``key``, as the browser holds them: a plotly
    chart's outline shapes (a chart, or the pieces of a grid: figs-<key>), or the frame of a
    heatmap table's followed row (``ui.draw.heatmap_table``)."""
    return page.evaluate(
        """([key, colour]) => {
            const els = document.querySelectorAll(`.st-key-${key} .js-plotly-plot`);
            const plots = [...els].flatMap(el => ((el.layout && el.layout.shapes) || [])
                .filter(s => s.type === 'rect' && s.line && s.line.color === colour)
                .map(s => (s.y0 + s.y1) / 2));
            const probe = document.createElement('i');
            probe.style.color = colour;  // the outline's colour as the browser writes one
            const frames = [...document.querySelectorAll(
                `.lab-heatmap[data-key="${key}"] .followed`)]
                .filter(el => el.style.borderTopColor === probe.style.color)
                .map(el => parseFloat(el.dataset.row));
            return plots.concat(frames);
        }""",
        [key, OUTLINE],
    )
