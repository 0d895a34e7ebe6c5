// The page's entry: the fragment names the screen (route.js), and each screen is mounted
// into <main> and unmounted (its stream closed, its keys released) when the fragment changes.
// The page's own words (the masthead's) are put in the reader's language here, beside the
// menu of languages; every screen says its own through i18n.js.

import { languageMenu, t } from "./i18n.js";
import { mountLobby } from "./lobby.js";
import { mountReplay } from "./replay.js";
import { parse } from "./route.js";
import { mountRules } from "./rules.js";
import { mountSteps } from "./steps.js";
import { mountTable } from "./table.js";

const SCREENS = { lobby: mountLobby, table: mountTable, steps: mountSteps, file: mountReplay, rules: mountRules };
const main = document.getElementById("screen");
for (const element of document.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
document.querySelector(".masthead-nav")?.append(languageMenu());
let unmount = null;
let current = null;

function route() {
  if (location.hash === current) return;
  current = location.hash;
  unmount?.();
  main.replaceChildren();
  const where = parse(location.hash);
  unmount = SCREENS[where.screen](main, where) ?? null;
  document.title = t("title.page");
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
