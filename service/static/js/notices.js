// Messages to the person at the table: a refused move, a lost connection, a bad file. Each
// says what the service answered (its title and detail, and its code for the curious) and
// stays until dismissed or replaced; none is ever dropped silently.

import { h } from "./dom.js";

/** A line of the service's, ended as a sentence. */
const sentence = (text) => (/[.!?:]$/.test(text) ? text : `${text}.`);

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
      h("button", { type: "button", class: "notice-close", "aria-label": "Dismiss", on: { click: () => item.remove() } }, "×"),
    );
    list.replaceChildren(item);
    return item;
  }

  return {
    element: list,
    show,
    /** A Problem from the API (api.js), in words. */
    problem(problem, after) {
      return show(problem.status === 0 ? "offline" : "refused", problem.title, problem.detail, { code: problem.code, status: problem.status || null, after });
    },
    clear: () => list.replaceChildren(),
  };
}
