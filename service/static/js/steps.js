// A finished (or abandoned) game, step by step: its public log (`/events`), the game after each event
// (time travel, `?version=N`) and its score sheet (`/scores`). The step is kept in the
// fragment, so a link can point at a moment of a game.

import { api } from "./api.js";
import { isOver } from "./away.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { gameOf } from "./games.js";
import { noticeBoard } from "./notices.js";
import { links } from "./route.js";
import { stepper } from "./stepper.js";

export function mountSteps(root, { gameId, version }) {
  let unmount = null;
  let stopped = false;
  (async () => {
    try {
      const [events, scores, now] = await Promise.all([api.events(gameId), api.scores(gameId), api.view(gameId)]);
      if (stopped) return;
      const game = gameOf(now.ruleset);
      unmount = stepper(root, {
        game,
        heading: t("steps.heading", { game: game.title }),
        events,
        start: version ?? events.length,
        viewAt: (n) => api.view(gameId, { version: n }),
        scores,
        onStep: (n) => history.replaceState(null, "", links.steps(gameId, n)),
        extra: h("nav", { class: "table-links" }, h("a", { href: links.watch(gameId) }, t("steps.back_to_table")), isOver(scores) ? h("a", { href: api.exportUrl(gameId), download: `${game.name}-${gameId}.ndjson` }, t("table.download")) : null),
      });
    } catch (problem) {
      const board = noticeBoard();
      root.replaceChildren(h("section", { class: "steps-screen" }, board.element, h("p", null, h("a", { href: links.lobby() }, t("table.back")))));
      board.problem(problem);
    }
  })();
  return () => {
    stopped = true;
    unmount?.();
  };
}
