// A polite live region that says in one sentence what changed, once. data.text: the sentence;
// data.count: goes up by one each time the numbers change (0: nothing to say yet); the region
// speaks when the count is one it has not said yet, so a rerun that changes nothing, or the
// same sentence mounted again on another page, says nothing. data.hide: the class of the element
// that holds the region, kept out of sight but not out of the accessibility tree.
export default function ({ data, parentElement }) {
  if (!data || typeof data.text !== "string") return;
  if (data.hide && !document.getElementById("announce-hide")) {
    const style = document.createElement("style");
    style.id = "announce-hide";
    style.textContent = `.${CSS.escape(data.hide)} { position: absolute !important;
      width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }`;
    document.head.appendChild(style);
  }
  let region = parentElement.querySelector("[data-announce]");
  if (!region) {
    region = document.createElement("div");
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-atomic", "true");
    region.dataset.announce = "";
    parentElement.appendChild(region);
  }
  const count = Number(data.count) || 0;
  if (count > 0 && window.__announceCount !== count && data.text) {
    window.__announceCount = count;
    window.__announceSpoken = (window.__announceSpoken || 0) + 1;
    region.textContent = data.text; // a text node: nothing the page passes is read as HTML
  }
}
