// The lobby: start a game of either ruleset (seats, people or bots or left open for anyone
// to join, the search bot's strength, options, a seed), hand each person their seat's link, list the games (waiting,
// active and finished, page by page; a waiting game's open seat joined with a name), and
// take an exported log to replay; above them all, the seats this browser holds, to resume
// (resume.js). The form offers what the API document says the service accepts (schema.js);
// the service still checks everything and its refusals are shown.

import { api } from "./api.js";
import { isOver } from "./away.js";
import { h, fill } from "./dom.js";
import { has, isolated, listing, number, t, tn, who } from "./i18n.js";
import { gameOf, rulesetOfListed } from "./games.js";
import { noticeBoard } from "./notices.js";
import { replayLater } from "./replay.js";
import { heldPanel } from "./resume.js";
import { links } from "./route.js";
import { newGameForms } from "./schema.js";
import { isOpen, openSeats, SEARCH_BOT, seatName, strength } from "./seating.js";

const NAMES = ["Ana", "Bob", "Cy", "Dee", "Eve", "Fay"];
const PAGE = 10;
/** The seat editor's choice of a seat left open (docs/http-api.md, "Lobby"). */
const OPEN = "open";
/** The hints of the options every game has, in the reader's words (the API document's are English). */
const COMMON_HINTS = { seconds_per_move: t("lobby.clock.hint") };
const STATUSES = [
  ["", t("lobby.status.all")],
  ["waiting", t("lobby.status.waiting")],
  ["active", t("lobby.status.active")],
  ["finished", t("lobby.status.finished")],
  ["abandoned", t("lobby.status.abandoned")],
];

export function mountLobby(root, { status }) {
  const notices = noticeBoard();
  // The bounds of a seat's name as the API document gives them (read with the new game's
  // form): the join form offers the same, and declares none of its own.
  let nameLength = null;
  const create = h("section", { class: "panel create", "aria-labelledby": "new-game" }, h("h2", { id: "new-game" }, t("lobby.new")), h("p", { class: "loading" }, t("lobby.reading")));
  const created = h("div", { class: "created-area" });
  const games = h("section", { class: "panel games", "aria-labelledby": "games" });
  const drop = h(
    "label",
    { class: "drop-zone compact", "data-drop": "log" },
    h("strong", null, t("lobby.drop")),
    t("lobby.drop.hint"),
    h("input", { type: "file", class: "file-input", accept: ".ndjson,.jsonl,.json,application/x-ndjson", on: { change: (event) => handOver(event.target.files[0]) } }),
  );
  fill(root, h("section", { class: "lobby" }, notices.element, h("div", { class: "lobby-grid" }, heldPanel(), h("div", { class: "lobby-start" }, create, created), h("div", { class: "lobby-list" }, games, drop))));

  function handOver(file) {
    if (!file) return;
    replayLater(file);
    location.hash = links.replay();
  }
  const dragOver = (event) => event.preventDefault();
  const dropped = (event) => {
    event.preventDefault();
    handOver(event.dataTransfer?.files?.[0]);
  };
  document.addEventListener("dragover", dragOver);
  document.addEventListener("drop", dropped);

  // ---- a new game --------------------------------------------------------------------------

  async function buildForm() {
    let forms;
    try {
      forms = newGameForms(await api.document());
    } catch (problem) {
      notices.show("refused", t("lobby.no_document"), String(problem.message ?? problem));
      return;
    }
    const known = forms.filter((form) => isKnown(form.ruleset));
    let form = known[0];
    nameLength = form?.nameLength ?? null;
    const seats = [];
    const rulesetField = h(
      "fieldset",
      { class: "rulesets" },
      h("legend", null, t("lobby.game")),
      known.map((each, i) =>
        h(
          "label",
          { class: "ruleset-choice" },
          h("input", { type: "radio", name: "ruleset", value: each.ruleset, checked: i === 0, on: { change: () => switchTo(each) } }),
          h("strong", null, gameOf(each.ruleset).title),
          h("span", { class: "hint" }, t("lobby.ruleset.hint", { min: each.seats.min, max: each.seats.max, lowest: gameOf(each.ruleset).lowestWins ? "yes" : "no" })),
        ),
      ),
    );
    const seatList = h("ol", { class: "seat-editor" });
    const addSeat = h("button", { type: "button", class: "add-seat", on: { click: () => (seats.push(newSeat(seats.length)), drawSeats()) } }, t("lobby.add_seat"));
    const options = h("div", { class: "options" });
    const seed = h("input", { type: "text", name: "seed", inputMode: "numeric", pattern: "[0-9]{1,19}", placeholder: t("lobby.seed.placeholder"), autocomplete: "off", class: "seed" });
    const submit = h("button", { type: "submit", class: "primary" }, t("lobby.create"));
    const problems = noticeBoard();
    const element = h(
      "form",
      { class: "new-game", novalidate: true, on: { submit: (event) => (event.preventDefault(), send()) } },
      rulesetField,
      h("fieldset", { class: "seats-field" }, h("legend", null, t("lobby.seats")), seatList, addSeat),
      options,
      h("label", { class: "field" }, h("span", null, t("lobby.seed")), seed, h("span", { class: "hint" }, t("lobby.seed.hint"))),
      problems.element,
      submit,
    );

    function pick(seat, kind) {
      seat.open = kind === OPEN;
      seat.bot = kind && kind !== OPEN ? kind : null;
    }

    // A new seat's bot: the first bots the document offers, in turn (never the search bot
    // unasked: it thinks a while each move).
    function newSeat(index) {
      const quick = form.bots.filter((bot) => bot !== SEARCH_BOT);
      const bots = quick.length ? quick : form.bots;
      return { name: NAMES[index] ?? t("lobby.seat_default", { seat: index + 1 }), bot: index === 0 ? null : bots[(index - 1) % bots.length] ?? null, playouts: "" };
    }

    /** The search bot's strength for a seat it plays: its playouts a move, within the
     * document's bounds; blank plays the service's default (shown as the placeholder). */
    function strengthField(seat, index) {
      const bounds = form.playouts;
      if (seat.bot !== SEARCH_BOT || !bounds) return null;
      return h(
        "label",
        { class: "seat-strength", title: bounds.description || null },
        h("input", {
          type: "number",
          class: "seat-playouts",
          min: bounds.min,
          max: bounds.max,
          step: 1,
          value: seat.playouts,
          placeholder: bounds.fallback === null ? t("lobby.default") : number(bounds.fallback),
          "aria-label": t("lobby.playouts.label", { seat: index + 1, min: bounds.min, max: bounds.max }),
          on: { input: (event) => (seat.playouts = event.target.value) },
        }),
        h("span", { class: "hint" }, t("lobby.playouts.hint", { min: bounds.min, max: bounds.max })),
      );
    }

    /** A seat as the request has it; a search bot's playouts checked against the document's bounds. */
    function seatBody(seat, index) {
      if (seat.open) return { open: true };
      if (!seat.bot) return { name: seat.name.trim() };
      const player = { name: seat.name.trim(), bot: seat.bot };
      const typed = String(seat.playouts ?? "").trim();
      if (seat.bot !== SEARCH_BOT || !form.playouts || typed === "") return player;
      const { min, max } = form.playouts;
      if (!/^[0-9]+$/.test(typed) || Number(typed) < min || Number(typed) > max) {
        throw Object.assign(new Error(t("lobby.playouts.wrong", { seat: index + 1, name: seat.name.trim() ? isolated(seat.name.trim()) : t("lobby.playouts.search_bot"), min, max })), { title: t("lobby.playouts.title") });
      }
      return { ...player, playouts: Number(typed) };
    }

    /** What is wrong with each seat's name, in words (null: nothing), as the service would
     * refuse it: blank, or the same as an earlier seat's (the field's maxLength already keeps
     * it within the document's bound). Said at the field before anything is sent. */
    function nameProblems() {
      const seen = new Map();
      return seats.map((seat, index) => {
        if (seat.open) return null;
        const name = seat.name.trim();
        if (name === "") return t("lobby.name.blank", { seat: index + 1 });
        if (seen.has(name)) return t("lobby.name.same", { earlier: seen.get(name) + 1, name: isolated(name) });
        seen.set(name, index);
        return null;
      });
    }

    // Once a send has found a name wrong, the fields are checked again as they are typed in,
    // so that a message goes away as soon as its name is put right.
    let namesChecked = false;
    function showNameProblems(found) {
      for (const row of seatList.querySelectorAll(".seat-row")) {
        const problem = found[Number(row.dataset.seat)] ?? null;
        const input = row.querySelector(".seat-name-input");
        input.setCustomValidity(problem ?? "");
        if (problem === null) input.removeAttribute("aria-invalid");
        else input.setAttribute("aria-invalid", "true");
        row.querySelector(".seat-name-error").textContent = problem ?? "";
      }
      return found.findIndex((problem) => problem !== null);
    }

    function drawSeats() {
      fill(
        seatList,
        seats.map((seat, index) =>
          h(
            "li",
            { class: "seat-row", "data-seat": index },
            h("input", {
              type: "text",
              class: "seat-name-input",
              value: seat.open ? "" : seat.name,
              placeholder: seat.open ? t("lobby.whoever") : "",
              dir: "auto",
              disabled: seat.open,
              "aria-label": t("lobby.seat.name", { seat: index + 1 }),
              minLength: form.nameLength.min,
              maxLength: form.nameLength.max,
              required: true,
              "aria-describedby": `seat-name-error-${index}`,
              on: {
                input: (event) => {
                  seat.name = event.target.value;
                  if (namesChecked) showNameProblems(nameProblems());
                },
              },
            }),
            h(
              "select",
              { class: "seat-kind", "aria-label": t("lobby.seat.kind", { seat: index + 1 }), on: { change: (event) => (pick(seat, event.target.value), drawSeats()) } },
              h("option", { value: "", selected: seat.bot === null && !seat.open }, t("lobby.kind.person")),
              // Never the first seat: its creator sits there (and an open seat is never a bot's).
              index > 0 ? h("option", { value: OPEN, selected: seat.open }, t("lobby.kind.open")) : null,
              form.bots.map((bot) => h("option", { value: bot, selected: seat.bot === bot }, t("lobby.kind.bot", { bot }))),
            ),
            strengthField(seat, index),
            h("button", { type: "button", class: "remove-seat", "aria-label": t("lobby.seat.remove", { seat: index + 1 }), disabled: seats.length <= form.seats.min, on: { click: () => (seats.splice(index, 1), drawSeats()) } }, "×"),
            h("span", { class: "seat-name-error", id: `seat-name-error-${index}`, role: "alert" }),
          ),
        ),
      );
      addSeat.disabled = seats.length >= form.seats.max;
      if (namesChecked) showNameProblems(nameProblems());
    }

    function drawOptions() {
      const hints = { ...COMMON_HINTS, ...gameOf(form.ruleset).optionHints };
      fill(
        options,
        form.options.map((field) => {
          const name = field.path.join(".");
          const label = has(`option.${field.label}`) ? t(`option.${field.label}`) : field.label[0].toUpperCase() + field.label.slice(1);
          const hint = hints[field.label] ?? field.description;
          const input =
            field.kind === "integer"
              ? h("input", { type: "number", name, min: field.min, max: field.max, step: 1, placeholder: field.nullable ? t("lobby.default") : "", class: "option", "data-path": name })
              : h("select", { name, class: "option", "data-path": name }, field.choices.map((choice) => h("option", { value: choice, selected: choice === field.fallback }, has(`choice.${choice}`) ? t(`choice.${choice}`) : choice)));
          return h("label", { class: "field" }, h("span", null, field.kind === "integer" ? t("lobby.option.range", { label, min: field.min, max: field.max }) : label), input, hint ? h("span", { class: "hint" }, hint) : null);
        }),
      );
    }

    function switchTo(next) {
      form = next;
      while (seats.length > form.seats.max) seats.pop();
      while (seats.length < form.seats.min) seats.push(newSeat(seats.length));
      for (const seat of seats) if (seat.bot && !form.bots.includes(seat.bot)) seat.bot = form.bots[0] ?? null;
      drawSeats();
      drawOptions();
    }

    /** The request's JSON text: a seed is written as the digits typed (it may exceed 2⁵³). */
    function body() {
      const request = { ruleset: form.ruleset, players: seats.map(seatBody) };
      for (const input of options.querySelectorAll(".option")) {
        if (input.value === "") continue;
        const path = input.dataset.path.split(".");
        let into = request;
        for (const key of path.slice(0, -1)) into = into[key] ??= {};
        into[path.at(-1)] = input.type === "number" ? Number(input.value) : input.value;
      }
      const text = JSON.stringify(request);
      const digits = seed.value.trim();
      if (digits === "") return text;
      if (!/^[0-9]{1,19}$/.test(digits)) throw Object.assign(new Error(t("lobby.seed.wrong")), { title: t("lobby.seed.title") });
      return `${text.slice(0, -1)},"seed":${digits}}`;
    }

    async function send() {
      problems.clear();
      const wrong = showNameProblems(nameProblems());
      if (wrong >= 0) {
        namesChecked = true;
        problems.show("refused", t("lobby.names.title"), t("lobby.names.detail"));
        seatList.querySelectorAll(".seat-name-input")[wrong].focus();
        return;
      }
      let text;
      try {
        text = body();
      } catch (error) {
        problems.show("refused", error.title ?? t("lobby.form.title"), error.message);
        return;
      }
      submit.disabled = true;
      try {
        const answer = await api.createGame(text);
        showCreated(answer);
        listGames([]);
      } catch (problem) {
        problems.problem(problem);
      } finally {
        submit.disabled = false;
      }
    }

    fill(create, h("h2", { id: "new-game" }, t("lobby.new")), element);
    for (let i = 0; i < gameOf(form.ruleset).defaultSeats; i++) seats.push(newSeat(i));
    switchTo(form);
  }

  function isKnown(ruleset) {
    try {
      return Boolean(gameOf(ruleset));
    } catch {
      return false;
    }
  }

  function copyable(text, label) {
    const field = h("input", { type: "text", readOnly: true, value: text, class: "link-field", "aria-label": label, on: { focus: (event) => event.target.select() } });
    const copy = h(
      "button",
      {
        type: "button",
        class: "copy",
        on: {
          click: async () => {
            field.select();
            try {
              await navigator.clipboard.writeText(text); // only in a secure context (https, localhost)
              copy.textContent = t("lobby.copied");
            } catch {
              copy.textContent = t("lobby.selected");
            }
          },
        },
      },
      t("lobby.copy"),
    );
    return [field, copy];
  }

  function showCreated(answer) {
    const game = gameOf(answer.game.ruleset);
    const people = answer.players.filter((player) => player.token);
    const open = openSeats(answer.game);
    const bots = answer.game.players.filter((player) => player.bot);
    fill(
      created,
      h(
        "section",
        { class: "panel created", "data-game": answer.game_id },
        h("h2", null, t("lobby.created", { game: game.title })),
        people.length
          ? h("p", null, t("lobby.links"))
          : h("p", null, t("lobby.only_bots")),
        h(
          "ul",
          { class: "seat-links" },
          people.map((player) =>
            h(
              "li",
              { "data-seat": player.seat },
              h("strong", null, who(player.name)),
              ...copyable(links.absolute(links.seat(answer.game_id, player.token)), t("lobby.link.label", { name: isolated(player.name) })),
              h("a", { class: "button primary take-seat", href: links.seat(answer.game_id, player.token) }, tn("lobby.play_as", { name: who(player.name) })),
            ),
          ),
        ),
        bots.length ? h("p", { class: "hint" }, tn("lobby.bots", { bots: listing(bots.map((player) => (player.playouts == null ? who(player.name) : tn("lobby.bot_strength", { name: who(player.name), strength: strength(player.playouts) })))) })) : null,
        open.length
          ? h(
              "p",
              { class: "open-seats-note" },
              t("lobby.open_seats", { count: open.length, seats: listing(open.map((seat) => number(seat + 1))).join("") }),
              h("a", { href: "#/?status=waiting" }, t("lobby.open_seats.link")),
              t("lobby.open_seats.after"),
            )
          : null,
        h("div", { class: "watch-link" }, h("span", null, t("lobby.watch.anyone")), ...copyable(links.absolute(links.watch(answer.game_id)), t("table.watch_link")), h("a", { class: "button", href: links.watch(answer.game_id) }, t("lobby.watch"))),
      ),
    );
    created.scrollIntoView({ block: "nearest" });
  }

  /** How far a listed game has gone: a waiting one, by the seats still open. */
  function progress(entry) {
    if (entry.status === "waiting") {
      const open = entry.players.filter((name) => name === null).length;
      return t("lobby.progress.open", { open });
    }
    return entry.rounds ? t("lobby.progress.round", { round: entry.round, rounds: entry.rounds }) : t("lobby.progress.event", { version: entry.version });
  }

  // ---- joining a waiting game -------------------------------------------------------------------

  /** Under the game's row: a name, the open seat to take (the first by default), and the button. */
  async function joinForm(entry, row) {
    row.nextElementSibling?.classList.contains("join-row") && row.nextElementSibling.remove();
    const problems = noticeBoard();
    let view;
    try {
      view = await api.view(entry.game_id);
    } catch (problem) {
      notices.problem(problem, t("lobby.after.read"));
      return;
    }
    const open = openSeats(view);
    const name = h("input", { type: "text", class: "join-name", "aria-label": t("lobby.join.name"), placeholder: t("lobby.join.placeholder"), dir: "auto", minLength: nameLength?.min ?? 1, maxLength: nameLength?.max, required: true, autocomplete: "nickname" });
    const seat = h(
      "select",
      { class: "join-seat", "aria-label": t("lobby.join.seat") },
      open.map((seatNumber) => h("option", { value: seatNumber }, t("lobby.join.seat_n", { seat: seatNumber + 1 }))),
    );
    const take = h("button", { type: "submit", class: "primary take" }, t("lobby.join.take"));
    const form = h(
      "form",
      { class: "join-form", "data-game": entry.game_id, on: { submit: (event) => (event.preventDefault(), send()) } },
      view.status !== "waiting" || !open.length
        ? h("p", { class: "empty" }, t("lobby.join.gone"))
        : [
            h("span", null, tn("lobby.join.with", { game: gameOf(view.ruleset).title, names: listing(view.players.filter((player) => !isOpen(player)).map((player) => who(seatName(player)))) })),
            name,
            open.length > 1 ? seat : h("span", { class: "hint" }, t("lobby.join.seat_n", { seat: open[0] + 1 })),
            take,
          ],
      problems.element,
    );
    row.after(h("tr", { class: "join-row" }, h("td", { colspan: 5 }, form)));
    name.focus();

    async function send() {
      problems.clear();
      if (!name.value.trim()) {
        problems.show("refused", t("lobby.join.blank"), t("lobby.join.blank.detail"));
        return;
      }
      take.disabled = true;
      try {
        const joined = await api.join(entry.game_id, open.length > 1 ? Number(seat.value) : open[0], name.value.trim());
        location.hash = links.seat(entry.game_id, joined.token);
      } catch (problem) {
        problems.problem(problem, problem.status === 409 ? t("lobby.join.after") : "");
        take.disabled = false;
      }
    }
  }

  // ---- the games ---------------------------------------------------------------------------

  let cursors = []; // the cursor of each page shown so far, to go back
  async function listGames(stack) {
    cursors = stack;
    const filters = h(
      "div",
      { class: "filters", role: "group", "aria-label": t("lobby.show") },
      STATUSES.map(([value, label]) =>
        h("button", { type: "button", class: "filter", "aria-pressed": (status ?? "") === value ? "true" : "false", on: { click: () => (location.hash = value ? `#/?status=${value}` : "#/") } }, label),
      ),
      h("button", { type: "button", class: "refresh", on: { click: () => listGames(cursors) } }, t("lobby.refresh")),
    );
    let page;
    try {
      page = await api.listGames({ status: status ?? undefined, limit: PAGE, cursor: cursors.at(-1) });
    } catch (problem) {
      fill(games, h("h2", { id: "games" }, t("lobby.games")), filters);
      notices.problem(problem, t("lobby.after.list"));
      return;
    }
    const rows = page.games.map((entry) => {
      const game = gameOf(rulesetOfListed(entry));
      return h(
        "tr",
        { "data-game": entry.game_id, "data-status": entry.status },
        h("td", null, h("span", { class: "game-kind" }, game.title), h("code", { class: "game-id", dir: "ltr" }, entry.game_id)),
        h("td", null, entry.players.flatMap((name, i) => [i ? t("list.sep") : null, name == null ? t("lobby.open") : who(name)])),
        h("td", null, h("span", { class: ["status", `status-${entry.status}`], "data-status": entry.status }, has(`status.${entry.status}`) ? t(`status.${entry.status}`) : entry.status)),
        h("td", null, progress(entry)),
        h(
          "td",
          null,
          h(
            "div",
            { class: "actions" },
            entry.status === "waiting" ? h("button", { type: "button", class: "primary join", on: { click: (event) => joinForm(entry, event.currentTarget.closest("tr")) } }, t("lobby.join")) : null,
            h("a", { href: links.watch(entry.game_id) }, t("lobby.watch")),
            isOver(entry) ? h("a", { href: links.steps(entry.game_id) }, t("lobby.step_through")) : null,
          ),
        ),
      );
    });
    fill(
      games,
      h("h2", { id: "games" }, t("lobby.games")),
      filters,
      rows.length
        ? h("table", { class: "game-list" }, h("thead", null, h("tr", null, [t("lobby.col.game"), t("lobby.col.players"), t("lobby.col.status"), t("lobby.col.progress"), ""].map((label) => h("th", { scope: "col" }, label)))), h("tbody", null, rows))
        : h("p", { class: "empty" }, t("lobby.empty")),
      h(
        "div",
        { class: "pager" },
        h("button", { type: "button", class: "newer", disabled: cursors.length === 0, on: { click: () => listGames(cursors.slice(0, -1)) } }, t("lobby.newer")),
        h("span", { class: "page-number" }, t("lobby.page", { page: cursors.length + 1 })),
        h("button", { type: "button", class: "older", disabled: !page.next, on: { click: () => listGames([...cursors, page.next]) } }, t("lobby.older")),
      ),
    );
  }

  buildForm();
  listGames([]);
  return () => {
    document.removeEventListener("dragover", dragOver);
    document.removeEventListener("drop", dropped);
  };
}
