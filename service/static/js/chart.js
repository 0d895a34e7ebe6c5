// The running totals of a game as an SVG line chart, drawn by hand: one line per seat (each
// seat its own colour, dash and marker shape, and its name at the line's end, so lines tell
// apart without colour), a point per round or per pot, and a marker at the step shown.
// The drawing stays left to right in every language, Persian's too: its axis is time, and
// its numbers read left to right in any script (docs/table.md, "Right to left"); a name at a
// line's end is isolated in its own direction (CSS `unicode-bidi: plaintext`), so "سارا +3"
// never reads "3+ سارا". No word covers another: each is measured as the page draws it, in
// whichever fonts its script falls back on (a Chinese name's line is taller than a Latin one's,
// a Persian one's taller still), and the names at the lines' ends, the axis's labels and the
// axis's name are placed apart by those measures.

import { h, s } from "./dom.js";
import { isolated, signed, t } from "./i18n.js";

/** The drawing's width: narrower on a phone, so that its words stay readable there. */
const width = () => (document.documentElement.clientWidth < 600 ? 380 : 640);
const HEIGHT = 260;
const PAD = { left: 44, top: 14 };
/** Between a y-axis label and the plot; between the plot, the x-axis's labels and the axis's name. */
const TICK_GAP = 6;
const ROW_GAP = 2;
/** The least room between two words, side by side or one above the other. */
const WORD_GAP = 2;
/** Between a word and the drawing's edge, which the page may round to a whole pixel. */
const EDGE = 1;
const MARKERS = ["circle", "square", "diamond", "triangle", "circle", "square"];
/** The names at the lines' ends: their font, set on them here so that their widths are known before drawing. */
const NAME_FONT = { size: 12, weight: 700 };
/** Between a line's last point and its name; and the most of the drawing's width the names may take. */
const NAME_GAP = 8;
const NAMES_AT_MOST = 0.4;

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

/**
 * How the page draws each of `words` ({class, text}) in the chart: its width, and how far its
 * line reaches above and below its baseline. Drawn once in a hidden chart in the page, since a
 * line's height is that of every font its letters fall back on, which only the page knows.
 */
function drawn(words) {
  const probe = s(
    "svg",
    { class: "chart chart-probe", "aria-hidden": "true", direction: "ltr" },
    words.map(({ class: cls, text }) => s("text", { class: cls, x: 0, y: 0, ...(cls === "series-name" && { "font-size": NAME_FONT.size, "font-weight": NAME_FONT.weight }) }, text)),
  );
  document.body.append(probe);
  const boxes = [...probe.children].map((text) => {
    const box = text.getBBox();
    return { width: box.width, above: -box.y, below: box.y + box.height };
  });
  probe.remove();
  return boxes;
}

/** The tallest line of `boxes`: how far above and below the baseline any of them reaches. */
function tallest(boxes) {
  return { above: Math.max(0, ...boxes.map((box) => box.above)), below: Math.max(0, ...boxes.map((box) => box.below)) };
}

/**
 * Which of the x-axis's labels to show, and where each is anchored: the first starts at its
 * point and the last ends at its own (so that neither reaches the y-axis's labels nor the names
 * at the lines' ends), the others centred on theirs; one label in `every`, for the smallest
 * `every` whose labels stand apart, and always the last.
 */
function xAxis(count, x, widths) {
  const last = count - 1;
  const anchor = (i) => (i === last ? "end" : i === 0 ? "start" : "middle");
  const span = (i) => {
    const at = x(i);
    const width = widths[i];
    return anchor(i) === "end" ? [at - width, at] : anchor(i) === "start" ? [at, at + width] : [at - width / 2, at + width / 2];
  };
  const apart = (i, j) => span(i)[1] + WORD_GAP <= span(j)[0];
  for (let every = 1; ; every++) {
    const shown = [];
    for (let i = 0; i < last; i += every) shown.push(i);
    while (shown.length && !apart(shown.at(-1), last)) shown.pop();
    shown.push(last);
    if (shown.every((i, k) => k === 0 || apart(shown[k - 1], i))) return shown.map((i) => ({ i, anchor: anchor(i) }));
  }
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
  const axisName = t("chart.axis", { axis });
  const boxes = drawn([
    ...labels.map((text) => ({ class: "tick", text })),
    ...ending.map((words) => ({ class: "series-name", text: words.join(" ") })),
    { class: "axis-name", text: axisName },
  ]);
  const tickLine = tallest(boxes.slice(0, labels.length));
  const nameLine = tallest(boxes.slice(labels.length, -1));
  const axisLine = boxes.at(-1);
  // Under the plot, one above the other: the x-axis's labels, then the axis's name.
  const axisNameAt = HEIGHT - EDGE - axisLine.below;
  const tickRowAt = axisNameAt - axisLine.above - ROW_GAP - tickLine.below;
  const plotWidth = WIDTH - PAD.left - right;
  const plotHeight = tickRowAt - tickLine.above - ROW_GAP - PAD.top;
  const x = (i) => PAD.left + (labels.length > 1 ? (i * plotWidth) / (labels.length - 1) : plotWidth / 2);
  const y = (value) => PAD.top + plotHeight - ((value - low) * plotHeight) / (high - low || 1);

  const grid = yTicks.map((value) =>
    s(
      "g",
      { class: ["grid", value === 0 && "zero"] },
      s("line", { x1: PAD.left, x2: PAD.left + plotWidth, y1: y(value), y2: y(value) }),
      s("text", { class: "tick", x: PAD.left - TICK_GAP, y: y(value) + (tickLine.above - tickLine.below) / 2, "text-anchor": "end" }, signed(value)),
    ),
  );
  const xLabels = xAxis(labels.length, x, boxes.map((box) => box.width)).map(({ i, anchor }) =>
    s("text", { class: "tick", x: x(i), y: tickRowAt, "text-anchor": anchor }, labels[i]),
  );
  // Names at the lines' ends, each line's box centred on its line's last point, nudged apart
  // (a line's height and a gap) so that equal totals stay readable, and back up from the
  // drawing's bottom edge if the nudging pushed the lowest past it.
  const nameStep = nameLine.above + nameLine.below + WORD_GAP;
  const ends = lines.map((line, seat) => ({ seat, y: Math.max(EDGE + nameLine.above, y(line.at(-1)) + (nameLine.above - nameLine.below) / 2) })).sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i++) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + nameStep);
  const lowest = HEIGHT - EDGE - nameLine.below;
  for (let i = ends.length - 1; i >= 0; i--) ends[i].y = Math.min(ends[i].y, i === ends.length - 1 ? lowest : ends[i + 1].y - nameStep);
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
          y: ends.find((end) => end.seat === seat).y,
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
    s("text", { class: "axis-name", x: PAD.left + plotWidth / 2, y: axisNameAt, "text-anchor": "middle" }, axisName),
    xLabels,
    step,
    series_,
  );
  return h("figure", { class: "chart-figure" }, svg, h("figcaption", null, caption ?? t("chart.caption", { axis })));
}
