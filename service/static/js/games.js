// Every game the table can show, by the `ruleset` name the API gives it. The screens look a
// game's module up here and never branch on its name (as the service's registry does).

import { t, tn } from "./i18n.js";
import * as poison from "./poison.js";
import * as pot from "./pot.js";

const GAMES = { [poison.name]: poison, [pot.name]: pot };

export function gameOf(ruleset) {
  const game = GAMES[ruleset];
  if (!game) throw new Error(`This page does not know the ruleset ${JSON.stringify(ruleset)} yet.`);
  return game;
}

export const rulesets = Object.keys(GAMES);

/** How many lines `game`'s score sheet has (rounds, pots scored). */
export const scoredCount = (game, scores) => game.lines(scores).length;

/**
 * The score sheet of `game` as it stood after its first `count` lines (rounds, pots), with the
 * view's totals and its winners (a Set of seats) marked.
 */
export const sheet = (game, scores, view, names, count) => game.sheet(game.lines(scores).slice(0, count), view, names, new Set(view.winners));

/**
 * What an event of `game` says in the feed: the game's own words for its own events, and every
 * game's for its end and for an event no game has words for (its type, in words).
 */
export function describe(game, event, names) {
  const line = game.describe(event, names);
  if (line != null) return line;
  if (event.type === "game_finished") return tn("feed.over", { winners: game.winnersText(event.data.winners, event.data.totals, names) });
  return t("feed.other", { type: event.type.replaceAll("_", " ") });
}

/** The listing names no ruleset for a game of Poison (docs/http-api.md, "List games"). */
export const rulesetOfListed = (entry) => entry.ruleset ?? poison.name;
