// The lobby's list of the seats this browser holds (held.js): each one's game, name and
// status as the API says it now (one public read a game, no token sent), a link that
// resumes the seat, and a way to forget it (asked first while its game is on: the seat's
// link is then the only way back to it).

import { api } from "./api.js";
import { awayBadge, isOver } from "./away.js";
import { h, fill } from "./dom.js";
import { has, refusal, t, tn, who } from "./i18n.js";
import { gameOf } from "./games.js";
import { heldSeats, release } from "./held.js";
import { links } from "./route.js";

function titleOf(ruleset) {
  try {
    return gameOf(ruleset).title;
  } catch {
    return ruleset; // a ruleset this page does not know: its name
  }
}

const statusWord = (status) => (has(`status.${status}`) ? t(`status.${status}`) : status);

/** The panel, empty (hidden) while this browser holds no seat. */
export function heldPanel() {
  const panel = h("section", { class: "panel held", "aria-labelledby": "held-title" });

  function draw() {
    const entries = heldSeats();
    panel.hidden = entries.length === 0;
    fill(
      panel,
      h("h2", { id: "held-title" }, t("held.title")),
      h("p", { class: "hint" }, t("held.hint")),
      h("ul", { class: "held-seats" }, entries.map(row)),
    );
  }

  function row(entry) {
    const status = h("span", { class: "held-status" }, h("span", { class: "status" }, t("held.reading")));
    const actions = h("div", { class: "actions" });
    const question = h("p", { class: "forget-question", role: "alert", hidden: true }, t("held.forget.question"));
    const item = h(
      "li",
      { class: "held-seat", "data-game": entry.game_id, "data-seat": entry.seat, "data-status": "" },
      h("span", { class: "held-game" }, h("span", { class: "game-kind" }, titleOf(entry.ruleset)), h("code", { class: "game-id", dir: "ltr" }, entry.game_id)),
      h("span", { class: "held-as" }, tn("held.as", { name: who(entry.name ?? ""), seat: entry.seat + 1 })),
      status,
      actions,
      question,
    );
    let over = false;
    let gone = false; // no such game: nothing to resume

    function forget() {
      release(entry.game_id, entry.seat, entry.token);
      item.remove();
      panel.hidden = heldSeats().length === 0;
    }

    function offer() {
      question.hidden = true;
      fill(
        actions,
        gone ? null : h("a", { class: "button primary resume", href: links.seat(entry.game_id, entry.token) }, t("held.resume")),
        h("button", { type: "button", class: "forget", on: { click: () => (over ? forget() : ask()) } }, t("held.forget")),
      );
    }

    function ask() {
      question.hidden = false;
      fill(
        actions,
        h("button", { type: "button", class: "danger forget-yes", on: { click: forget } }, t("held.forget.yes")),
        h("button", { type: "button", class: "forget-no", on: { click: offer } }, t("held.forget.no")),
      );
      actions.querySelector(".forget-no").focus();
    }

    offer();
    api.view(entry.game_id).then(
      (view) => {
        over = isOver(view);
        item.dataset.status = view.status;
        const player = view.players[entry.seat];
        const mine = view.status === "active" && view.turn === entry.seat && !player?.away;
        fill(
          status,
          h("span", { class: ["status", `status-${view.status}`], "data-status": view.status }, statusWord(view.status)),
          mine ? h("span", { class: "badge badge-you" }, t("held.your_turn")) : null,
          player && !over ? awayBadge(player, null) : null,
          view.status === "finished" && view.winners.includes(entry.seat) ? h("span", { class: "badge badge-winner" }, t("badge.winner")) : null,
        );
      },
      (problem) => {
        // A game that cannot be read is no game to resume: it may be forgotten at once.
        over = gone = problem.status === 404;
        item.dataset.status = "unreadable";
        fill(status, h("span", { class: "status status-unreadable", title: problem.detail }, refusal(problem).title));
        offer();
      },
    );
    return item;
  }

  draw();
  return panel;
}
