// The pot game at the table (docs/pot.md): its cards of toxicity 0 to 6, the one pot against
// its limit, the draw pile, closings and explosions, the sheet pot by pot. Which card may be
// played, and whether it may close the pot, comes from the view's `legal_moves`.

import { cardBack, cardFace } from "./cards.js";
import { createdNames, winnersLine } from "./seating.js";
import { h } from "./dom.js";
import { gauge } from "./gauge.js";
import { number, signed, t, tn, who } from "./i18n.js";

export const name = "pot";
export const title = t("pot.title");
export const lowestWins = false;
/** A pot whose toxicity goes above this explodes (docs/pot.md; the page's tests hold it to the core's). */
export const EXPLODES_ABOVE = 14;
export const eventTypes = ["game_created", "cards_dealt", "card_played", "pot_exploded", "pot_closed", "pot_started", "cards_drawn", "game_finished"];
export const scoringEvents = ["pot_closed", "pot_exploded"];
export const help = t("pot.rules", { limit: EXPLODES_ABOVE });

export const optionHints = {};
export const defaultSeats = 2;

export function face(code) {
  const value = Number(code.slice(1));
  return { code, value, kind: `tox${value}`, word: t("pot.word"), label: t("pot.card", { value }) };
}

/** The score sheet's lines: one per pot closed or exploded. */
export const lines = (scores) => scores.pots;
export const formatTotal = signed;

export const card = (code, options) => cardFace(face(code), options);

export function status(view) {
  return [view.endgame ? t("pot.status.endgame") : t("pot.status.pile", { count: view.draw_pile })];
}

export function seatFacts() {
  return [];
}

/** The legal moves of `code`: add it (key 1), add it and close (key 2), as the view allows. */
export function targets(view, code) {
  return (view.you?.legal_moves ?? [])
    .filter((move) => move.card === code)
    .map((move) => ({
      key: move.close ? "2" : "1",
      move,
      where: move.close ? "close" : "add",
      label: t(move.close ? "pot.target.close" : "pot.target.add", { card: code }),
    }));
}

export const prompt = {
  pick: t("pot.prompt.pick"),
  place: (code) => t("pot.prompt.place", { card: face(code).label }),
};

/** A pot about to end, shown before it goes: the card that closes it or blows it up. */
export function moment(event, view) {
  if (event.type !== "card_played") return null;
  const exploding = event.data.toxicity > EXPLODES_ABOVE;
  if (!exploding && !event.data.close) return null;
  return { cards: [...view.pot.cards, event.data.card], toxicity: event.data.toxicity, exploding, closing: !exploding, seat: event.data.seat };
}

function potGauge(toxicity) {
  const limit = EXPLODES_ABOVE;
  return gauge(toxicity, limit, { title: t("pot.gauge.title", { toxicity, limit }), over: t("pot.gauge.over", { limit }), of: t("pot.gauge.of", { limit }) });
}

/** The pot, the draw pile and, for the selected card, the buttons of its legal moves. */
export function board(view, { moment, event, targets: choices = [], play, names, selected }) {
  const shown = moment ?? { cards: view.pot.cards, toxicity: view.pot.toxicity };
  const ended = event?.type === "pot_closed" || event?.type === "pot_exploded" ? event : null;
  const fresh = event?.type === "card_played" || event?.type === "pot_started";
  const actions = selected
    ? h(
        "div",
        { class: "pot-actions" },
        ["add", "close"].map((where) => {
          const choice = choices.find((c) => c.where === where);
          if (choice) {
            return h("button", { type: "button", class: ["action", `action-${where}`], "data-move": where, on: { click: () => play(choice.move) } }, t("pot.action", { label: choice.label, key: choice.key }));
          }
          const why = view.endgame ? t("pot.why.endgame") : t("pot.why.explode", { card: selected });
          return h("button", { type: "button", class: ["action", `action-${where}`], disabled: true, title: why }, where === "close" ? t("pot.action.close_refused", { why }) : t("pot.action.cannot_add"));
        }),
      )
    : null;
  return h(
    "div",
    { class: "pot-board" },
    h(
      "div",
      { class: ["pot", moment?.exploding && "exploding", moment?.closing && "closing", ended && `ended-${ended.type}`], "data-toxicity": shown.toxicity },
      h("div", { class: "cauldron-head" }, h("span", { class: "cauldron-name" }, t("pot.name")), h("span", { class: "cauldron-colour" }, t("pot.cards", { count: shown.cards.length }))),
      potGauge(shown.toxicity),
      h("div", { class: "cauldron-cards" }, shown.cards.length ? shown.cards.map((code, i) => card(code, { size: "small", fresh: fresh && i === shown.cards.length - 1 })) : h("span", { class: "empty" }, t("board.empty"))),
      moment?.exploding && h("div", { class: "ribbon ribbon-over" }, tn("pot.ribbon.blows", { name: who(names[moment.seat]) })),
      moment?.closing && h("div", { class: "ribbon ribbon-close" }, tn("pot.ribbon.closes", { name: who(names[moment.seat]) })),
      ended?.type === "pot_exploded" && h("div", { class: "ribbon ribbon-over boom" }, t("pot.ribbon.exploded", { toxicity: ended.data.toxicity })),
      ended?.type === "pot_closed" && h("div", { class: ["ribbon", "ribbon-close", ended.data.points < 0 && "ribbon-loss"] }, tn("pot.ribbon.closed", { name: who(names[ended.data.seat]), points: signed(ended.data.points) })),
      actions,
    ),
    h(
      "div",
      { class: ["draw-pile", view.endgame && "endgame"], "data-draw-pile": view.draw_pile },
      cardBack(view.draw_pile, t("pot.pile.label", { count: view.draw_pile })),
      h("span", null, view.endgame ? t("pot.pile.endgame") : t("pot.pile.word")),
    ),
  );
}

/** What an event of the pot game's own says in the feed; null for any other (games.js, describe). */
export function describe(event, names) {
  const d = event.data;
  switch (event.type) {
    case "game_created":
      return tn("pot.feed.created", { names: createdNames(d.players) });
    case "cards_dealt":
      return t("pot.feed.dealt", { card: d.pot });
    case "card_played":
      return tn("pot.feed.played", { close: d.close ? "yes" : "no", name: who(names[d.seat]), card: d.card, toxicity: d.toxicity });
    case "pot_exploded":
      return t("pot.feed.exploded", { toxicity: d.toxicity, cards: d.cards.join(" ") });
    case "pot_closed":
      return tn("pot.feed.closed", { name: who(names[d.seat]), cards: d.cards.join(" "), toxicity: d.toxicity, points: signed(d.points) });
    case "pot_started":
      return t("pot.feed.started", { card: d.card });
    case "cards_drawn":
      return tn(d.cards ? "pot.feed.drew_cards" : "pot.feed.drew", { name: who(names[d.seat]), count: d.count, cards: d.cards ? d.cards.join(" ") : "" });
    default:
      return null;
  }
}

export const winnersText = (winners, totals, names) => winnersLine("pot.winner", winners, names, signed(totals[winners[0]]));

/** The score sheet, pot by pot (games.js, sheet): who ended it, how, its cards, toxicity and points. */
export function sheet(pots, view, names, winners) {
  return h(
    "div",
    { class: "sheet-wrap" },
    h(
      "table",
      { class: "sheet totals-only" },
      h("caption", null, t("pot.sheet.totals")),
      h("thead", null, h("tr", null, names.map((name) => h("th", { scope: "col" }, who(name))))),
      h("tbody", null, h("tr", null, view.totals.map((total, seat) => h("td", { class: ["total", total < 0 && "negative", winners.has(seat) && "winner"], "data-seat": seat }, signed(total), winners.has(seat) ? " ★" : "")))),
    ),
    h(
      "table",
      { class: "sheet pots" },
      h("caption", null, t("pot.sheet.caption")),
      h("thead", null, h("tr", null, ["pot", "by", "cards", "toxicity", "points"].map((label) => h("th", { scope: "col" }, t(`pot.sheet.${label}`))))),
      h(
        "tbody",
        null,
        pots.length
          ? pots
              .map((pot, i) =>
                h(
                  "tr",
                  { class: `outcome-${pot.outcome}`, "data-pot": i + 1 },
                  h("th", { scope: "row" }, number(i + 1)),
                  h("td", { title: t(pot.outcome === "closed" ? "pot.sheet.closed_it" : "pot.sheet.exploded_it", { name: who(names[pot.seat]) }) }, who(names[pot.seat])),
                  h("td", { class: "mini-cards" }, pot.cards.map((code) => card(code, { size: "tiny" }))),
                  h("td", null, number(pot.toxicity)),
                  h("td", { class: ["points", pot.points < 0 && "negative"] }, pot.outcome === "exploded" ? t("pot.sheet.boom") : signed(pot.points)),
                ),
              )
              .reverse()
          : h("tr", null, h("td", { colspan: 5, class: "empty" }, t("pot.sheet.none"))),
      ),
    ),
  );
}

/** Running totals after each pot that ended, one line per seat, for the chart. */
export function series(scores, count = scores.pots.length) {
  const pots = scores.pots.slice(0, count);
  const labels = [t("chart.start"), ...pots.map((_, i) => number(i + 1))];
  const lines = scores.totals.map((_, seat) => {
    let sum = 0;
    return [0, ...pots.map((pot) => (sum += pot.seat === seat ? pot.points : 0))];
  });
  return { labels, lines, axis: "pot" };
}

export function hiddenHands(view) {
  return { hands: view.all.hands, extra: view.all.draw_pile.length ? [{ label: t("pot.draw_pile"), cards: view.all.draw_pile }] : [] };
}
