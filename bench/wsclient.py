"""A browser tab without the browser: Streamlit's websocket protocol, spoken from Python.

What the frontend does, and so what this client does:

1. open ``ws://HOST:PORT/_stcore/stream`` with the subprotocol ``streamlit``;
2. send a ``BackMsg`` ``rerun_script`` whose ``ClientState`` holds the query string, the page name
   (the URL path, ``softmax`` for ``/softmax``), no widget states yet, and the context (locale,
   time zone, URL);
3. read ``ForwardMsg``s (``new_session``, deltas, ...) until ``script_finished``; a status of
   ``FINISHED_EARLY_FOR_RERUN`` means another run follows, so the rerun ends at the next
   ``FINISHED_SUCCESSFULLY``;
4. on every later change, send ``rerun_script`` again with the page's script hash and the value of
   every widget (ids read from the deltas: ``$$ID-<hash>-<key>``), plus the hashes of the large
   messages it has cached, as the frontend does, so the server may answer those with a short
   ``ref_hash`` message;
5. answer the lab's browser store (``ui.frame.components.local_store``) as the page's JavaScript
   does for a new visitor, whose copy is empty: a quiet store (the learner's work) is not
   answered; any other that asks is sent ``{}`` at once as the component's JSON state, which ends
   the run early and starts another; the rerun that asked ends at the second run's end. A store
   that gets no answer is asked on the session's first ``ui.turn.progress.ASK_RUNS`` runs.

Every byte counted is a serialized ``ForwardMsg`` as it came off the socket (the server's default
has no websocket compression, so that is what travels, plus a few bytes of framing).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
EARLY = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
WIDGETS = {
    "button_group",
    "text_input",
    "slider",
    "selectbox",
    "number_input",
    "checkbox",
    "radio",
    "button",
    "download_button",
}


# Streamlit's global.maxCachedMessageAge: the browser forgets a cached message once that many
# script runs have ended since a run last sent it or referred to it
MAX_MESSAGE_AGE = 2

# the pages' select sliders (the learned page's training step, the LayerNorm page's eps, the
# softmax page's temperature): the frontend sends the chosen option's text as a one-item list,
# not a string (a string makes Streamlit's deserializer fail, and the page shows an error)
SELECT_SLIDERS = {"step", "eps", "temperature"}


def widget_state(ws, key: str, value: object) -> None:
    """Fill one WidgetState the way the frontend encodes each of the frame's controls."""
    if key == "lang":
        ws.string_array_value.data.append(str(value))  # segmented control
    elif key == "d_model":
        ws.double_array_value.data.append(float(value))  # slider
    elif key == "seed":
        ws.int_value = int(value)  # number input
    elif key == "causal":
        ws.bool_value = value in (True, "true")  # toggle; "true"/"false" in the URL
    elif key in SELECT_SLIDERS:
        ws.string_array_value.data.append(str(value))  # select_slider: the option as shown
    elif isinstance(value, bool):
        ws.bool_value = value
    else:
        ws.string_value = str(value)  # text input, select boxes, radio


@dataclass
class Rerun:
    """What one rerun cost and sent."""

    latency_s: float  # from sending rerun_script to script_finished
    first_delta_s: float | None  # from sending to the first delta
    bytes: int  # serialized ForwardMsgs received
    messages: int
    refs: int  # messages answered by ref_hash (the client had them cached)
    charts: int  # plotly charts in the run
    errors: list[str] = field(default_factory=list)
    deflated: int | None = None  # the same bytes through zlib (what compression would send)


class Session:
    """One visitor on one page."""

    def __init__(
        self,
        ws_url: str,
        page: str,
        query: dict[str, object],
        *,
        locale: str = "en-US",
        cache_messages: bool = True,
        measure_deflate: bool = False,
        answer_store: bool = True,
    ) -> None:
        self.ws_url = ws_url
        self.page = page  # '' for the home page
        self.query_string = urlencode({k: _url_value(v) for k, v in query.items()})
        self.values: dict[str, object] = {}
        self.widget_ids: dict[str, str] = {}
        self.page_script_hash = ""
        # a cached message's hash -> (the run that last used it, the fragment that sent it)
        self.cached: dict[str, tuple[int, str]] = {}
        self.runs = 0  # script runs ended, as the browser's message cache counts them
        self.run_fragments: tuple[str, ...] = ()  # the fragments the current run runs alone
        self.cache_messages = cache_messages
        self.measure_deflate = measure_deflate
        self.locale = locale
        self.answer_store = answer_store
        self.json_states: dict[str, str] = {}  # component id -> its state, as the browser sends it
        self.answered: set[str] = set()  # the store's tokens answered so far
        self.ws = None

    async def connect(self, timeout: float = 30.0) -> None:
        # the route cookie nginx gives a browser on its first page (deploy/nginx.conf.template):
        # behind several processes, each visitor is kept on one of them, as browsers are
        route = f"attention_lab_route={secrets.token_hex(16)}"
        self.ws = await asyncio.wait_for(
            connect(
                self.ws_url,
                subprotocols=["streamlit"],
                max_size=None,
                compression=None,
                open_timeout=timeout,
                additional_headers={"Cookie": route},
            ),
            timeout,
        )

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    def _client_state(self, msg: BackMsg, first: bool) -> None:
        cs = msg.rerun_script
        cs.query_string = self.query_string
        if first:
            cs.page_name = self.page
        else:
            cs.page_script_hash = self.page_script_hash
            for key, value in self.values.items():
                wid = self.widget_ids.get(key)
                if wid is None:
                    continue
                ws = cs.widget_states.widgets.add()
                ws.id = wid
                widget_state(ws, key, value)
            for cid, state in self.json_states.items():
                ws = cs.widget_states.widgets.add()
                ws.id = cid
                ws.json_value = state
        if self.cache_messages:
            cs.cached_message_hashes.extend(self.cached)
        ci = cs.context_info
        ci.timezone = "UTC"
        ci.timezone_offset = 0
        ci.locale = self.locale
        ci.url = self.ws_url.replace("ws://", "http://").replace("/_stcore/stream", "/" + self.page)
        ci.is_embedded = False
        ci.color_scheme = "light"

    async def load(self, timeout: float = 30.0) -> Rerun:
        """The first run of a visit: the URL decides every control."""
        self.values = dict(parse_qsl(self.query_string))
        return await self._run(first=True, timeout=timeout)

    async def change(self, timeout: float = 30.0, **values: object) -> Rerun:
        """A student moves a control: the new values go out as widget states."""
        self.values.update(values)
        # the frontend writes a bound control's new value into the address bar itself
        query = dict(parse_qsl(self.query_string))
        query.update({k: _url_value(v) for k, v in values.items()})
        self.query_string = urlencode(query)
        return await self._run(first=False, timeout=timeout)

    async def rerun(self, timeout: float = 30.0) -> Rerun:
        """The same settings again (a click that changes nothing the cache keys on)."""
        return await self._run(first=False, timeout=timeout)

    async def _run(self, first: bool, timeout: float) -> Rerun:
        msg = BackMsg()
        self._client_state(msg, first)
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return await asyncio.wait_for(self._receive(t0), timeout)

    async def _receive(self, t0: float) -> Rerun:
        total = count = refs = charts = 0
        first_delta = None
        errors: list[str] = []
        raw: list[bytes] = []
        answered = answer_ran = False  # the store's answer sent in this rerun, and its run begun
        drawn: set[str] = set()  # the components of the run that ends this rerun
        while True:
            data = await self.ws.recv()
            total += len(data)
            count += 1
            if self.measure_deflate:
                raw.append(data)
            fm = ForwardMsg()
            fm.ParseFromString(data)
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                self.run_fragments = tuple(fm.metadata.run.fragment_ids)
                answer_ran = answered
                drawn.clear()
                if fm.new_session.page_script_hash:
                    self.page_script_hash = fm.new_session.page_script_hash
            elif kind == "delta":
                if first_delta is None:
                    first_delta = time.perf_counter() - t0
                self._delta(fm, errors)
                if fm.delta.new_element.WhichOneof("type") == "bidi_component":
                    drawn.add(fm.delta.new_element.bidi_component.id)
                if self._store_answer(fm):
                    answered = True
                    msg = BackMsg()
                    self._client_state(msg, first=False)
                    await self.ws.send(msg.SerializeToString())
                if fm.delta.WhichOneof("type") == "new_element":
                    charts += fm.delta.new_element.WhichOneof("type") == "plotly_chart"
            elif kind == "ref_hash":
                refs += 1
                if first_delta is None:
                    first_delta = time.perf_counter() - t0
            elif kind == "page_info_changed":
                self.query_string = fm.page_info_changed.query_string  # the URL follows
            elif kind == "navigation":
                self.page_script_hash = fm.navigation.page_script_hash  # the page that ran
            elif kind == "script_finished":
                self._ran()
                if fm.script_finished == EARLY or (answered and not answer_ran):
                    continue  # another run follows: st.rerun, or the run the answer asked for
                if fm.script_finished != FINISHED:
                    errors.append(f"script_finished status {fm.script_finished}")
                latency = time.perf_counter() - t0
                # the frontend forgets the state of a component the run no longer draws
                self.json_states = {c: v for c, v in self.json_states.items() if c in drawn}
                deflated = len(zlib.compress(b"".join(raw))) if self.measure_deflate else None
                return Rerun(latency, first_delta, total, count, refs, charts, errors, deflated)
            self._cache(fm)

    def _cache(self, fm: ForwardMsg) -> None:
        """Keep a cacheable message's hash, or mark a referred one used, as the browser's message
        cache does (``self.cache_messages``)."""
        if not self.cache_messages:
            return
        if fm.WhichOneof("type") == "ref_hash":
            if fm.ref_hash in self.cached:
                self.cached[fm.ref_hash] = (self.runs, self.cached[fm.ref_hash][1])
        elif fm.metadata.cacheable and fm.hash:
            self.cached[fm.hash] = (self.runs, fm.delta.fragment_id)

    def _ran(self) -> None:
        """A script run ended: forget the messages no run has used for MAX_MESSAGE_AGE runs, as
        the browser does (after a fragment's run, only that fragment's); the hashes a rerun
        sends stay those of the charts on screen, not of every chart seen since the visit began."""
        self.runs += 1
        alone = self.run_fragments

        def kept(used: int, fragment: str) -> bool:
            return bool(alone and fragment not in alone) or self.runs - used <= MAX_MESSAGE_AGE

        self.cached = {h: (r, f) for h, (r, f) in self.cached.items() if kept(r, f)}

    def _store_answer(self, fm: ForwardMsg) -> bool:
        """The store asked for the browser's copy: keep the answer; True if it is new."""
        element = fm.delta.new_element
        if not self.answer_store or element.WhichOneof("type") != "bidi_component":
            return False
        try:
            data = json.loads(element.bidi_component.json or "null")
        except ValueError:
            return False
        ask = data.get("ask") if isinstance(data, dict) else None
        if not isinstance(ask, str) or not ask or ask in self.answered or data.get("quiet"):
            return False  # nothing asked, asked before, or an empty store that says nothing
        self.answered.add(ask)
        saved = {"token": ask, "entries": {}}
        self.json_states[element.bidi_component.id] = json.dumps({"saved": saved})
        return True

    def _delta(self, fm: ForwardMsg, errors: list[str]) -> None:
        delta = fm.delta
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            errors.append(f"{element.exception.type}: {element.exception.message}"[:300])
        elif kind in WIDGETS:
            wid = getattr(element, kind).id
            if wid.startswith("$$ID-"):
                self.widget_ids[wid.split("-", 2)[2]] = wid


def _url_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
