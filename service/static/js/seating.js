// The lobby's part of a game, the same for every ruleset (docs/http-api.md, "Lobby"): seats
// left open for anyone to join, who has joined or left while the game waits, its start, and
// the next game of a finished one ("play again"). The table and the lobby draw these from
// here; the rules of each game stay in its own module.

import { h } from "./dom.js";
import { listing, t, tn, who } from "./i18n.js";

/** The lobby's events, which a game of any ruleset may log and stream. */
export const LOBBY_EVENTS = ["seat_joined", "seat_left", "game_started", "rematch_created"];

/** The search bot's name on the wire (docs/http-api.md): only its seats take `playouts`. */
export const SEARCH_BOT = "mcts";

/** A search bot's strength in words: "2,000 playouts" (the playouts of each of its moves). */
export const strength = (playouts) => t("seat.strength", { playouts });

/** What plays a seat, as badges: "bot · greedy"; a search bot's strength in a badge of its
 * own beside it, "2,000 playouts" (the API shows a search bot's seat with the playouts it
 * plays with, its default included), which wraps to the next line in a narrow seat. */
export const botBadges = (player) =>
  player.bot ? [h("span", { class: "badge badge-bot" }, t("seat.bot", { bot: player.bot })), player.playouts == null ? null : h("span", { class: "badge badge-strength", title: t("seat.strength.title") }, strength(player.playouts))] : [];

/** The seats the search bot plays: their moves may take a while to come. */
export const searchers = (view) => view.players.filter((player) => player.bot === SEARCH_BOT);

/** A seat nobody has taken yet: the API shows it `open`, with no name. */
export const isOpen = (player) => player.open === true || player.name === null || player.name === undefined;

/** A seat's name as the page writes it: an open seat has none yet. */
export const seatName = (player) => (isOpen(player) ? t("seat.open_name", { seat: player.seat + 1 }) : player.name);

/** The names the feed and the boards use, one per seat (an open seat's in words). */
export const namesOf = (view) => view.players.map(seatName);

export const openSeats = (view) => view.players.filter(isOpen).map((player) => player.seat);

/** What a lobby event says in the feed, or null for any other event (its ruleset tells it). */
export function describeLobby(event, names) {
  const d = event.data ?? {};
  switch (event.type) {
    case "seat_joined":
      return tn("lobby.feed.joined", { name: who(d.name), seat: d.seat + 1 });
    case "seat_left":
      return names[d.seat] && names[d.seat] !== t("seat.open_name", { seat: d.seat + 1 })
        ? tn("lobby.feed.left", { name: who(names[d.seat]), seat: d.seat + 1 })
        : t("lobby.feed.left_someone", { seat: d.seat + 1 });
    case "game_started":
      return t("lobby.feed.started");
    case "rematch_created":
      return t("lobby.feed.rematch");
    default:
      return null;
  }
}

/** The message `key` of a game's winners: how many (`count`), who (`who`), and the `total` that won, as the game shows it. */
export const winnersLine = (key, winners, names, total) => tn(key, { count: winners.length, who: listing(winners.map((seat) => who(names[seat]))), total });

/** A game's `game_created` names its players; an open seat has no name yet. */
export const createdNames = (players) => listing(players.map((player) => (player.name == null ? t("seat.an_open_seat") : who(player.name))));

/**
 * The seats of a waiting game: who sits where, which seats are open. `you`: the caller's
 * seat (or null); `leave`: called by the "Leave" button of a seat held here.
 */
export function waitingRoom(view, { you = null, leave = null, leaving = false } = {}) {
  const open = openSeats(view);
  return h(
    "section",
    { class: "panel waiting-room", "aria-label": t("waiting.label"), "data-open": open.length },
    h("h2", null, t("waiting.title", { open: open.length })),
    h(
      "p",
      { class: "hint" },
      t("waiting.hint"),
      h("a", { href: "#/?status=waiting" }, t("waiting.hint.link")),
      t("waiting.hint.after"),
    ),
    h(
      "ol",
      { class: "waiting-seats" },
      view.players.map((player) =>
        h(
          "li",
          { class: ["waiting-seat", isOpen(player) ? "is-open" : "is-taken", you === player.seat && "you"], "data-seat": player.seat, "data-open": isOpen(player) ? "true" : "false" },
          h("span", { class: "seat-number" }, t("waiting.seat", { seat: player.seat + 1 })),
          h("span", { class: "name" }, isOpen(player) ? t("waiting.open") : who(player.name)),
          ...botBadges(player),
          you === player.seat ? h("span", { class: "badge badge-you" }, t("badge.you")) : null,
        ),
      ),
    ),
    leave && you !== null
      ? h(
          "p",
          { class: "leave" },
          h("button", { type: "button", class: "leave-seat", disabled: leaving, on: { click: leave } }, t("waiting.leave")),
          h("span", { class: "hint" }, t("waiting.leave.hint")),
        )
      : null,
  );
}
