// The gauge of a total that blows up above a limit (a cauldron's, a pot's toxicity): a bar, the
// total and words against the limit, so it reads without its colour as well as with it.

import { h } from "./dom.js";
import { number } from "./i18n.js";

/** How far below the limit a total starts to be drawn as near it. */
const NEAR = 3;

/**
 * `words` are the game's: `title` (the whole gauge, as a tooltip), `over` (beside a total above
 * the limit) and `of` (beside any other).
 */
export function gauge(total, limit, { title, over, of }) {
  const state = total > limit ? "over" : total >= limit - NEAR ? "near" : "safe";
  const bar = h("span", { class: "gauge-fill" });
  bar.style.setProperty("--fill", String(Math.min(total / (limit + 1), 1)));
  return h(
    "div",
    { class: ["gauge", `gauge-${state}`], title },
    h("span", { class: "gauge-total" }, number(total)),
    h("span", { class: "gauge-limit" }, total > limit ? over : of),
    h("span", { class: "gauge-track" }, bar),
  );
}
