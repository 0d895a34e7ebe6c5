// The lobby's part of a game, the same for every ruleset (docs/http-api.md, "Lobby"): seats
// left open for anyone to join, who has joined or left while the game waits, its start, and
// the next game of a finished one ("play again"). The table and the lobby draw these from
// here; the rules of each game stay in its own module.

import { h, listing } from "./dom.js";

/** The lobby's events, which a game of any ruleset may log and stream. */
export const LOBBY_EVENTS = ["seat_joined", "seat_left", "game_started", "rematch_created"];

/** The search bot's name on the wire (docs/http-api.md): only its seats take `playouts`. */
export const SEARCH_BOT = "mcts";

/** A search bot's strength in words: "2,000 playouts" (the playouts of each of its moves). */
export const strength = (playouts) => `${playouts.toLocaleString("en")} playout${playouts === 1 ? "" : "s"}`;

/** What plays a seat, as badges: "bot · greedy"; a search bot's strength in a badge of its
 * own beside it, "2,000 playouts" (the API shows a search bot's seat with the playouts it
 * plays with, its default included), which wraps to the next line in a narrow seat. */
export const botBadges = (player) =>
  player.bot ? [h("span", { class: "badge badge-bot" }, `bot · ${player.bot}`), player.playouts == null ? null : h("span", { class: "badge badge-strength", title: "playouts a move: more plays stronger" }, strength(player.playouts))] : [];

/** The seats the search bot plays: their moves may take a while to come. */
export const searchers = (view) => view.players.filter((player) => player.bot === SEARCH_BOT);

/** A seat nobody has taken yet: the API shows it `open`, with no name. */
export const isOpen = (player) => player.open === true || player.name === null || player.name === undefined;

/** A seat's name as the page writes it: an open seat has none yet. */
export const seatName = (player) => (isOpen(player) ? `open seat ${player.seat + 1}` : player.name);

/** The names the feed and the boards use, one per seat (an open seat's in words). */
export const namesOf = (view) => view.players.map(seatName);

export const openSeats = (view) => view.players.filter(isOpen).map((player) => player.seat);

/** What a lobby event says in the feed, or null for any other event (its ruleset tells it). */
export function describeLobby(event, names) {
  const d = event.data ?? {};
  switch (event.type) {
    case "seat_joined":
      return `${d.name} joined at seat ${d.seat + 1}.`;
    case "seat_left":
      return `${names[d.seat] && !names[d.seat].startsWith("open seat") ? names[d.seat] : `The player at seat ${d.seat + 1}`} left: seat ${d.seat + 1} is open again.`;
    case "game_started":
      return "Every seat is taken: the game starts.";
    case "rematch_created":
      return "A rematch was set up: the same table plays again.";
    default:
      return null;
  }
}

/** A game's `game_created` names its players; an open seat has no name yet. */
export const createdNames = (players) => listing(players.map((player) => player.name ?? "an open seat"));

/**
 * The seats of a waiting game: who sits where, which seats are open. `you`: the caller's
 * seat (or null); `leave`: called by the "Leave" button of a seat held here.
 */
export function waitingRoom(view, { you = null, leave = null, leaving = false } = {}) {
  const open = openSeats(view);
  return h(
    "section",
    { class: "panel waiting-room", "aria-label": "Seats of the waiting game", "data-open": open.length },
    h("h2", null, open.length === 1 ? "Waiting for one more player" : `Waiting for ${open.length} more players`),
    h(
      "p",
      { class: "hint" },
      "Nothing is dealt until every seat is taken. Anyone may join an open seat from the lobby's ",
      h("a", { href: "#/?status=waiting" }, "waiting games"),
      ": this page shows them as they arrive.",
    ),
    h(
      "ol",
      { class: "waiting-seats" },
      view.players.map((player) =>
        h(
          "li",
          { class: ["waiting-seat", isOpen(player) ? "is-open" : "is-taken", you === player.seat && "you"], "data-seat": player.seat, "data-open": isOpen(player) ? "true" : "false" },
          h("span", { class: "seat-number" }, `Seat ${player.seat + 1}`),
          h("span", { class: "name" }, isOpen(player) ? "open: anyone may join" : player.name),
          ...botBadges(player),
          you === player.seat ? h("span", { class: "badge badge-you" }, "you") : null,
        ),
      ),
    ),
    leave && you !== null
      ? h(
          "p",
          { class: "leave" },
          h("button", { type: "button", class: "leave-seat", disabled: leaving, on: { click: leave } }, "Leave the seat"),
          h("span", { class: "hint" }, " Leaving opens your seat again for someone else; your link stops working."),
        )
      : null,
  );
}
