// The document's language and title set to the page's, its scroll boxes reachable by keyboard,
// a new page opened at its top, and the live region (speak, announce.js, sent with this file). Streamlit's index.html says
// lang="en" on every page and its page config writes the title on every run, so both are kept:
// an observer puts them back whenever something else changes them, until the next page's mount
// gives new ones. A box that scrolls (a wide matrix, a long formula on a phone) and holds nothing
// focusable gets tabindex="0", so that a keyboard can scroll it (WCAG 2.1.1). data.lang: "en" or
// "fr"; data.title: the page's title; data.scroll: the label a focusable scroll box is given;
// data.hide: the class of the element that holds this component, kept out of sight and of the
// layout but not out of the accessibility tree (the live region is read from it); data.links
// (JSON): the spoken names of the presenter bar's links ("Next page: 4. ..."), by the URL path
// they open; data.said (JSON): what the live region says, {text, count}, or null.
const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
const BOXES = "[data-testid='stMain'] div[class*='st-key-'], .katex-display, pre";

function scrolls(el) {
  const style = getComputedStyle(el);
  const x = /(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
  const y = /(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
  return x || y;
}

function keyboardScroll() {
  const want = window.__pageLang;
  for (const el of document.querySelectorAll(BOXES)) {
    const mine = el.dataset.scrollFocus === "1";
    if (scrolls(el) && (mine || !el.querySelector(FOCUSABLE))) {
      if (!mine) {
        el.dataset.scrollFocus = "1";
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "region");
      }
      if (el.getAttribute("aria-label") !== want.scroll) el.setAttribute("aria-label", want.scroll);
    } else if (mine) {
      delete el.dataset.scrollFocus;
      el.removeAttribute("tabindex");
      el.removeAttribute("role");
      el.removeAttribute("aria-label");
    }
  }
}

function nameLinks() {
  const names = window.__pageLang.links;
  for (const a of document.querySelectorAll(".st-key-bar a[href]")) {
    // the link's own href: the home page's is "" (a.href would be this page's address)
    const path = (a.getAttribute("href") || "").split(/[?#]/)[0].split("/").pop();
    const name = names[path];
    if (name && a.getAttribute("aria-label") !== name) a.setAttribute("aria-label", name);
  }
}

// A move to another page starts at its top, as a link of the sidebar does. A page the server
// opens (a student following the teacher to the next page, or joining a class from the home
// page's box) kept the scroll of the page before: a phone that scrolled down to the join box
// opened the teacher's page in its middle, the line "Following the teacher" out of sight.
// The first page of a visit, and a new run of the same page, keep their scroll.
function topOfNewPage() {
  const path = location.pathname;
  if (window.__pageLangPath !== undefined && window.__pageLangPath !== path) {
    const main = document.querySelector("[data-testid='stMain']");
    if (main) main.scrollTop = 0;
  }
  window.__pageLangPath = path;
}

function apply() {
  const want = window.__pageLang;
  const root = document.documentElement;
  if (root.getAttribute("lang") !== want.lang) root.setAttribute("lang", want.lang);
  if (want.title && document.title !== want.title) document.title = want.title;
}

export default function ({ data, parentElement }) {
  if (!data || typeof data.lang !== "string") return;
  if (data.hide && !document.getElementById("page-lang-hide")) {
    const style = document.createElement("style");
    style.id = "page-lang-hide";
    style.textContent = `.${CSS.escape(data.hide)} { position: absolute !important;
      width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }`;
    document.head.appendChild(style);
  }
  speak(JSON.parse(data.said || "null"), parentElement);
  topOfNewPage();
  window.__pageLang = {
    lang: data.lang,
    title: data.title || "",
    scroll: data.scroll || "",
    links: JSON.parse(data.links || "{}") || {},
  };
  apply();
  keyboardScroll();
  nameLinks();
  if (!window.__pageLangObserver) {
    let queued = false;
    const later = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        keyboardScroll();
        nameLinks();
      });
    };
    const head = new MutationObserver(apply);
    head.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
    head.observe(document.head, { childList: true, subtree: true, characterData: true });
    const body = new MutationObserver(later);
    body.observe(document.body, { childList: true, subtree: true });
    window.addEventListener("resize", later);
    window.__pageLangObserver = [head, body];
  }
}
