// The whole rules of a game in the reader's language (#/rules/poison, #/rules/pot): the
// Markdown document /static/rules/<language>/<game>.md, the same file as docs/rules/, read
// and drawn here by a small renderer that knows only what those documents use (headings,
// paragraphs, lists, emphasis, code) and builds every piece as an element or a text node:
// nothing it reads is ever parsed as markup, so a document can never put HTML on the page.
// The document is in the page's language and direction (Persian reads right to left).

import { fill, h } from "./dom.js";
import { language, t } from "./i18n.js";
import { rulesets } from "./games.js";
import { links } from "./route.js";

/** `**strong**`, `*emphasis*` and `` `code` `` in one line, as nodes; anything else is text. */
const INLINE = /(\*\*[^*]+\*\*|\*[^*\s][^*]*\*|`[^`]+`)/;

export function inline(text) {
  return text
    .split(INLINE)
    .filter((piece) => piece !== "")
    .map((piece) => {
      if (piece.startsWith("**") && piece.endsWith("**") && piece.length > 4) return h("strong", null, ...inline(piece.slice(2, -2)));
      if (piece.startsWith("`") && piece.endsWith("`") && piece.length > 2) return h("code", { dir: "ltr" }, piece.slice(1, -1));
      if (piece.startsWith("*") && piece.endsWith("*") && piece.length > 2) return h("em", null, ...inline(piece.slice(1, -1)));
      return piece;
    });
}

const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^[-*]\s+(.*)$/;
const NUMBERED = /^\d+\.\s+(.*)$/;

/** A Markdown document as a list of elements: blocks are separated by blank lines, a list's
 * items each start a line (`- ` or `1. `), and a line that continues an item or a paragraph
 * joins it with a space. */
export function render(markdown) {
  const blocks = [];
  let paragraph = null;
  let list = null;
  const close = () => {
    paragraph = null;
    list = null;
  };
  for (const raw of markdown.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") {
      close();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      blocks.push(h(`h${Math.min(heading[1].length + 1, 6)}`, null, ...inline(heading[2])));
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      paragraph = null;
      const tag = bullet ? "ul" : "ol";
      if (!list || list.tagName.toLowerCase() !== tag) blocks.push((list = h(tag, null)));
      list.append(h("li", null, ...inline((bullet ?? numbered)[1])));
      continue;
    }
    if (list) {
      list.lastElementChild.append(" ", ...inline(line));
      continue;
    }
    if (paragraph) paragraph.append(" ", ...inline(line));
    else blocks.push((paragraph = h("p", null, ...inline(line))));
  }
  return blocks;
}

export function mountRules(root, where) {
  const body = h("article", { class: "rules-document", lang: language.tag, dir: language.dir, "aria-busy": "true" });
  fill(root, h("section", { class: "rules-screen panel", "data-game": where.game }, h("p", null, h("a", { href: links.lobby() }, t("table.back"))), body));
  let gone = false;
  if (!rulesets.includes(where.game)) {
    fill(body, h("p", { class: "error" }, t("rules.unknown")));
    body.setAttribute("aria-busy", "false");
    return null;
  }
  (async () => {
    let shown;
    try {
      const answer = await fetch(`/static/rules/${language.code}/${where.game}.md`, { cache: "no-cache" });
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      shown = render(await answer.text());
    } catch (error) {
      shown = [h("p", { class: "error" }, t("rules.failed", { reason: String(error.message ?? error) }))];
    }
    if (gone) return;
    fill(body, ...shown);
    body.setAttribute("aria-busy", "false");
  })();
  return () => {
    gone = true;
  };
}
