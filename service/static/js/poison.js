// Poison at the table (docs/poison.md): its cards, its three cauldrons, its words for what
// happened, its score sheet. The rules stay on the server: which card may go where comes
// from the view's `legal_moves`; this module only draws the game and names its moves.

import { cardBack, cardFace } from "./cards.js";
import { createdNames } from "./seating.js";
import { h, listing } from "./dom.js";

export const name = "poison";
export const title = "Poison";
export const lowestWins = true;
/** A cauldron whose total goes above this overflows (docs/poison.md; the page's tests hold it to the core's). */
export const OVERFLOW_ABOVE = 13;
export const eventTypes = ["game_created", "round_started", "card_played", "cauldron_overflowed", "round_scored", "game_finished"];
/** The events after which the score sheet has one more line. */
export const scoringEvents = ["round_scored"];
export const help =
  "Potions go into the cauldron of their colour, or a colourless one; poison goes anywhere. " +
  `A cauldron above ${OVERFLOW_ABOVE} overflows: whoever played takes the cards that were in it, face down. ` +
  "Taking strictly the most of a colour discards it; each other potion costs 1, each poison 2. Lowest total wins.";

/** Words for the lobby's fields; the fields themselves and their bounds come from the API document. */
export const optionHints = {
  rounds: "blank: one round per player",
  cauldrons: "dynamic: a cauldron takes its potions' colour · fixed: red, blue, purple all game",
};
export const defaultSeats = 3;

const KINDS = { R: "red", B: "blue", P: "purple", G: "poison" };
const TALLY_ORDER = ["red", "blue", "purple", "poison"];
/** The score sheet's mark for each kind taken: a letter per colour, and poison its skull, as on its cards. */
const TALLY_MARKS = { red: "R", blue: "B", purple: "P", poison: "☠" };
const TALLY_LEGEND = TALLY_ORDER.map((kind) => `${TALLY_MARKS[kind]} ${kind}`).join(", ");

export function face(code) {
  const kind = KINDS[code[0]];
  const value = Number(code.slice(1));
  return { code, value, kind, word: kind, label: `${kind} ${value}` };
}

/** How many lines the score sheet has: one per round scored. */
export const scoredCount = (scores) => scores.rounds.length;
export const formatTotal = (total) => String(total);

export const card = (code, options) => cardFace(face(code), options);

const cauldronName = (index) => `cauldron ${index + 1}`;

export function status(view) {
  return [`Round ${view.round} of ${view.rounds}`, `${view.rules.cauldrons} cauldrons`];
}

export function seatFacts(player, { event } = {}) {
  const grew = event?.type === "cauldron_overflowed" && event.data.seat === player.seat;
  return [
    h(
      "span",
      { class: ["pile", grew && "grew"], title: "cards taken this round, face down" },
      cardBack(player.taken, `${player.taken} taken this round, face down`),
      " taken",
    ),
  ];
}

/** The legal moves of `code` from the view: one per cauldron it may go into, key 1–3. */
export function targets(view, code) {
  return (view.you?.legal_moves ?? [])
    .filter((move) => move.card === code)
    .map((move) => ({ key: String(move.cauldron + 1), move, where: move.cauldron, label: `Drop ${code} into ${cauldronName(move.cauldron)}` }));
}

export const prompt = {
  pick: "Your turn: pick a card, then a cauldron.",
  place: (code) => `Now a cauldron for ${face(code).label}: click one, or press its number.`,
};

/**
 * An overflow made visible before the table moves on: the cauldron as the card left it,
 * above the limit, before its player takes the cards. Null for a card that overflows nothing.
 */
export function moment(event, view) {
  if (event.type !== "card_played") return null;
  const cauldron = view.cauldrons[event.data.cauldron];
  const played = face(event.data.card);
  const total = cauldron.total + played.value;
  if (total <= OVERFLOW_ABOVE) return null;
  const colour = cauldron.color ?? (played.kind === "poison" ? null : played.kind);
  return { cauldron: event.data.cauldron, cards: [...cauldron.cards, event.data.card], total, color: colour, seat: event.data.seat };
}

function gauge(total) {
  const state = total > OVERFLOW_ABOVE ? "over" : total >= OVERFLOW_ABOVE - 3 ? "near" : "safe";
  const bar = h("span", { class: "gauge-fill" });
  bar.style.setProperty("--fill", String(Math.min(total / (OVERFLOW_ABOVE + 1), 1)));
  return h(
    "div",
    { class: ["gauge", `gauge-${state}`], title: `total ${total}; overflows above ${OVERFLOW_ABOVE}` },
    h("span", { class: "gauge-total" }, String(total)),
    h("span", { class: "gauge-limit" }, total > OVERFLOW_ABOVE ? `over ${OVERFLOW_ABOVE}!` : `of ${OVERFLOW_ABOVE}`),
    h("span", { class: "gauge-track" }, bar),
  );
}

function cauldron(shown, index, { target, play, fresh, took, names, moment }) {
  const colour = shown.color ?? "none";
  const word = shown.color ?? "colourless";
  const cards = shown.cards.map((code, i) => card(code, { size: "small", fresh: fresh && i === shown.cards.length - 1 }));
  const attrs = {
    class: ["cauldron", `colour-${colour}`, moment && "overflowing", target && "target"],
    "data-cauldron": index,
    "data-total": shown.total,
  };
  const body = [
    h("div", { class: "cauldron-head" }, h("span", { class: "cauldron-name" }, `Cauldron ${index + 1}`), h("span", { class: "cauldron-colour" }, word)),
    gauge(shown.total),
    h("div", { class: "cauldron-cards" }, cards.length ? cards : h("span", { class: "empty" }, "empty")),
    moment && h("div", { class: "ribbon ribbon-over" }, `${names[moment.seat]} overflows it!`),
    took && h("div", { class: "ribbon ribbon-took" }, `${names[took.seat]} took ${took.taken.length} card${took.taken.length === 1 ? "" : "s"}`, h("span", { class: "flight" }, took.taken.map((code) => card(code, { size: "tiny" })))),
    target && h("span", { class: "drop-hint" }, "Drop ", h("span", { class: "wide-only" }, "here "), `· ${target.key}`),
  ];
  if (!target) return h("div", attrs, body);
  return h("button", { ...attrs, type: "button", "aria-label": `${target.label} (key ${target.key})`, on: { click: () => play(target.move) } }, body);
}

/** The three cauldrons; the selected card's legal cauldrons are buttons. */
export function board(view, { moment, event, targets: choices = [], play, names }) {
  const fresh = event?.type === "card_played" ? event.data.cauldron : null;
  const took = event?.type === "cauldron_overflowed" ? event.data : null;
  return h(
    "div",
    { class: "cauldrons" },
    view.cauldrons.map((shown, index) =>
      cauldron(moment?.cauldron === index ? moment : shown, index, {
        target: choices.find((choice) => choice.where === index),
        play,
        fresh: fresh === index,
        took: took?.cauldron === index ? took : null,
        moment: moment?.cauldron === index ? moment : null,
        names,
      }),
    ),
  );
}

export function describe(event, names) {
  const d = event.data;
  switch (event.type) {
    case "game_created":
      return `A game for ${createdNames(d.players)}: ${d.rounds} round${d.rounds === 1 ? "" : "s"}, ${d.rules.cauldrons} cauldrons.`;
    case "round_started":
      return `Round ${d.round}: ${names[d.dealer]} deals.`;
    case "card_played":
      return `${names[d.seat]} played ${face(d.card).label} into ${cauldronName(d.cauldron)} (${d.total}).`;
    case "cauldron_overflowed":
      return `${cauldronName(d.cauldron)[0].toUpperCase()}${cauldronName(d.cauldron).slice(1)} overflowed: ${names[d.seat]} took ${d.taken.join(" ")}.`;
    case "round_scored":
      return `Round ${d.round} scored: ${d.scores.map((score, seat) => `${names[seat]} ${score}`).join(", ")}.`;
    case "game_finished":
      return `Game over: ${winnersText(d.winners, d.totals, names)}.`;
    default:
      return `${event.type.replaceAll("_", " ")}.`;
  }
}

export function winnersText(winners, totals, names) {
  const who = listing(winners.map((seat) => names[seat]));
  const total = totals[winners[0]];
  return winners.length === 1 ? `${who} wins with ${total} (lowest total)` : `${who} share the win with ${total} each (lowest total)`;
}

/** The score sheet, round by round: each seat's score and what it took, discards struck. */
export function sheet(scores, view, names, count) {
  const rounds = scores.rounds.slice(0, count);
  const winners = new Set(view.winners);
  return h(
    "table",
    { class: "sheet" },
    h("caption", null, `Round by round: the score, and the cards taken (${TALLY_LEGEND}; ×2: two cards; struck through: discarded for taking strictly the most).`),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Round"), names.map((who) => h("th", { scope: "col" }, who)))),
    h(
      "tbody",
      null,
      rounds.length
        ? rounds.map((round) =>
            h(
              "tr",
              { "data-round": round.round },
              h("th", { scope: "row" }, `Round ${round.round}`),
              round.scores.map((score, seat) =>
                h(
                  "td",
                  null,
                  h("strong", { class: "score" }, String(score)),
                  h(
                    "span",
                    { class: "tallies" },
                    TALLY_ORDER.filter((kind) => round.taken[seat][kind] > 0).map((kind) => {
                      const discarded = round.discarded[seat].includes(kind);
                      const count = round.taken[seat][kind];
                      return h(
                        "span",
                        { class: ["tally", `kind-${kind}`, discarded && "discarded"], title: `${count} ${kind} taken${discarded ? ": discarded" : ""}` },
                        `${TALLY_MARKS[kind]}×${count}`,
                      );
                    }),
                  ),
                ),
              ),
            ),
          )
        : h("tr", null, h("td", { colspan: names.length + 1, class: "empty" }, "No round scored yet.")),
    ),
    h(
      "tfoot",
      null,
      h(
        "tr",
        null,
        h("th", { scope: "row" }, "Total"),
        view.totals.map((total, seat) => h("td", { class: ["total", winners.has(seat) && "winner"], "data-seat": seat }, String(total), winners.has(seat) ? " ★" : "")),
      ),
    ),
  );
}

/** Running totals after each round, one line per seat, for the chart. */
export function series(scores, count = scores.rounds.length) {
  const rounds = scores.rounds.slice(0, count);
  const labels = ["start", ...rounds.map((round) => `R${round.round}`)];
  const lines = scores.totals.map((_, seat) => {
    let sum = 0;
    return [0, ...rounds.map((round) => (sum += round.scores[seat]))];
  });
  return { labels, lines, axis: "round" };
}

/** In a replay, every hand is public: each seat's, and the hand set aside with three players. */
export function hiddenHands(view) {
  const extra = view.all.set_aside.length ? [{ label: "Set aside", cards: view.all.set_aside }] : [];
  return { hands: view.all.hands, extra };
}
