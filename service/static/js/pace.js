// How fast the table shows what others did: each bot's move, each overflow, each explosion
// stays on screen this long before the next. A person's choice, kept in this browser.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const PACES = { slow: 1400, normal: 700, fast: 220, instant: 0 };
const KEY = "poison-table.pace";
const DEFAULT = "normal";

function chosen() {
  const name = localStorage.getItem(KEY);
  return name in PACES ? name : DEFAULT;
}

/** Milliseconds to hold a step; `weight` for steps worth a longer look (an overflow, a round's end). */
export function paceMs(weight = 1) {
  return PACES[chosen()] * weight;
}

export function paceControl() {
  const select = h(
    "select",
    { class: "pace", "aria-label": t("pace.menu"), on: { change: () => localStorage.setItem(KEY, select.value) } },
    Object.keys(PACES).map((name) => h("option", { value: name, selected: name === chosen() }, t(`pace.${name}`))),
  );
  return h("label", { class: "pace-control" }, t("pace.label"), select);
}
