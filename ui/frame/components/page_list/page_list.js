// The sidebar's page list: every page as a link, under its chapter's name, and the count of
// solved cells, drawn in the document as one element (a list of Streamlit page links is a dozen
// elements that every run sends again). A click opens the page in this session, as Streamlit's
// own links do: the address changes and Streamlit, told of it as of a Back or Forward, runs the
// page with the link's settings. A link keeps the app's settings (data.keep, the names of the
// link's values every page shares), so that a new tab opened from it shows the same numbers.
// data.pages (JSON): [{path, label, group}] in order, path "" for the home page, group the
// chapter's name where a chapter starts; data.current: this page's path; data.note: the line
// under the list; data.label: the list's spoken name.

// a Streamlit page link's look: its size, its rounded box, the page shown bold on a tinted
// background; a chapter's name and the count as the lab's captions (the text at 75 %)
const STYLE = `
.al-pages ul { list-style: none; margin: 0; padding: 0; }
.al-pages a { display: block; margin: 0.125rem 0; padding: 0 0.5rem; border-radius: 0.5rem;
  color: inherit; text-decoration: none; font-size: 0.875rem; line-height: 1.75rem; }
.al-pages a:hover { background: color-mix(in srgb, currentColor 8%, transparent); }
.al-pages a[aria-current="page"] { font-weight: 600;
  background: color-mix(in srgb, currentColor 12%, transparent); }
.al-pages p { margin: 0.5rem 0 0.25rem; font-size: 0.875rem; line-height: 1.6; opacity: 0.75; }
`;

function style() {
  if (document.getElementById("al-pages-style")) return;
  const element = document.createElement("style");
  element.id = "al-pages-style";
  element.textContent = STYLE;
  document.head.appendChild(element);
}

// the app's own path ("/" or "/lab/"): this page's path taken off the address, read when the
// address is this page's (not between a click and the run it starts, nor after Back); the
// last one read otherwise
function base(current) {
  const path = location.pathname;
  if (current ? path.endsWith("/" + current) : !window.__pageListBase) {
    const root = current ? path.slice(0, -current.length) : path; // the home page's: its own
    window.__pageListBase = root.endsWith("/") ? root : root + "/";
  }
  return window.__pageListBase || "/";
}

function address(path, keep, current) {
  const now = new URLSearchParams(location.search);
  const kept = new URLSearchParams();
  for (const [name, value] of now) if (keep.includes(name)) kept.append(name, value);
  const query = kept.toString();
  return base(current) + path + (query ? "?" + query : "");
}

function draw(root, pages, data) {
  const nav = document.createElement("nav");
  nav.className = "al-pages";
  nav.setAttribute("aria-label", data.label);
  let list = null;
  pages.forEach((page, i) => {
    if (page.group || list === null) {
      if (page.group) {
        const name = document.createElement("p");
        name.className = "al-pages-group";
        name.id = `al-pages-group-${i}`;
        name.textContent = page.group;
        nav.appendChild(name);
      }
      list = document.createElement("ul");
      if (page.group) list.setAttribute("aria-labelledby", `al-pages-group-${i}`);
      nav.appendChild(list);
    }
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.dataset.page = page.path;
    link.textContent = page.label;
    if (page.path === data.current) link.setAttribute("aria-current", "page");
    item.appendChild(link);
    list.appendChild(item);
  });
  const note = document.createElement("p");
  note.className = "al-pages-note";
  note.textContent = data.note;
  nav.appendChild(note);
  root.replaceChildren(nav);
}

// On a phone the open sidebar covers the page: after a tap it folds away, so that the page
// opened is in view, and the keyboard's focus goes to the page's column (a link of a folded
// sidebar cannot hold it)
function fold(link) {
  const sidebar = link.closest("[data-testid='stSidebar']");
  if (!sidebar || sidebar.getBoundingClientRect().width < window.innerWidth / 2) return;
  const button = sidebar.querySelector("[data-testid='stSidebarCollapseButton'] button");
  if (!button) return;
  button.click();
  const main = document.querySelector("[data-testid='stMain']");
  if (main) main.focus({ preventScroll: true });
}

function refresh(root, keep, current) {
  for (const a of root.querySelectorAll("a[data-page]")) {
    a.setAttribute("href", address(a.dataset.page, keep, current));
  }
}

export default function ({ data, parentElement }) {
  if (!data || typeof data.pages !== "string") return;
  style();
  const shape = data.pages + "\n" + data.current + "\n" + data.note + "\n" + data.label;
  const first = parentElement.__pageList === undefined;
  const state = (parentElement.__pageList ??= {});
  if (state.shape !== shape) draw(parentElement, JSON.parse(data.pages), data);
  state.shape = shape;
  state.keep = JSON.parse(data.keep || "[]");
  state.current = data.current;
  refresh(parentElement, state.keep, state.current);
  if (!first) return;
  // the address a link opens follows the settings, which change without a new list
  for (const kind of ["focusin", "pointerover", "contextmenu"]) {
    parentElement.addEventListener(kind, () => refresh(parentElement, state.keep, state.current));
  }
  parentElement.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-page]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return; // a new tab
    event.preventDefault();
    const url = address(link.dataset.page, state.keep, state.current);
    if (url !== location.pathname + location.search) history.pushState(null, "", url);
    window.dispatchEvent(new PopStateEvent("popstate", { state: history.state }));
    fold(link);
  });
}
