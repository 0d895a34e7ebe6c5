// The pot game at the table (docs/pot.md): its cards of toxicity 0 to 6, the one pot against
// its limit, the draw pile, closings and explosions, the sheet pot by pot. Which card may be
// played, and whether it may close the pot, comes from the view's `legal_moves`.

import { cardBack, cardFace } from "./cards.js";
import { createdNames } from "./seating.js";
import { h, listing, signed } from "./dom.js";

export const name = "pot";
export const title = "The pot game";
export const lowestWins = false;
/** A pot whose toxicity goes above this explodes (docs/pot.md; the page's tests hold it to the core's). */
export const EXPLODES_ABOVE = 14;
export const eventTypes = ["game_created", "cards_dealt", "card_played", "pot_exploded", "pot_closed", "pot_started", "cards_drawn", "game_finished"];
export const scoringEvents = ["pot_closed", "pot_exploded"];
export const help =
  "Add one card to the pot and say whether you close it. Closing scores +1, then +1 a card if the toxicity is at most " +
  `the number of cards, else minus the toxicity. Above ${EXPLODES_ABOVE} the pot explodes for nobody. ` +
  "Once the draw pile is empty nobody may close. Highest total wins; totals may go below zero.";

export const optionHints = {};
export const defaultSeats = 2;

export function face(code) {
  const value = Number(code.slice(1));
  return { code, value, kind: `tox${value}`, word: "tox", label: `toxicity ${value}` };
}

/** How many lines the score sheet has: one per pot closed or exploded. */
export const scoredCount = (scores) => scores.pots.length;
export const formatTotal = signed;

export const card = (code, options) => cardFace(face(code), options);

export function status(view) {
  return [view.endgame ? "Endgame: no closing, no drawing" : `Draw pile: ${view.draw_pile}`];
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
      label: move.close ? `Add ${code} and close the pot` : `Add ${code}, keep the pot open`,
    }));
}

export const prompt = {
  pick: "Your turn: pick a card for the pot.",
  place: (code) => `Add ${face(code).label}: keep the pot open (1) or close it (2).`,
};

/** A pot about to end, shown before it goes: the card that closes it or blows it up. */
export function moment(event, view) {
  if (event.type !== "card_played") return null;
  const exploding = event.data.toxicity > EXPLODES_ABOVE;
  if (!exploding && !event.data.close) return null;
  return { cards: [...view.pot.cards, event.data.card], toxicity: event.data.toxicity, exploding, closing: !exploding, seat: event.data.seat };
}

function gauge(toxicity) {
  const state = toxicity > EXPLODES_ABOVE ? "over" : toxicity >= EXPLODES_ABOVE - 3 ? "near" : "safe";
  const bar = h("span", { class: "gauge-fill" });
  bar.style.setProperty("--fill", String(Math.min(toxicity / (EXPLODES_ABOVE + 1), 1)));
  return h(
    "div",
    { class: ["gauge", `gauge-${state}`], title: `toxicity ${toxicity}; explodes above ${EXPLODES_ABOVE}` },
    h("span", { class: "gauge-total" }, String(toxicity)),
    h("span", { class: "gauge-limit" }, toxicity > EXPLODES_ABOVE ? `over ${EXPLODES_ABOVE}: boom!` : `of ${EXPLODES_ABOVE} toxicity`),
    h("span", { class: "gauge-track" }, bar),
  );
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
            return h("button", { type: "button", class: ["action", `action-${where}`], "data-move": where, on: { click: () => play(choice.move) } }, `${choice.label} · ${choice.key}`);
          }
          const why = view.endgame ? "no closing in the endgame" : `${selected} would explode it`;
          return h("button", { type: "button", class: ["action", `action-${where}`], disabled: true, title: why }, where === "close" ? `Close: ${why}` : "Cannot add");
        }),
      )
    : null;
  return h(
    "div",
    { class: "pot-board" },
    h(
      "div",
      { class: ["pot", moment?.exploding && "exploding", moment?.closing && "closing", ended && `ended-${ended.type}`], "data-toxicity": shown.toxicity },
      h("div", { class: "cauldron-head" }, h("span", { class: "cauldron-name" }, "The pot"), h("span", { class: "cauldron-colour" }, `${shown.cards.length} card${shown.cards.length === 1 ? "" : "s"}`)),
      gauge(shown.toxicity),
      h("div", { class: "cauldron-cards" }, shown.cards.length ? shown.cards.map((code, i) => card(code, { size: "small", fresh: fresh && i === shown.cards.length - 1 })) : h("span", { class: "empty" }, "empty")),
      moment?.exploding && h("div", { class: "ribbon ribbon-over" }, `${names[moment.seat]}'s card blows it up!`),
      moment?.closing && h("div", { class: "ribbon ribbon-close" }, `${names[moment.seat]} closes it…`),
      ended?.type === "pot_exploded" && h("div", { class: "ribbon ribbon-over boom" }, `Exploded at ${ended.data.toxicity}: nobody scores`),
      ended?.type === "pot_closed" && h("div", { class: ["ribbon", "ribbon-close", ended.data.points < 0 && "ribbon-loss"] }, `${names[ended.data.seat]} closed it: ${signed(ended.data.points)}`),
      actions,
    ),
    h(
      "div",
      { class: ["draw-pile", view.endgame && "endgame"], "data-draw-pile": view.draw_pile },
      cardBack(view.draw_pile, `${view.draw_pile} cards in the draw pile`),
      h("span", null, view.endgame ? "Draw pile empty: endgame" : "draw pile"),
    ),
  );
}

export function describe(event, names) {
  const d = event.data;
  switch (event.type) {
    case "game_created":
      return `A pot game for ${createdNames(d.players)}.`;
    case "cards_dealt":
      return `Four cards each; ${d.pot} starts the pot.`;
    case "card_played":
      return `${names[d.seat]} added ${d.card}${d.close ? " and closed" : ""} (toxicity ${d.toxicity}).`;
    case "pot_exploded":
      return `The pot exploded at ${d.toxicity} (${d.cards.join(" ")}): nobody scores.`;
    case "pot_closed":
      return `${names[d.seat]} closed the pot (${d.cards.join(" ")}, toxicity ${d.toxicity}): ${signed(d.points)}.`;
    case "pot_started":
      return `${d.card} starts a new pot.`;
    case "cards_drawn":
      return `${names[d.seat]} drew ${d.count} card${d.count === 1 ? "" : "s"}${d.cards ? `: ${d.cards.join(" ")}` : ""}.`;
    case "game_finished":
      return `Game over: ${winnersText(d.winners, d.totals, names)}.`;
    default:
      return `${event.type.replaceAll("_", " ")}.`;
  }
}

export function winnersText(winners, totals, names) {
  const who = listing(winners.map((seat) => names[seat]));
  const total = signed(totals[winners[0]]);
  return winners.length === 1 ? `${who} wins with ${total} (highest total)` : `${who} share the win with ${total} each (highest total)`;
}

/** The score sheet, pot by pot: who ended it, how, its cards, toxicity and points. */
export function sheet(scores, view, names, count) {
  const pots = scores.pots.slice(0, count);
  const winners = new Set(view.winners);
  return h(
    "div",
    { class: "sheet-wrap" },
    h(
      "table",
      { class: "sheet totals-only" },
      h("caption", null, "Totals (they may go below zero)."),
      h("thead", null, h("tr", null, names.map((who) => h("th", { scope: "col" }, who)))),
      h("tbody", null, h("tr", null, view.totals.map((total, seat) => h("td", { class: ["total", total < 0 && "negative", winners.has(seat) && "winner"], "data-seat": seat }, signed(total), winners.has(seat) ? " ★" : "")))),
    ),
    h(
      "table",
      { class: "sheet pots" },
      h("caption", null, "Pot by pot."),
      h("thead", null, h("tr", null, ["Pot", "Ended by", "Cards", "Toxicity", "Points"].map((label) => h("th", { scope: "col" }, label)))),
      h(
        "tbody",
        null,
        pots.length
          ? pots
              .map((pot, i) =>
                h(
                  "tr",
                  { class: `outcome-${pot.outcome}`, "data-pot": i + 1 },
                  h("th", { scope: "row" }, String(i + 1)),
                  h("td", { title: `${names[pot.seat]} ${pot.outcome === "closed" ? "closed it" : "exploded it"}` }, names[pot.seat]),
                  h("td", { class: "mini-cards" }, pot.cards.map((code) => card(code, { size: "tiny" }))),
                  h("td", null, String(pot.toxicity)),
                  h("td", { class: ["points", pot.points < 0 && "negative"] }, pot.outcome === "exploded" ? "boom: 0" : signed(pot.points)),
                ),
              )
              .reverse()
          : h("tr", null, h("td", { colspan: 5, class: "empty" }, "No pot has ended yet.")),
      ),
    ),
  );
}

/** Running totals after each pot that ended, one line per seat, for the chart. */
export function series(scores, count = scores.pots.length) {
  const pots = scores.pots.slice(0, count);
  const labels = ["start", ...pots.map((_, i) => String(i + 1))];
  const lines = scores.totals.map((_, seat) => {
    let sum = 0;
    return [0, ...pots.map((pot) => (sum += pot.seat === seat ? pot.points : 0))];
  });
  return { labels, lines, axis: "pot" };
}

export function hiddenHands(view) {
  return { hands: view.all.hands, extra: view.all.draw_pile.length ? [{ label: "Draw pile, top first", cards: view.all.draw_pile }] : [] };
}
