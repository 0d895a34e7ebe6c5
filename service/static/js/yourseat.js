// The seat this page holds, while its game is on (docs/clocks.md): resign it, which is for
// good (so the page asks first, in words, on the page itself), or come back to it after its
// clock ran out and a bot took it. What a request answers is the table's to show.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { yourAway } from "./away.js";

/**
 * The controls of seat `player` (the view's entry of the seat held here), or null when it
 * has none: `resign()`, `comeBack()`; `asking`: the confirmation of a resignation is shown;
 * `ask(bool)`: show or hide it; `busy`: a request is on its way; `clocked`: the game has a clock.
 */
export function yourSeat(player, bots, { resign, comeBack, asking, ask, busy, clocked }) {
  if (player.resigned) return h("section", { class: "your-seat resigned", "data-away": "resigned" }, h("p", null, yourAway(player, bots)));
  // A seat on the clock is told what running out of time does, before it happens.
  const said = yourAway(player, bots) ?? (clocked ? t("seat.clock_hint") : null);
  const confirm = asking
    ? h(
        "div",
        { class: "resign-confirm", role: "alertdialog", "aria-labelledby": "resign-question" },
        h("p", { id: "resign-question" }, h("strong", null, t("seat.resign.question")), " ", t("seat.resign.forever")),
        h("button", { type: "button", class: "danger resign-yes", disabled: busy, on: { click: resign } }, t("seat.resign.yes")),
        h("button", { type: "button", class: "resign-no", disabled: busy, on: { click: () => ask(false) } }, t("seat.resign.no")),
      )
    : null;
  return h(
    "section",
    { class: ["your-seat", player.away && "away"], "aria-label": t("seat.yours"), "data-away": player.away ? "away" : "" },
    said ? h("p", { class: ["your-away", !player.away && "hint"] }, said) : null,
    h(
      "div",
      { class: "your-seat-actions" },
      player.away ? h("button", { type: "button", class: "primary come-back", disabled: busy, on: { click: comeBack } }, t("seat.come_back")) : null,
      asking ? null : h("button", { type: "button", class: "resign", disabled: busy, on: { click: () => ask(true) } }, t("seat.resign")),
    ),
    confirm,
  );
}
