// The page's words in the reader's language (docs/table.md, "Languages"). Each language's
// messages are one ICU MessageFormat catalogue, /static/i18n/<code>.json, the same files the
// command line reads (service/i18n.py); this module formats them with FormatJS's
// intl-messageformat (vendored as one ES module, service/static/vendor/), over the browser's
// own CLDR data (Intl.PluralRules, Intl.NumberFormat, Intl.ListFormat).
// The language is the `?lang=` of the address, else the one chosen in the page's menu (kept
// in this browser), else the one the service chose from the request's Accept-Language (the
// page arrives with its <html lang> set and marked data-lang-chosen: a proxy's or a client's
// header is honoured), else the first of navigator.languages the table speaks, else English.
// It is loaded before any screen draws (a top-level await: every module importing this one
// waits for it), so every message is there the first time it is asked for.
//
// A name that came from a person is always isolated from the words around it, so that a
// right-to-left name never reorders a number after it: in the page, inside <bdi> (`who`);
// in an attribute or a drawing's text, between FSI and PDI (`isolated`).

import { IntlMessageFormat } from "../vendor/intl-messageformat.js";
import { h } from "./dom.js";

const KEY = "poison-table.lang";
const FSI = "\u2068";
const PDI = "\u2069";

// Read before this module sets them: the page's language as the service sent it.
const served = document.documentElement.hasAttribute("data-lang-chosen") ? document.documentElement.lang : null;
const languages = await (await fetch("/static/i18n/languages.json", { cache: "no-cache" })).json();
const known = new Map(languages.map((language) => [language.code, language]));

/** The table's language for a tag such as "pt-BR" or "zh-Hans-CN": by its first subtag. */
function match(tag) {
  return tag ? known.get(String(tag).toLowerCase().split(/[-_]/)[0]) ?? null : null;
}

function chosen() {
  const asked = match(new URLSearchParams(location.search).get("lang"));
  if (asked) return asked;
  let kept = null;
  try {
    kept = match(localStorage.getItem(KEY));
  } catch {
    // a browser that keeps nothing: the reader's languages decide
  }
  if (kept) return kept;
  const sent = match(served);
  if (sent) return sent;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const found = match(tag);
    if (found) return found;
  }
  return known.get("en");
}

export const language = chosen();
/** The tag Intl formats with ("fa", "zh-CN"): numbers, plurals, lists, dates. */
export const locale = language.intl;
const catalogue = await (await fetch(`/static/i18n/${language.code}.json`, { cache: "no-cache" })).json();

document.documentElement.lang = language.tag;
document.documentElement.dir = language.dir;

// ---- ICU MessageFormat, by FormatJS's intl-messageformat (service/static/vendor/README.md) ----

const plurals = new Map();
const numbers = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
const lists = new Intl.ListFormat(locale, { style: "long", type: "conjunction" });

/** `n` in the reader's digits and grouping: "2,000", "۲٬۰۰۰", "2 000". */
export const number = (n) => numbers.format(n);

/** The Intl objects every message shares, made once for the page's one locale (the library
 * would make a set per message): a plural's `#` and a `{n, number}` are written as `number`
 * writes them, whole numbers in the reader's digits. */
const formatters = {
  getNumberFormat: (_, options) => (options ? new Intl.NumberFormat(locale, options) : numbers),
  getPluralRules: (_, options) => {
    const type = options?.type ?? "cardinal";
    if (!plurals.has(type)) plurals.set(type, new Intl.PluralRules(locale, { type }));
    return plurals.get(type);
  },
  getDateTimeFormat: (_, options) => new Intl.DateTimeFormat(locale, options),
};

/** Each message compiled once, the first time it is asked for (the page speaks one locale). */
const compiled = new Map();

function message(key) {
  let found = compiled.get(key);
  if (!found) {
    const text = catalogue[key];
    if (text === undefined) throw new Error(`the catalogue ${language.code} has no message ${key}`);
    // ignoreTag: a catalogue's < and > are text ("{sum} > {limit}"), as the CLI's parser reads them.
    found = new IntlMessageFormat(text, locale, undefined, { formatters, ignoreTag: true });
    compiled.set(key, found);
  }
  return found;
}

/** The message's parts: strings, and the values given as nodes (or lists of them) as they are.
 * The library writes a bare `{n}` of a number as String(n), where ICU, and so the CLI, writes
 * it in the reader's digits ("۱۲"): a number goes in as a Number object, which the library
 * hands back untouched (plural and select still read its value) for `number` to write. */
function render(key, args) {
  const boxed = Object.fromEntries(Object.entries(args).map(([name, value]) => [name, typeof value === "number" ? Object(value) : value]));
  return message(key)
    .formatToParts(boxed)
    .flatMap((part) => (part.value instanceof Number ? number(part.value.valueOf()) : [part.value].flat(Infinity)));
}

/** Whether the catalogue has the message (a refusal's code, say): else its caller falls back. */
export const has = (key) => Object.hasOwn(catalogue, key);

/** The message `key` as text; every name in `args` is isolated between FSI and PDI. */
export function t(key, args = {}) {
  const text = (value) => (value instanceof Node ? isolated(value.textContent) : Array.isArray(value) ? value.map(text).join("") : value);
  const shown = Object.fromEntries(Object.entries(args).map(([name, value]) => [name, text(value)]));
  return render(key, shown).join("");
}

/** The message `key` as the page's nodes: a name given as `who(name)` stays a <bdi> element. */
export function tn(key, args = {}) {
  return render(key, args).map((part) => (part instanceof Node ? part : String(part)));
}

/** A person's name as an element of its own direction (any name, in every language). */
export const who = (name) => h("bdi", null, name);

/** A person's name in text that is no element (an attribute, a title): between FSI and PDI. */
export const isolated = (name) => `${FSI}${name}${PDI}`;

/** "Ana, Bob and Cy" in the reader's language; names given as nodes stay nodes. */
export function listing(items) {
  const marks = items.map((_, i) => `\u0000${i}\u0000`);
  return lists
    .format(marks)
    .split(/\u0000(\d+)\u0000/)
    .flatMap((piece, i) => (i % 2 ? [items[Number(piece)]].flat(Infinity) : [piece]))
    .filter((piece) => piece !== "");
}

/** "+4", "−3", "0" in the reader's digits: a score whose sign matters (a true minus sign). */
const signs = new Intl.NumberFormat(locale, { signDisplay: "exceptZero", maximumFractionDigits: 0 });
export const signed = (points) => signs.format(points).replace("-", "−");

/** The menu of languages: choosing one keeps it in this browser and draws the page again in it. */
export function languageMenu() {
  const select = h(
    "select",
    {
      class: "language",
      "aria-label": t("language.menu"),
      on: {
        change: () => {
          try {
            localStorage.setItem(KEY, select.value);
          } catch {
            // kept for this page only
          }
          const url = new URL(location.href);
          url.searchParams.set("lang", select.value);
          location.replace(url.href);
        },
      },
    },
    languages.map((each) => h("option", { value: each.code, lang: each.tag, dir: each.dir, selected: each.code === language.code }, each.name)),
  );
  return h("label", { class: "language-control" }, select);
}

/** A refusal in the reader's words, from its stable code; an unknown code keeps the API's own. */
export function refusal(problem) {
  const key = `problem.${problem.code}`;
  return has(key) ? { title: t(key), detail: "" } : { title: problem.title, detail: problem.detail };
}
