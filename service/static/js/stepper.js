// Stepping through a whole game, event by event: a finished game read through time travel
// (`GET …?version=N`), or a dropped log replayed through `POST /v1/replays?version=N`. The
// same controls either way: first, back, a slider, forward, last and play; arrow keys too.
// Beside the table: what event N was, the score sheet so far, and the chart of running
// totals with a marker at the round (or pot) reached.

import { awayBots, describeAway } from "./away.js";
import { totalsChart } from "./chart.js";
import { fill, h } from "./dom.js";
import { describe, sheet } from "./games.js";
import { t } from "./i18n.js";
import { noticeBoard } from "./notices.js";
import { paceControl, paceMs } from "./pace.js";
import { seatList } from "./seats.js";
import { describeLobby, seatName } from "./seating.js";

/**
 * `events`: the whole log; `viewAt(n)`: the game right after event n; `scores`: the final
 * score sheet; `everything`: every hand is public (a replayed log's `all`); `onStep(n)`.
 */
export function stepper(root, { game, heading, events, start, viewAt, scores, everything = false, onStep, extra }) {
  const last = events.length;
  // The names the table ends with: an open seat is named by whoever joined it last.
  const names = events[0].data.players.map(seatName);
  for (const event of events) if (event.type === "seat_joined") names[event.data.seat] = event.data.name;
  const notices = noticeBoard();
  const slider = h("input", { type: "range", class: "step-slider", min: 1, max: last, value: start, "aria-label": t("steps.slider") });
  const position = h("output", { class: "step-position", "aria-live": "polite" });
  const playButton = h("button", { type: "button", class: "step-play", "aria-pressed": "false", on: { click: () => toggle() } }, t("steps.play"));
  const button = (label, title, to) => h("button", { type: "button", class: "step", title, "aria-label": title, on: { click: () => go(to()) } }, label);
  const parts = {
    said: h("ol", { class: "said" }),
    seats: h("div", { class: "seats-area" }),
    board: h("div", { class: "board-area" }),
    sheet: h("div", { class: "sheet-area" }),
    chart: h("div", { class: "chart-area" }),
  };
  const screen = h(
    "section",
    { class: ["steps-screen", `ruleset-${game.name}`], "data-last": last },
    h("div", { class: "table-top" }, h("h1", null, heading), extra ?? null, paceControl()),
    notices.element,
    h(
      "div",
      { class: "step-controls", role: "group", "aria-label": t("steps.controls") },
      button(t("steps.first"), t("steps.first.title"), () => 1),
      button(t("steps.back"), t("steps.back.title"), () => at - 1),
      slider,
      button(t("steps.next"), t("steps.next.title"), () => at + 1),
      button(t("steps.last"), t("steps.last.title"), () => last),
      playButton,
      position,
    ),
    h("p", { class: "keys" }, t("steps.keys")),
    h(
      "div",
      { class: "table-layout" },
      h("div", { class: "table-main" }, h("section", { class: "panel said-panel" }, h("h2", null, t("steps.this")), parts.said), parts.seats, parts.board, parts.chart),
      h("aside", { class: "table-side" }, h("section", { class: "panel" }, h("h2", null, t("steps.sheet")), parts.sheet)),
    ),
  );
  fill(root, screen);

  let at = 0;
  let shown = null; // the view of the step on screen
  let asked = 0; // the step asked for last: a slow answer for an older one is dropped
  let playing = false;

  async function go(step) {
    const to = Math.min(Math.max(step, 1), last);
    if (to === at && shown) return;
    asked = to;
    slider.value = String(to);
    try {
      const view = await viewAt(to);
      if (asked !== to) return;
      const before = shown?.version === to - 1 ? shown : null;
      at = to;
      shown = view;
      draw(view, before);
      onStep?.(to);
    } catch (problem) {
      notices.problem(problem);
      stop();
    }
  }

  function draw(view, before) {
    const event = events[at - 1];
    const scored = events.slice(0, at).filter((e) => game.scoringEvents.includes(e.type)).length;
    screen.dataset.version = String(view.version);
    position.value = t("steps.position", { at, last });
    fill(
      parts.said,
      events.slice(Math.max(0, at - 4), at).map((e) => h("li", { class: e === event ? "now" : "before", "data-version": e.version }, h("span", { class: "feed-version" }, `#${e.version}`), describeLobby(e, names) ?? describeAway(e, names) ?? describe(game, e, names))),
    );
    // An overflow (or a pot's end) reached by stepping forward shows first as it happened.
    const moment = before && game.moment(event, before);
    const table = moment ? before : view;
    const bots = awayBots(events.slice(0, table.version));
    fill(parts.seats, seatList(table, game, { event, bots, hands: everything ? game.hiddenHands(table).hands : null }));
    const extraCards = everything ? game.hiddenHands(view).extra : [];
    fill(
      parts.board,
      game.board(table, { moment, event: moment ? null : event, names }),
      extraCards.map((pile) => h("div", { class: "open-pile" }, h("h3", null, pile.label), h("div", { class: "open-hand" }, pile.cards.map((code) => game.card(code, { size: "tiny" }))))),
    );
    fill(parts.sheet, sheet(game, scores, view, names, scored));
    // A game abandoned before anything was scored has no totals to draw.
    if (game.lines(scores).length) fill(parts.chart, h("section", { class: "panel" }, h("h2", null, t("chart.title")), totalsChart(game.series(scores), names, { at: scored })));
  }

  async function toggle() {
    if (playing) return stop();
    playing = true;
    playButton.textContent = t("steps.pause");
    playButton.setAttribute("aria-pressed", "true");
    if (at >= last) await go(1);
    while (playing && at < last) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(paceMs(), 60)));
      if (playing) await go(at + 1);
    }
    stop();
  }

  function stop() {
    playing = false;
    playButton.textContent = t("steps.play");
    playButton.setAttribute("aria-pressed", "false");
  }

  slider.addEventListener("input", () => go(Number(slider.value)));
  function onKey(event) {
    if (event.target instanceof HTMLInputElement && event.target !== slider) return;
    if (event.target instanceof HTMLSelectElement) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 1, End: last }[event.key];
    if (to !== undefined && event.target !== slider) {
      event.preventDefault();
      go(to);
    } else if (event.key === " " && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      toggle();
    }
  }
  document.addEventListener("keydown", onKey);
  go(start);
  return () => {
    stop();
    document.removeEventListener("keydown", onKey);
  };
}
