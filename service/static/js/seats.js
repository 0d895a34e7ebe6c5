// The seats around the table: each player's name, whether a bot plays it, the cards in
// hand (their backs: only the owner sees the faces), what the game shows of each seat, the
// running total, who is to play (and, in a game with a clock, the time it has left), and a
// person who is away. Shared by the live table and the step-through screens.

import { awayBadge } from "./away.js";
import { cardBack } from "./cards.js";
import { clockFace } from "./countdown.js";
import { h } from "./dom.js";
import { isolated, t, who } from "./i18n.js";
import { botBadges, isOpen, seatName } from "./seating.js";

function badge(text, kind) {
  return h("span", { class: ["badge", kind && `badge-${kind}`] }, text);
}

/**
 * `you`: the caller's seat (or null); `event`: the step just shown (a seat's pile may grow);
 * `hands`: in a replay, every hand face up; `bots`: the bot playing each away seat (a Map);
 * `clock`: the seat to move counts down (the game's clock runs for the view shown).
 */
export function seatList(view, game, { you = null, event = null, hands = null, bots = null, clock = false } = {}) {
  const winners = new Set(view.winners);
  return h(
    "ol",
    { class: "seats", "aria-label": t("seats.label") },
    view.players.map((player) => {
      const toPlay = view.turn === player.seat && view.status === "active";
      const total = view.totals[player.seat];
      return h(
        "li",
        {
          class: ["seat", `seat-${player.seat}`, toPlay && "to-play", you === player.seat && "you", winners.has(player.seat) && "winner", player.away && "away"],
          "data-seat": player.seat,
          "aria-current": toPlay ? "true" : null,
        },
        h(
          "div",
          { class: "seat-name" },
          h("span", { class: "seat-swatch", "aria-hidden": "true" }),
          h("span", { class: "name" }, isOpen(player) ? seatName(player) : who(player.name)),
          you === player.seat ? badge(t("badge.you"), "you") : null,
          ...botBadges(player),
          awayBadge(player, bots),
          view.dealer === player.seat ? badge(t("badge.dealer"), "dealer") : null,
          winners.has(player.seat) ? badge(t("badge.winner"), "winner") : null,
        ),
        h(
          "div",
          { class: "seat-facts" },
          h("span", { class: "in-hand" }, cardBack(player.hand_size, t("seats.in_hand.label", { count: player.hand_size })), t("seats.in_hand")),
          ...game.seatFacts(player, { event }),
          h("span", { class: "seat-total" }, h("span", { class: "total-label" }, t("seats.total")), h("strong", { class: "total", "data-total": total }, game.formatTotal(total))),
        ),
        toPlay ? h("div", { class: "turn-flag" }, t("seats.to_play"), clock && !player.bot && !player.away ? clockFace() : null) : null,
        hands ? h("div", { class: "open-hand", "aria-label": t("seats.hand", { name: isolated(player.name) }) }, hands[player.seat].map((code) => game.card(code, { size: "tiny" }))) : null,
      );
    }),
  );
}
