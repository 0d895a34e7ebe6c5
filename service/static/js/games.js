// Every game the table can show, by the `ruleset` name the API gives it. The screens look a
// game's module up here and never branch on its name (as the service's registry does).

import * as poison from "./poison.js";
import * as pot from "./pot.js";

const GAMES = { [poison.name]: poison, [pot.name]: pot };

export function gameOf(ruleset) {
  const game = GAMES[ruleset];
  if (!game) throw new Error(`This page does not know the ruleset ${JSON.stringify(ruleset)} yet.`);
  return game;
}

export const rulesets = Object.keys(GAMES);

/** The listing names no ruleset for a game of Poison (docs/http-api.md, "List games"). */
export const rulesetOfListed = (entry) => entry.ruleset ?? poison.name;
