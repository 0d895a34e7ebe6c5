// The running totals of a game as an SVG line chart, drawn by hand: one line per seat (each
// seat its own colour, dash and marker shape, and its name at the line's end, so lines tell
// apart without colour), a point per round or per pot, and a marker at the step shown.
// The drawing stays left to right in every language, Persian's too: its axis is time, and
// its numbers read left to right in any script (docs/table.md, "Right to left"); a name at a
// line's end is isolated in its own direction (CSS `unicode-bidi: plaintext`), so "سارا +3"
// never reads "3+ سارا".

import { h, s } from "./dom.js";
import { isolated, signed, t } from "./i18n.js";

/** The drawing's width: narrower on a phone, so that its words stay readable there. */
const width = () => (document.documentElement.clientWidth < 600 ? 380 : 640);
const HEIGHT = 260;
const PAD = { left: 44, top: 14, bottom: 40 };
const MARKERS = ["circle", "square", "diamond", "triangle", "circle", "square"];
/** The names at the lines' ends: their font, set on them here so that their widths are known before drawing. */
const NAME_FONT = { size: 12, weight: 700 };
/** Between a line's last point and its name; and the most of the drawing's width the names may take. */
const NAME_GAP = 8;
const NAMES_AT_MOST = 0.4;
/** Between two names at the lines' ends, so that equal totals stay readable. */
const NAME_STEP = 13;

let pen = null;
/** How wide `text` is drawn in the names' font, in the drawing's units (the page's font, as CSS gives it). */
function measure(text) {
  pen ??= document.createElement("canvas").getContext("2d");
  pen.font = `${NAME_FONT.weight} ${NAME_FONT.size}px ${getComputedStyle(document.documentElement).fontFamily}`;
  return pen.measureText(text).width;
}

/** ["Name", "+3"], its name shortened with "…" when the whole would be wider than `room`. */
function fitted(name, total, room) {
  if (measure(`${name} ${total}`) <= room) return [name, total];
  const letters = [...name]; // by code point, never splitting a character in two
  while (letters.length > 1 && measure(`${letters.join("")}… ${total}`) > room) letters.pop();
  return [`${letters.join("")}…`, total];
}

function ticks(low, high) {
  const span = Math.max(high - low, 1);
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  // Whole points only: a total is never a fraction.
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= raw));
  const values = [];
  for (let value = Math.floor(low / step) * step; ; value += step) {
    values.push(value);
    if (value >= high) return values;
  }
}

function marker(shape, x, y, seat) {
  const r = 3.6;
  const cls = `series-point seat-${seat}`;
  if (shape === "square") return s("rect", { class: cls, x: x - r, y: y - r, width: 2 * r, height: 2 * r });
  if (shape === "diamond") return s("polygon", { class: cls, points: `${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}` });
  if (shape === "triangle") return s("polygon", { class: cls, points: `${x},${y - r - 1} ${x + r + 1},${y + r} ${x - r - 1},${y + r}` });
  return s("circle", { class: cls, cx: x, cy: y, r });
}

/**
 * `series`: {labels, lines (one array of running totals per seat), axis ("round" or "pot")};
 * `names`: the seats' names; `at`: the index of the point to mark (the step shown), or null.
 */
export function totalsChart(series, names, { at = null, caption } = {}) {
  const { labels, lines, axis } = series;
  const WIDTH = width();
  const all = lines.flat();
  const yTicks = ticks(Math.min(0, ...all), Math.max(1, ...all));
  const low = yTicks[0];
  const high = yTicks.at(-1);
  // The right margin is as wide as the widest name at a line's end needs, up to its share
  // of the drawing (a longer name is shortened to fit, and its line's title keeps it whole).
  const room = WIDTH * NAMES_AT_MOST - NAME_GAP;
  const ending = lines.map((line, seat) => fitted(names[seat], signed(line.at(-1)), room));
  const right = NAME_GAP + Math.ceil(Math.max(0, ...ending.map((words) => measure(words.join(" "))))) + 2;
  const plotWidth = WIDTH - PAD.left - right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (labels.length > 1 ? (i * plotWidth) / (labels.length - 1) : plotWidth / 2);
  const y = (value) => PAD.top + plotHeight - ((value - low) * plotHeight) / (high - low || 1);
  const every = Math.max(1, Math.ceil(labels.length / 12));

  const grid = yTicks.map((value) =>
    s(
      "g",
      { class: ["grid", value === 0 && "zero"] },
      s("line", { x1: PAD.left, x2: PAD.left + plotWidth, y1: y(value), y2: y(value) }),
      s("text", { class: "tick", x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end" }, signed(value)),
    ),
  );
  const xLabels = labels.map((label, i) =>
    i % every === 0 || i === labels.length - 1 ? s("text", { class: "tick", x: x(i), y: PAD.top + plotHeight + 16, "text-anchor": "middle" }, label) : null,
  );
  // Names at the lines' ends, nudged apart so that equal totals stay readable, and back up
  // from the drawing's bottom edge if the nudging pushed the lowest past it.
  const ends = lines.map((line, seat) => ({ seat, y: y(line.at(-1)) })).sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + NAME_STEP);
  const lowest = HEIGHT - NAME_FONT.size;
  for (let i = ends.length - 1; i >= 0; i--) ends[i].y = Math.min(ends[i].y, i === ends.length - 1 ? lowest : ends[i + 1].y - NAME_STEP);
  const series_ = lines.map((line, seat) =>
    s(
      "g",
      { class: `series seat-${seat}`, "data-seat": seat },
      s("title", null, t("chart.line", { name: isolated(names[seat]), totals: line.map(signed).join(", ") })),
      s("polyline", { class: `series-line seat-${seat}`, "data-seat": seat, points: line.map((value, i) => `${x(i)},${y(value)}`).join(" ") }),
      line.map((value, i) => marker(MARKERS[seat % MARKERS.length], x(i), y(value), seat)),
      s(
        "text",
        {
          class: `series-name seat-${seat}`,
          x: x(line.length - 1) + NAME_GAP,
          y: ends.find((end) => end.seat === seat).y + 4,
          "font-size": NAME_FONT.size,
          "font-weight": NAME_FONT.weight,
        },
        s("tspan", { class: "series-who" }, ending[seat][0]),
        ` ${ending[seat][1]}`,
      ),
    ),
  );
  const step =
    at === null
      ? null
      : s("line", { class: "step-marker", x1: x(at), x2: x(at), y1: PAD.top, y2: PAD.top + plotHeight, "data-at": at });
  const svg = s(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": caption ?? t("chart.label", { axis }),
      direction: "ltr",
      "data-lines": lines.length,
    },
    grid,
    s("text", { class: "axis-name", x: PAD.left + plotWidth / 2, y: HEIGHT - 4, "text-anchor": "middle" }, t("chart.axis", { axis })),
    xLabels,
    step,
    series_,
  );
  return h("figure", { class: "chart-figure" }, svg, h("figcaption", null, caption ?? t("chart.caption", { axis })));
}
