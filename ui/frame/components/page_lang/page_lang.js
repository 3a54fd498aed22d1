// The document's language and title set to the page's, Streamlit's own words in it, its scroll
// boxes reachable by keyboard, a new page opened at its top, and the live region (speak,
// announce.js, sent with this file). Streamlit's index.html says
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

// Streamlit's own words, which it writes in English on every page: a button's or a field's name
// ("Help for Phrase", "Collapse sidebar", "Increment"), a placeholder, the hint under a field
// ("Press Enter to apply"), the main menu's items ("Print"). On a French page a screen reader
// read them with French rules, and a student saw them in English (WCAG 3.1.2). Each pair:
// English (a string or a pattern), French.
const NAMES = [
  [/^Help for (.+)$/s, "Aide : $1"],
  ["Collapse sidebar", "Replier la barre latérale"],
  ["Expand sidebar", "Déplier la barre latérale"],
  ["Sidebar", "Barre latérale"],
  ["Main menu", "Menu principal"],
  ["Open", "Ouvrir la liste"],
  ["Increment", "Augmenter"],
  ["Decrement", "Diminuer"],
  ["Copy to clipboard", "Copier"],
  ["Download as CSV", "Télécharger en CSV"],
  ["Fullscreen", "Plein écran"],
  ["Close fullscreen", "Quitter le plein écran"],
  ["Search", "Rechercher"],
  ["Show/hide columns", "Afficher ou masquer des colonnes"],
  ["Scroll tabs left", "Onglets précédents"],
  ["Scroll tabs right", "Onglets suivants"],
  ["Choose an option", "Choisis une option"],
  ["Running...", "Calcul en cours"],
  ["Close", "Fermer"],
  ["Dismiss", "Fermer la fenêtre"],
];
// the hint stands inside its field, at the end of a line the sidebar makes 240 px wide: as short
// as Streamlit's own
const TEXTS = [
  ["Press Enter to apply", "Entrée pour appliquer"],
  ["Press Enter to submit form", "Entrée pour envoyer"],
  [/^Press (.+)\+Enter to apply$/, "$1+Entrée pour appliquer"],
  ["System", "Système"],
  ["Light", "Clair"],
  ["Dark", "Sombre"],
  ["Print", "Imprimer"],
  ["Record screen", "Enregistrer l’écran"],
  // the connection's state, when the server cannot be reached (a school's Wi-Fi, a restart):
  // the label at the top right, its tooltip, and the dialog after many tries
  ["Connecting", "Connexion…"],
  ["Connecting to Streamlit server", "Connexion au serveur du labo"],
  ["Error", "Erreur"],
  ["Unable to connect to Streamlit server", "Impossible de joindre le serveur du labo"],
  ["Connection error", "Erreur de connexion"],
  [
    "Streamlit server is not responding. Are you connected to the internet?",
    "Le serveur du labo ne répond pas. Es-tu connecté à Internet ?",
  ],
];
// a slider's value as a screen reader says it: Streamlit names a select_slider's stop by its
// label, which is the link's spelling (0.5) in every language (pages/3_softmax.py says why); on a
// French page, a decimal comma
const VALUES = [[/^(\d+)\.(\d+)$/, "$1,$2"]];
const VALUED = "input[type='range'][aria-valuetext], [role='slider'][aria-valuetext]";
const NAMED = "[aria-label], [placeholder]";
// the hint under a field, the main menu (its theme choices, Print, Record screen), and the
// connection's state: its label, its tooltip, its dialog
const WORDED = [
  "[data-testid='InputInstructions']",
  "[data-testid='stMainMenuPopover']",
  "[data-testid='stConnectionStatus']",
  "[role='tooltip']",
  "[role='dialog']",
].join(", ");

const ENGLISH = new WeakMap(); // node -> {slot: [English, French]}: what this script translated

// French for one of Streamlit's English texts, or null
function french(pairs, text) {
  for (const [en, fr] of pairs) {
    if (typeof en === "string" ? text === en : en.test(text)) {
      return typeof en === "string" ? fr : text.replace(en, fr);
    }
  }
  return null;
}

// ``text`` (in ``slot`` of ``node``: an attribute, or a text node's "data") in the page's
// language, written with ``write``: French on a French page; its English back on an English
// page where this script had translated it and the page did not write it again
function inLanguage(node, slot, text, pairs, write) {
  const kept = ENGLISH.get(node) || {};
  if (window.__pageLang.lang === "fr") {
    const fr = french(pairs, text);
    if (fr !== null) {
      kept[slot] = [text, fr];
      ENGLISH.set(node, kept);
      write(fr);
    }
  } else if (kept[slot] && text === kept[slot][1]) {
    write(kept[slot][0]);
  }
}

function ownWords() {
  for (const el of document.querySelectorAll(NAMED)) {
    for (const name of ["aria-label", "placeholder"]) {
      const text = el.getAttribute(name);
      if (text !== null) inLanguage(el, name, text, NAMES, (t) => el.setAttribute(name, t));
    }
  }
  for (const el of document.querySelectorAll(VALUED)) {
    const text = el.getAttribute("aria-valuetext");
    inLanguage(el, "aria-valuetext", text, VALUES, (t) => el.setAttribute("aria-valuetext", t));
  }
  for (const box of document.querySelectorAll(WORDED)) {
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode; // its text, not the node: React keeps the node
      inLanguage(node, "data", node.data, TEXTS, (t) => { node.data = t; });
    }
  }
}

// While Streamlit says the server cannot be reached (its "Connecting" label, at the top right
// where the presenter switch stands), the document carries data-offline and the switch, which
// can do nothing then, gives way (SWITCH_CSS); it comes back with the connection
function offline() {
  const lost = document.querySelector("[data-testid='stConnectionStatus']") !== null;
  const root = document.documentElement;
  if (root.hasAttribute("data-offline") !== lost) root.toggleAttribute("data-offline", lost);
}

// what every change of the page is looked at again for: its scroll boxes, the bar's links'
// names, Streamlit's words, the connection's state
function tidy() {
  keyboardScroll();
  nameLinks();
  ownWords();
  offline();
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
  tidy();
  if (!window.__pageLangObserver) {
    let queued = false;
    const later = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        tidy();
      });
    };
    const head = new MutationObserver(apply);
    head.observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
    head.observe(document.head, { childList: true, subtree: true, characterData: true });
    const body = new MutationObserver(later);
    // the page's new elements (a hint, the main menu), and a name or a slider's value it writes
    // again on an element it keeps; not every text's change: a field's counter changes with
    // each key
    body.observe(document.body, {
      childList: true,
      subtree: true,
      attributeFilter: ["aria-label", "placeholder", "aria-valuetext"],
    });
    window.addEventListener("resize", later);
    window.__pageLangObserver = [head, body];
  }
}
