// The learner's work kept in this browser's localStorage, under one name per app.
// data.name: the storage name; data.ask: a token, set while the server has not read the store
// for this session yet; data.put (JSON): entries to write (null removes one). The store is reported
// once per token as the state value "saved"; an empty store is reported as {}, or, with
// data.quiet, not at all: a report reruns the page, and a new visitor has nothing to bring back.
// data.hide: the class of the element that holds the store, hidden so that it takes no room.
// data.writer, data.seq: who sends data.put (one writer per session) and the batch's number; an
// entry is written only from a batch newer than the last one this page wrote it from, so that an
// element run again (drawn anew, or left on the page while a newer one wrote) cannot bring back
// older work.
// A report the server did not take (REPORT_AGAIN_MS later it still asks with that token, the
// element is still on the page and the app is not running: a report lost on its way, and no run
// of the page came) is sent again, at most REPORTS times a token, each with its number
// ("again"): a page that missed it would otherwise wait without its class or its work until
// something else ran it.
// What the stores did (mounted, reported, sent again, stopped), the last TRACE_LENGTH steps, in
// window.__localStoreTrace: for a developer's console and a failed test's message; it holds
// tokens and store names, never entries.
const REPORT_AGAIN_MS = 2000;
const REPORTS = 5;
const TRACE_LENGTH = 40;

function trace(...step) {
  const steps = (window.__localStoreTrace ||= []);
  steps.push([Math.round(performance.now()), ...step]);
  if (steps.length > TRACE_LENGTH) steps.shift();
}

// Send the report again every REPORT_AGAIN_MS while the server still asks for it, REPORTS in all.
function reportAgain(name, token, entries, parentElement, setStateValue) {
  let sent = 1;
  const look = () => {
    const asking = (window.__localStoreAsking ||= {});
    if (asking[name] !== token || (parentElement && !parentElement.isConnected)) {
      trace("stop", name, token, asking[name] === token ? "element gone" : "taken");
      return;
    }
    const app = document.querySelector("[data-testid='stApp']");
    if (app && app.dataset.testScriptState === "running") {
      trace("wait", name, token);
      window.setTimeout(look, REPORT_AGAIN_MS); // its run may take it
      return;
    }
    trace("again", name, token, sent);
    setStateValue("saved", { token, entries, again: sent });
    sent += 1;
    if (sent < REPORTS) window.setTimeout(look, REPORT_AGAIN_MS);
  };
  window.setTimeout(look, REPORT_AGAIN_MS);
}

export default function ({ data, setStateValue, parentElement }) {
  if (!data || typeof data.name !== "string") return;
  const hideId = `local-store-hide-${data.hide}`;
  if (data.hide && !document.getElementById(hideId)) {
    const style = document.createElement("style");
    style.id = hideId;
    style.textContent = `.${CSS.escape(data.hide)} { display: none; }`;
    document.head.appendChild(style);
  }
  let stored = {};
  try {
    stored = JSON.parse(window.localStorage.getItem(data.name) || "{}") || {};
  } catch (err) {
    stored = {}; // private mode, storage disabled, or not JSON: start empty
  }
  const asked = (window.__localStoreAsked = window.__localStoreAsked || {});
  const asking = (window.__localStoreAsking ||= {});
  asking[data.name] = data.ask || null; // what the server's latest run of this store asks
  trace("mount", data.name, data.ask || null, data.seq);
  if (data.ask && asked[data.name] !== data.ask) {
    asked[data.name] = data.ask;
    if (!data.quiet || Object.keys(stored).length > 0) {
      trace("report", data.name, data.ask);
      setStateValue("saved", { token: data.ask, entries: stored });
      reportAgain(data.name, data.ask, stored, parentElement, setStateValue);
    }
  }
  const put = JSON.parse(data.put || "{}") || {};
  const written = (window.__localStoreWritten ||= {});
  const mine = (written[`${data.name} ${data.writer}`] ||= {});
  let changed = false;
  for (const [key, value] of Object.entries(put)) {
    if ((mine[key] ?? -1) >= data.seq) continue;
    mine[key] = data.seq;
    if (value === null) {
      changed = changed || key in stored;
      delete stored[key];
    } else if (JSON.stringify(stored[key]) !== JSON.stringify(value)) {
      stored[key] = value;
      changed = true;
    }
  }
  if (changed) {
    try {
      window.localStorage.setItem(data.name, JSON.stringify(stored));
    } catch (err) {
      // full or disabled: the work stays in the session, as without a store
    }
  }
}
