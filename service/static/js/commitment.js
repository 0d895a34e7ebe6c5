// A game's commitment to its deals (docs/security.md, "Fair deals"): the table shows it from
// the start, so that a player can note it before anything is played, and says whether it
// holds only in the words of a replay answer (`POST /v1/replays`, its `commitment` field).
// The page never hashes anything itself: the verdict is the service's, checked against the
// rules along with every other event of the log.

import { api } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { noticeBoard } from "./notices.js";

/** How many hex digits of the commitment the page shows at a glance (the whole on hover). */
const SHORT = 16;

/** The commitment, short, with the whole of it in its title (and for a screen reader). */
export function commitmentCode(commitment) {
  return h("code", { class: "commitment-code", title: commitment, "aria-label": t("deals.code.label", { commitment }), "data-commitment": commitment }, `${commitment.slice(0, SHORT)}…`);
}

/** What each of the replay answer's words says of the deals, in a sentence. */
const VERDICTS = {
  holds: (commitment) => [t("deals.holds"), commitment ? [" (", commitmentCode(commitment), ")"] : null, t("deals.holds.end")],
  none: () => [t("deals.none")],
};

/** A replay answer's verdict on the deals, as a line of the page. */
export function verdict(answer) {
  const word = answer.commitment;
  const said = VERDICTS[word]?.(answer.game.seed_commitment) ?? [t("deals.other", { word })];
  return h("p", { class: ["commitment-verdict", `commitment-${word}`], role: "status", "data-commitment-status": word }, said);
}

/**
 * The live table's panel of the commitment: shown short (and in full when opened) from the
 * first view on; once the game is over, "Check the deals" replays its exported log and says
 * what the service answered. `show(view)` keeps it in step with the game.
 */
export function dealsPanel(gameId) {
  const notices = noticeBoard();
  const summary = h("summary");
  const body = h("div", { class: "deals-body" });
  const element = h("details", { class: "panel deals" }, summary, body);
  let view = null;
  let drawn = null; // the commitment and status drawn: redrawn only when they change, keeping the focus
  let checking = false;
  let answered = null; // the replay answer's verdict, once asked

  async function check() {
    checking = true;
    notices.clear();
    redraw();
    try {
      answered = verdict(await api.replay(await api.exported(gameId)));
    } catch (problem) {
      notices.problem(problem, problem.body?.at_version ? t("replay.bad_event", { version: problem.body.at_version }) : "");
    } finally {
      checking = false;
      redraw();
    }
  }

  function redraw() {
    const commitment = view.seed_commitment;
    const over = view.status === "finished" || view.status === "abandoned";
    if (!commitment) {
      fill(summary, t("deals.summary.none"));
      fill(body, h("p", { class: "hint" }, t("deals.body.none")));
      return;
    }
    fill(summary, t("deals.summary"), commitmentCode(commitment));
    fill(body, 
      h("p", { class: "deals-whole" }, h("code", { class: "commitment-whole" }, commitment)),
      h(
        "p",
        { class: "hint" },
        over
          ? t("deals.over")
          : t("deals.active"),
      ),
      notices.element,
      answered,
      over && !answered ? h("button", { type: "button", class: "check-deals", disabled: checking, on: { click: check } }, checking ? t("deals.checking") : t("deals.check")) : null,
    );
  }

  return {
    element,
    show(now) {
      view = now;
      const key = `${now.seed_commitment}:${now.status}`;
      if (key === drawn) return;
      drawn = key;
      redraw();
    },
  };
}
