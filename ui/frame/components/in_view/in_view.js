// Bring a box into view once a moment: when data.moment differs from the last one this browser
// saw for data.target, the page's column scrolls so that the box `.st-key-<target>` stands at the
// top of the screen, under Streamlit's header. A question the teacher opens appears at the top of
// a student's page: a student reading further down saw nothing of it. A student typing in a code
// editor stays where they type. The first moment a page shows is only noted: a page opened anew
// starts at its top, where the box already is. With the move, data.say goes to the page's polite
// live region (announce.js's), as text: a student with a screen reader hears the question open.
const HEADER_PX = 64; // Streamlit's header, over the column's top
const TRIES = 60; // frames to wait for the box to be drawn (about a second)
const SAY_AGAIN_MS = 150; // the region left empty before the same words come again

function bringUp(target, tries) {
  const box = document.querySelector(`.st-key-${CSS.escape(target)}`);
  const main = document.querySelector("[data-testid='stMain']");
  if (!box || !main) {
    if (tries > 0) requestAnimationFrame(() => bringUp(target, tries - 1));
    return;
  }
  const typing = document.activeElement && document.activeElement.matches("textarea");
  if (typing) return;
  const top = box.getBoundingClientRect().top - main.getBoundingClientRect().top - HEADER_PX;
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  main.scrollBy({ top, behavior: still ? "auto" : "smooth" });
}

// The words as text, never HTML. Words equal to what the region already holds (the same
// question asked twice) would not be said again: the region empties first and takes them a
// moment later, which a screen reader hears as a change.
function say(text) {
  const region = document.querySelector("[aria-live='polite'][data-announce]");
  if (!region || typeof text !== "string" || !text) return;
  if (region.textContent !== text) {
    region.textContent = text;
    return;
  }
  region.textContent = "";
  setTimeout(() => {
    region.textContent = text;
  }, SAY_AGAIN_MS);
}

export default function ({ data }) {
  if (!data || typeof data.target !== "string" || typeof data.moment !== "string") return;
  const seen = (window.__inView = window.__inView || {});
  const before = seen[data.target];
  seen[data.target] = data.moment;
  if (before !== undefined && before !== data.moment) {
    bringUp(data.target, TRIES);
    say(data.say);
  }
}
