// The away seats, the same for every ruleset (docs/clocks.md): a person whose clock ran out,
// or who resigned, is away and a bot plays the seat; one who timed out may come back; a game
// no person is left to play ends abandoned, without winners. The view says which seats are
// away (`away`, `resigned`); which bot took each is said by the event that made it away, so
// the bots are read from the log as it goes by. The table, the steps and the lobby draw these
// from here.

import { h } from "./dom.js";
import { t, tn, who } from "./i18n.js";

/** The away seats' events, which a game of any ruleset may log and stream. */
export const AWAY_EVENTS = ["seat_timed_out", "seat_resigned", "seat_returned", "game_abandoned"];

/** A game that is over: finished with its winners, or abandoned without any. */
export const isOver = (view) => view.status === "finished" || view.status === "abandoned";

/** Which bot plays each away seat (seat -> bot) after `event`, in `bots` (a Map, changed in place). */
export function noteAway(bots, event) {
  const d = event.data ?? {};
  if (event.type === "seat_timed_out" || event.type === "seat_resigned") bots.set(d.seat, d.bot);
  else if (event.type === "seat_returned") bots.delete(d.seat);
  return bots;
}

/** The bots playing away seats after all of `events`. */
export const awayBots = (events) => events.reduce(noteAway, new Map());

/** The bot playing an away seat, as the view names it (`away_bot`), else as its event said,
 * else in words. */
const botOf = (player, bots) => player.away_bot ?? bots?.get(player.seat) ?? t("away.a_bot");

/** A seat's badge while its person is away: "away — greedy plays", "resigned — greedy plays". */
export function awayBadge(player, bots) {
  if (!player.away && !player.resigned) return null;
  const key = player.resigned ? "away.badge.resigned" : "away.badge.away";
  return h("span", { class: ["badge", "badge-away", player.resigned && "badge-resigned"], "data-away": player.resigned ? "resigned" : "away" }, t(key, { bot: botOf(player, bots) }));
}

/** What an away seat's event says in the feed, or null for any other event. */
export function describeAway(event, names) {
  const d = event.data ?? {};
  switch (event.type) {
    case "seat_timed_out":
      return tn("away.feed.timed_out", { name: who(names[d.seat]), bot: d.bot });
    case "seat_resigned":
      return tn("away.feed.resigned", { name: who(names[d.seat]), bot: d.bot });
    case "seat_returned":
      return tn("away.feed.returned", { name: who(names[d.seat]) });
    case "game_abandoned":
      return t("away.feed.abandoned");
    default:
      return null;
  }
}

/** The end of an abandoned game, as the banner says it. */
export const abandonedLine = () => h("span", { class: "game-over game-abandoned" }, t("away.abandoned"));

/** What the seat held here says of itself while away: "Your time ran out: greedy plays your seat." */
export function yourAway(player, bots) {
  if (player.resigned) return t("away.you.resigned", { bot: botOf(player, bots) });
  if (player.away) return t("away.you.away", { bot: botOf(player, bots) });
  return null;
}
