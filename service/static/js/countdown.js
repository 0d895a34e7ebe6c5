// The game's clock at the table (docs/clocks.md): the seat to move, a person's, has so many
// seconds for its move, and the view says when they run out (`clock.deadline`, the service's
// time). The page counts down to it at that seat, by its own reckoning of the service's time
// (servertime.js), every moment and without drawing the table again. A deadline belongs to
// the game as it is now: the table hands it over only when it shows the game's last version,
// read afresh (a view of a past version knows no time). When the count reaches zero the
// service's timekeeper is about to take the seat: the table is asked to read the game again,
// then again after longer and longer pauses until something has happened.

import { h } from "./dom.js";
import { locale, t } from "./i18n.js";
import { serviceNow } from "./servertime.js";

/** How often the count is drawn: often enough that no second is skipped. */
const TICK_MS = 250;
/** Under this, the count is drawn as urgent. */
const LOW_MS = 10_000;
/** The pauses between two readings of a game whose deadline has passed, the first and the longest. */
const FIRST_ASK_MS = 1000;
const LONGEST_ASK_MS = 8000;

const twoDigits = new Intl.NumberFormat(locale, { minimumIntegerDigits: 2, useGrouping: false });
const digits = new Intl.NumberFormat(locale, { useGrouping: false });

/** A time left, in whole seconds rounded up, as "0:27", "12:05" or "1:00:00", in the reader's digits. */
export function duration(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const [hours, minutes, rest] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  const parts = hours ? [digits.format(hours), twoDigits.format(minutes)] : [digits.format(minutes)];
  return [...parts, twoDigits.format(rest)].join(":");
}

/** The game's clock among the facts at the top, in its largest whole unit: "30 seconds a
 * move", "2 minutes a move", "1 hour a move". */
export function perMove(clock) {
  const seconds = clock.seconds_per_move;
  const [unit, count] = seconds % 3600 === 0 ? ["hour", seconds / 3600] : seconds % 60 === 0 ? ["minute", seconds / 60] : ["second", seconds];
  return t("clock.per_move", { unit, count });
}

/** Where a seat's count is drawn (the countdown fills it). */
export const clockFace = () => h("span", { class: "seat-clock", role: "timer", dir: "ltr", "data-countdown": "" });

/**
 * Counts down to the deadline of the game's last version in every `.seat-clock` under `root`;
 * calls `onOut()` once it has passed. Returns {set, holds, paint, stop}.
 */
export function countdown(root, { onOut }) {
  let deadline = null; // the service's ms
  let version = null;
  let nextAsk = 0;
  let pause = FIRST_ASK_MS;

  function paint() {
    if (deadline === null) return;
    const left = deadline - serviceNow();
    for (const face of root.querySelectorAll(".seat-clock")) {
      const text = left > 0 ? duration(left) : t("clock.out");
      if (face.textContent !== text) face.textContent = text;
      face.title = left > 0 ? t("clock.left", { time: duration(left) }) : t("clock.out.title");
      face.dataset.left = String(Math.max(0, Math.ceil(left / 1000)));
      face.classList.toggle("low", left > 0 && left <= LOW_MS);
      face.classList.toggle("out", left <= 0);
    }
    if (left <= 0 && Date.now() >= nextAsk) {
      nextAsk = Date.now() + pause;
      pause = Math.min(pause * 2, LONGEST_ASK_MS);
      onOut();
    }
  }

  const timer = setInterval(paint, TICK_MS);
  return {
    /** The clock of the game's last version (`clock` as the view has it, or null). */
    set(clock, atVersion) {
      const next = clock?.deadline ? Date.parse(clock.deadline) : null;
      if (next !== deadline) {
        nextAsk = 0;
        pause = FIRST_ASK_MS;
      }
      deadline = next;
      version = next === null ? null : atVersion;
      paint();
    },
    /** Whether the count runs for the game as it was at `atVersion` (the one shown). */
    holds: (atVersion) => deadline !== null && version === atVersion,
    paint,
    stop: () => clearInterval(timer),
  };
}
