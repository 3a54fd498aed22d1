// A polite live region that says in one sentence what changed, once, inside the page's document
// element (page_lang.js calls it on every mount). said.text: the sentence; said.count: goes up
// by one each time the numbers change (0: nothing to say yet); the region speaks when the count
// is one it has not said yet, so a rerun that changes nothing, or the same sentence mounted
// again on another page, says nothing.
function speak(said, parentElement) {
  if (!said || typeof said.text !== "string") return;
  let region = parentElement.querySelector("[data-announce]");
  if (!region) {
    region = document.createElement("div");
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-atomic", "true");
    region.dataset.announce = "";
    parentElement.appendChild(region);
  }
  const count = Number(said.count) || 0;
  if (count > 0 && window.__announceCount !== count && said.text) {
    window.__announceCount = count;
    window.__announceSpoken = (window.__announceSpoken || 0) + 1;
    region.textContent = said.text; // a text node: nothing the page passes is read as HTML
  }
}
