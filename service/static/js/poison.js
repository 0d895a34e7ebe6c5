// Poison at the table (docs/poison.md): its cards, its three cauldrons, its words for what
// happened, its score sheet. The rules stay on the server: which card may go where comes
// from the view's `legal_moves`; this module only draws the game and names its moves.

import { cardBack, cardFace } from "./cards.js";
import { createdNames, winnersLine } from "./seating.js";
import { h } from "./dom.js";
import { gauge } from "./gauge.js";
import { number, t, tn, who } from "./i18n.js";

export const name = "poison";
export const title = t("poison.title");
export const lowestWins = true;
/** A cauldron whose total goes above this overflows (docs/poison.md; the page's tests hold it to the core's). */
export const OVERFLOW_ABOVE = 13;
export const eventTypes = ["game_created", "round_started", "card_played", "cauldron_overflowed", "round_scored", "game_finished"];
/** The events after which the score sheet has one more line. */
export const scoringEvents = ["round_scored"];
export const help = t("poison.rules", { limit: OVERFLOW_ABOVE });

/** Words for the lobby's fields; the fields themselves and their bounds come from the API document. */
export const optionHints = {
  rounds: t("poison.hint.rounds"),
  cauldrons: t("poison.hint.cauldrons"),
};
export const defaultSeats = 3;

const KINDS = { R: "red", B: "blue", P: "purple", G: "poison" };
const TALLY_ORDER = ["red", "blue", "purple", "poison"];
/** The score sheet's mark for each kind taken: a letter per colour, and poison its skull, as on its cards. */
const TALLY_MARKS = { red: "R", blue: "B", purple: "P", poison: "☠" };
const TALLY_LEGEND = TALLY_ORDER.map((kind) => t("poison.sheet.legend", { mark: TALLY_MARKS[kind], kind: t(`kind.${kind}`) })).join(", ");

export function face(code) {
  const kind = KINDS[code[0]];
  const value = Number(code.slice(1));
  const word = t(`kind.${kind}`);
  return { code, value, kind, word, label: t("poison.card", { kind: word, value }) };
}

/** The score sheet's lines: one per round scored. */
export const lines = (scores) => scores.rounds;
export const formatTotal = (total) => number(total);

export const card = (code, options) => cardFace(face(code), options);

const cauldronName = (index) => t("poison.cauldron", { number: index + 1 });

export function status(view) {
  return [t("poison.status.round", { round: view.round, rounds: view.rounds }), t("poison.status.cauldrons", { cauldrons: view.rules.cauldrons })];
}

export function seatFacts(player, { event } = {}) {
  const grew = event?.type === "cauldron_overflowed" && event.data.seat === player.seat;
  return [
    h(
      "span",
      { class: ["pile", grew && "grew"], title: t("poison.pile.title") },
      cardBack(player.taken, t("poison.pile.label", { count: player.taken })),
      t("poison.pile.taken"),
    ),
  ];
}

/** The legal moves of `code` from the view: one per cauldron it may go into, key 1–3. */
export function targets(view, code) {
  return (view.you?.legal_moves ?? [])
    .filter((move) => move.card === code)
    .map((move) => ({ key: String(move.cauldron + 1), move, where: move.cauldron, label: t("poison.target", { card: code, cauldron: cauldronName(move.cauldron) }) }));
}

export const prompt = {
  pick: t("poison.prompt.pick"),
  place: (code) => t("poison.prompt.place", { card: face(code).label }),
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

function cauldronGauge(total) {
  const limit = OVERFLOW_ABOVE;
  return gauge(total, limit, { title: t("poison.gauge.title", { total, limit }), over: t("poison.gauge.over", { limit }), of: t("poison.gauge.of", { limit }) });
}

function cauldron(shown, index, { target, play, fresh, took, names, moment }) {
  const colour = shown.color ?? "none";
  const word = shown.color ? t(`kind.${shown.color}`) : t("poison.colourless");
  const cards = shown.cards.map((code, i) => card(code, { size: "small", fresh: fresh && i === shown.cards.length - 1 }));
  const attrs = {
    class: ["cauldron", `colour-${colour}`, moment && "overflowing", target && "target"],
    "data-cauldron": index,
    "data-total": shown.total,
  };
  const body = [
    h("div", { class: "cauldron-head" }, h("span", { class: "cauldron-name" }, t("poison.Cauldron", { number: index + 1 })), h("span", { class: "cauldron-colour" }, word)),
    cauldronGauge(shown.total),
    h("div", { class: "cauldron-cards" }, cards.length ? cards : h("span", { class: "empty" }, t("board.empty"))),
    moment && h("div", { class: "ribbon ribbon-over" }, tn("poison.ribbon.over", { name: who(names[moment.seat]) })),
    took && h("div", { class: "ribbon ribbon-took" }, tn("poison.ribbon.took", { name: who(names[took.seat]), count: took.taken.length }), h("span", { class: "flight" }, took.taken.map((code) => card(code, { size: "tiny" })))),
    target && h("span", { class: "drop-hint" }, t("poison.drop"), h("span", { class: "wide-only" }, t("poison.drop.here")), t("board.key", { key: target.key })),
  ];
  if (!target) return h("div", attrs, body);
  return h("button", { ...attrs, type: "button", "aria-label": t("board.target", { label: target.label, key: target.key }), on: { click: () => play(target.move) } }, body);
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

/** What an event of Poison's own says in the feed; null for any other (games.js, describe). */
export function describe(event, names) {
  const d = event.data;
  switch (event.type) {
    case "game_created":
      return tn("poison.feed.created", { names: createdNames(d.players), rounds: d.rounds, cauldrons: d.rules.cauldrons });
    case "round_started":
      return tn("poison.feed.round", { round: d.round, name: who(names[d.dealer]) });
    case "card_played":
      return tn("poison.feed.played", { name: who(names[d.seat]), card: face(d.card).label, cauldron: cauldronName(d.cauldron), total: d.total });
    case "cauldron_overflowed":
      return tn("poison.feed.overflowed", { number: d.cauldron + 1, name: who(names[d.seat]), cards: d.taken.join(" ") });
    case "round_scored":
      return tn("poison.feed.scored", { round: d.round, scores: d.scores.flatMap((score, seat) => [seat ? ", " : "", ...tn("poison.feed.score", { name: who(names[seat]), score })]) });
    default:
      return null;
  }
}

export const winnersText = (winners, totals, names) => winnersLine("poison.winner", winners, names, totals[winners[0]]);

/** The score sheet, round by round (games.js, sheet): each seat's score and what it took, discards struck. */
export function sheet(rounds, view, names, winners) {
  return h(
    "table",
    { class: "sheet" },
    h("caption", null, t("poison.sheet.caption", { legend: TALLY_LEGEND })),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("poison.sheet.round")), names.map((name) => h("th", { scope: "col" }, who(name))))),
    h(
      "tbody",
      null,
      rounds.length
        ? rounds.map((round) =>
            h(
              "tr",
              { "data-round": round.round },
              h("th", { scope: "row" }, t("poison.sheet.row", { round: round.round })),
              round.scores.map((score, seat) =>
                h(
                  "td",
                  null,
                  h("strong", { class: "score" }, number(score)),
                  h(
                    "span",
                    { class: "tallies" },
                    TALLY_ORDER.filter((kind) => round.taken[seat][kind] > 0).map((kind) => {
                      const discarded = round.discarded[seat].includes(kind);
                      const count = round.taken[seat][kind];
                      return h(
                        "span",
                        { class: ["tally", `kind-${kind}`, discarded && "discarded"], title: t(discarded ? "poison.sheet.tally_discarded" : "poison.sheet.tally", { count, kind: t(`kind.${kind}`) }) },
                        `${TALLY_MARKS[kind]}×${count}`,
                      );
                    }),
                  ),
                ),
              ),
            ),
          )
        : h("tr", null, h("td", { colspan: names.length + 1, class: "empty" }, t("poison.sheet.none"))),
    ),
    h(
      "tfoot",
      null,
      h(
        "tr",
        null,
        h("th", { scope: "row" }, t("sheet.total")),
        view.totals.map((total, seat) => h("td", { class: ["total", winners.has(seat) && "winner"], "data-seat": seat }, number(total), winners.has(seat) ? " ★" : "")),
      ),
    ),
  );
}

/** Running totals after each round, one line per seat, for the chart. */
export function series(scores, count = scores.rounds.length) {
  const rounds = scores.rounds.slice(0, count);
  const labels = [t("chart.start"), ...rounds.map((round) => t("poison.chart.round", { round: round.round }))];
  const lines = scores.totals.map((_, seat) => {
    let sum = 0;
    return [0, ...rounds.map((round) => (sum += round.scores[seat]))];
  });
  return { labels, lines, axis: "round" };
}

/** In a replay, every hand is public: each seat's, and the hand set aside with three players. */
export function hiddenHands(view) {
  const extra = view.all.set_aside.length ? [{ label: t("poison.set_aside"), cards: view.all.set_aside }] : [];
  return { hands: view.all.hands, extra };
}
