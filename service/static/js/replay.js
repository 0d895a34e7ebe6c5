// Replaying an exported log (NDJSON, as `GET …/export` gives it): drop the file on the page
// or choose it, and the service checks it (`POST /v1/replays`) and shows the game it
// describes, step by step (`?version=N`), every hand face up, and says whether the log's
// commitment to its deals holds (the answer's `commitment`). Nothing is stored; a log the
// rules could not have written (or whose commitment breaks) is refused with the version of
// its first bad event.

import { api } from "./api.js";
import { verdict } from "./commitment.js";
import { h } from "./dom.js";
import { isolated, t } from "./i18n.js";
import { gameOf } from "./games.js";
import { noticeBoard } from "./notices.js";
import { stepper } from "./stepper.js";

/** A file dropped elsewhere (the lobby), waiting for this screen to open. */
let handed = null;

export function replayLater(file) {
  handed = file;
}

export function mountReplay(root) {
  const notices = noticeBoard();
  const input = h("input", { type: "file", accept: ".ndjson,.jsonl,.json,application/x-ndjson", class: "file-input", "aria-label": t("replay.input") });
  const zone = h(
    "label",
    { class: "drop-zone", "data-drop": "log" },
    h("strong", null, t("replay.drop")),
    h("span", null, t("replay.drop.hint")),
    input,
  );
  const screen = h("section", { class: "replay-screen" }, h("div", { class: "table-top" }, h("h1", null, t("replay.title"))), notices.element, zone);
  root.replaceChildren(screen);
  let unmount = null;

  async function replay(file) {
    notices.clear();
    zone.classList.add("busy");
    try {
      const text = await file.text();
      const whole = await api.replay(text);
      // The service has checked every line; the page reads them only to say what each was.
      const events = text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
      const game = gameOf(whole.game.ruleset);
      const cache = new Map([[whole.version, whole.game]]);
      unmount?.();
      const stage = h("div", { class: "replayed" });
      screen.replaceChildren(screen.firstChild, notices.element, zone, verdict(whole), stage);
      zone.classList.add("compact");
      unmount = stepper(stage, {
        game,
        heading: t("replay.heading", { file: isolated(file.name), game: game.title }),
        events,
        start: 1,
        everything: true,
        scores: whole.scores,
        async viewAt(n) {
          if (!cache.has(n)) cache.set(n, (await api.replay(text, n)).game);
          return cache.get(n);
        },
      });
    } catch (problem) {
      const where = problem.body?.at_version ? t("replay.bad_event", { version: problem.body.at_version }) : "";
      notices.problem(problem, where);
    } finally {
      zone.classList.remove("busy");
    }
  }

  input.addEventListener("change", () => input.files[0] && replay(input.files[0]));
  // A file dropped anywhere on the page is replayed (and never opened by the browser instead).
  function dragOver(event) {
    event.preventDefault();
    zone.classList.add("over");
  }
  function drop(event) {
    event.preventDefault();
    zone.classList.remove("over");
    const file = event.dataTransfer?.files?.[0];
    if (file) replay(file);
  }
  const leave = () => zone.classList.remove("over");
  document.addEventListener("dragover", dragOver);
  document.addEventListener("dragleave", leave);
  document.addEventListener("drop", drop);
  if (handed) {
    replay(handed);
    handed = null;
  }
  return () => {
    unmount?.();
    document.removeEventListener("dragover", dragOver);
    document.removeEventListener("dragleave", leave);
    document.removeEventListener("drop", drop);
  };
}
