// The page's entry: the fragment names the screen (route.js), and each screen is mounted
// into <main> and unmounted (its stream closed, its keys released) when the fragment changes.

import { mountLobby } from "./lobby.js";
import { mountReplay } from "./replay.js";
import { parse } from "./route.js";
import { mountSteps } from "./steps.js";
import { mountTable } from "./table.js";

const SCREENS = { lobby: mountLobby, table: mountTable, steps: mountSteps, file: mountReplay };
const main = document.getElementById("screen");
let unmount = null;
let current = null;

function route() {
  if (location.hash === current) return;
  current = location.hash;
  unmount?.();
  main.replaceChildren();
  const where = parse(location.hash);
  unmount = SCREENS[where.screen](main, where) ?? null;
  document.title = "Poison — the table";
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
