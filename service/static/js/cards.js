// A card as the page draws it, for either game: its code in a corner, its value large, and a
// word for its kind, so a card reads by letter, value and word, never by colour alone.

import { h } from "./dom.js";
import { number } from "./i18n.js";

/**
 * `face` is what a ruleset says of a card: {code, value, kind (a CSS class), word, label}.
 * Options: `size` ("small" in cauldrons and pots), `fresh` (just played: drawn landing).
 */
export function cardFace(face, { size, fresh } = {}) {
  return h(
    "span",
    {
      class: ["card", `kind-${face.kind}`, size && `card-${size}`, fresh && "fresh"],
      "data-card": face.code,
      title: `${face.label} (${face.code})`,
      role: "img",
      "aria-label": face.label,
    },
    h("span", { class: "card-code", dir: "ltr", "aria-hidden": "true" }, face.code),
    h("span", { class: "card-value", "aria-hidden": "true" }, number(face.value)),
    h("span", { class: "card-word", "aria-hidden": "true" }, face.word),
  );
}

/** The back of a card with a count on it: a hand or a pile seen from across the table. */
export function cardBack(count, label) {
  return h(
    "span",
    { class: "card-back", title: label, role: "img", "aria-label": label },
    h("span", { "aria-hidden": "true" }, number(count)),
  );
}
