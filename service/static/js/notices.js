// Messages to the person at the table: a refused move, a lost connection, a bad file. Each
// says what the service answered (its title and detail, and its code for the curious) and
// stays until dismissed or replaced; none is ever dropped silently. In a language other than
// English a refusal is said from its stable code (the catalogue's `problem.<code>`), since the
// API's own title and detail are English; a code the catalogue does not know keeps them.

import { h } from "./dom.js";
import { language, refusal, t } from "./i18n.js";

/** A line of the service's, ended as a sentence. */
const sentence = (text) => (/[.!?:。！？：]$/.test(text) ? text : `${text}${t("notice.stop")}`);

export function noticeBoard() {
  const list = h("ul", { class: "notices", "aria-live": "assertive" });

  function show(kind, title, detail, { code, status, after } = {}) {
    const item = h(
      "li",
      { class: ["notice", `notice-${kind}`], role: "alert", "data-code": code ?? "" },
      h(
        "div",
        { class: "notice-text" },
        h("strong", null, sentence(title)),
        detail ? h("span", null, ` ${sentence(detail[0].toUpperCase() + detail.slice(1))}`) : null,
        after ? h("span", { class: "notice-after" }, ` ${after}`) : null,
        code ? h("code", { class: "notice-code" }, status ? `${status} ${code}` : code) : null,
      ),
      h("button", { type: "button", class: "notice-close", "aria-label": t("notice.dismiss"), on: { click: () => item.remove() } }, "×"),
    );
    list.replaceChildren(item);
    return item;
  }

  return {
    element: list,
    show,
    /** A Problem from the API (api.js), in words. */
    problem(problem, after) {
      const said = language.code === "en" ? { title: problem.title, detail: problem.detail } : refusal(problem);
      return show(problem.status === 0 ? "offline" : "refused", said.title, said.detail, { code: problem.code, status: problem.status || null, after });
    },
    clear: () => list.replaceChildren(),
  };
}
