// The live table: play a seat (with its token, from the URL fragment) or watch (without).
//
// The page shows one event at a time. It reads the game, then follows its stream; each event
// that arrives (or that a move's answer lists) waits in order, and is shown by reading the
// game as it was right after that event (`?version=N`, with `you=true` and the token for a
// seat's own hand), so bots' moves appear one by one, at the pace the person chose. A move is
// sent with the version shown as `expected_version`: a table that fell behind is refused, says
// so, and catches up. The rules stay on the server: what is legal comes from `legal_moves`.
// A game with a clock counts down at the seat to move (countdown.js); the seat held here may
// resign, or come back once its clock ran out (yourseat.js); the table keeps it in this
// browser's list of seats (held.js).

import { api } from "./api.js";
import { abandonedLine, AWAY_EVENTS, awayBots, describeAway, isOver, noteAway } from "./away.js";
import { totalsChart } from "./chart.js";
import { dealsPanel } from "./commitment.js";
import { countdown, perMove } from "./countdown.js";
import { fill, h } from "./dom.js";
import { listing, t, tn, who } from "./i18n.js";
import { follow } from "./follow.js";
import { describe, gameOf, scoredCount, sheet } from "./games.js";
import { hold, release } from "./held.js";
import { noticeBoard } from "./notices.js";
import { paceControl, paceMs } from "./pace.js";
import { links } from "./route.js";
import { seatList } from "./seats.js";
import { describeLobby, LOBBY_EVENTS, namesOf, openSeats, searchers, waitingRoom } from "./seating.js";
import { yourSeat } from "./yourseat.js";

/** Beyond this many events waiting (a long drop, a slow tab), the table jumps to the last one. */
const CATCH_UP = 30;
const FEED_LINES = 60;
/** How many of the events before the page opened it tells in its feed. */
const RECENT = 12;
/** After a failed read, the table asks again this much later. */
const RETRY_MS = 2000;
/** A move's answer that takes longer than this is a search bot's answering it: the banner says it thinks. */
const THINKING_MS = 150;


export function mountTable(root, { gameId, token }) {
  const notices = noticeBoard();
  const parts = {
    top: h("div", { class: "table-top" }),
    turn: h("p", { class: "turn-banner", "aria-live": "polite" }),
    seats: h("div", { class: "seats-area" }),
    board: h("div", { class: "board-area" }),
    hand: h("div", { class: "hand-area" }),
    mine: h("div", { class: "your-seat-area" }),
    feed: h("ol", { class: "feed", reversed: true, "aria-label": t("table.feed.label") }),
    sheet: h("div", { class: "sheet-area" }),
    chart: h("div", { class: "chart-area" }),
    help: h("p", { class: "help" }),
    deals: dealsPanel(gameId),
  };
  const screen = h(
    "section",
    { class: "table-screen", "data-game": gameId, "data-mode": token ? "seat" : "watch" },
    parts.top,
    notices.element,
    h(
      "div",
      { class: "table-layout" },
      h("div", { class: "table-main" }, parts.turn, parts.seats, parts.board, parts.hand, parts.mine, parts.chart),
      h(
        "aside",
        { class: "table-side" },
        h("section", { class: "panel" }, h("h2", null, t("table.feed")), parts.feed),
        parts.deals.element,
        h("section", { class: "panel" }, h("h2", null, t("table.sheet")), parts.sheet),
        h("details", { class: "panel rules" }, h("summary", null, t("table.rules")), parts.help),
      ),
    ),
  );
  fill(root, screen);

  const state = {
    view: null,
    game: null,
    names: [],
    scores: null,
    scored: 0,
    pending: [], // events waiting to be shown, by version
    known: new Set(), // the version of every event ever queued: each is told once
    pumping: false,
    sending: false,
    thinking: false, // a move's answer is late: the search bots its events bring are thinking
    selected: null, // the index in your hand of the card you picked
    moment: null,
    event: null,
    connection: "connecting",
    stream: null,
    stopped: false,
    leaving: false, // the person asked to leave their seat of the waiting game
    rematching: false, // "play again" was asked, its answer not yet in
    bots: new Map(), // the bot playing each away seat, as the events that made it away say
    asking: false, // the page asks whether the seat really resigns
    stepping: false, // a resignation or a return is on its way
    reading: false, // the game is read afresh for its clock
    again: false, // the clock is to be read again once that read is in
  };
  const clock = countdown(screen, { onOut: () => readNow() });

  const you = () => state.view?.you?.seat ?? null;
  const waitingForPlayers = () => state.view?.status === "waiting";
  const waiting = () => state.pumping || state.pending.length > 0;
  const mine = () => (you() === null ? null : state.view.players[you()]);
  const myTurn = () => state.view?.status === "active" && state.view.turn !== null && state.view.turn === you() && !mine()?.away;
  const canPlay = () => myTurn() && !waiting() && !state.sending;

  // ---- reading the game ---------------------------------------------------------------

  async function start() {
    let view;
    try {
      view = await api.view(gameId, { token });
    } catch (problem) {
      // A token that is no seat of this game is no seat to keep.
      if (problem.status === 401 && token) release(gameId, null, token);
      const after = problem.status === 401 ? t("table.after.401") : problem.status === 404 ? t("table.after.404") : "";
      notices.problem(problem, after);
      fill(parts.turn, h("a", { href: problem.status === 401 ? links.watch(gameId) : links.lobby() }, problem.status === 401 ? t("table.watch_instead") : t("table.back")));
      return;
    }
    if (state.stopped) return;
    state.game = gameOf(view.ruleset);
    state.view = view;
    state.names = namesOf(view);
    if (view.you) hold({ game_id: gameId, seat: view.you.seat, name: view.players[view.you.seat].name, ruleset: view.ruleset, token });
    screen.classList.add(`ruleset-${view.ruleset}`);
    fill(parts.help, state.game.help, " ", h("a", { class: "whole-rules", href: links.rules(state.game.name) }, t("rules.whole")));
    // A waiting game has nothing scored yet: its sheet is read once it starts.
    if (view.status !== "waiting") await readScores();
    state.scored = state.scores ? scoredCount(state.game, state.scores) : 0;
    try {
      // What happened just before: someone joining mid-game (or after it) reads the last moves;
      // with a seat away, the whole log, whose events say which bot took each away seat.
      const recent = Math.max(0, view.version - RECENT);
      const events = await api.events(gameId, token, view.players.some((player) => player.away) ? 0 : recent);
      state.bots = awayBots(events);
      for (const event of events.filter((e) => e.version > recent)) addFeed(event);
    } catch (problem) {
      notices.problem(problem, t("table.after.events"));
    }
    addFeed(null, token ? tn("table.you_sit", { seat: you() + 1, name: who(state.names[you()]) }) : t("table.watching"));
    clock.set(view.clock, view.version);
    render();
    focusHandIfMyTurn();
    if (view.status === "active" || view.status === "waiting") {
      listen(view.version);
    } else {
      connection("ended");
    }
  }

  function listen(after) {
    // While the game waits, the lobby's events come down the same stream: who joins, who leaves, the start.
    state.stream = follow(gameId, after, [...LOBBY_EVENTS, ...AWAY_EVENTS, ...state.game.eventTypes], { onEvent: enqueue, onState: connection });
  }

  async function readScores() {
    try {
      state.scores = await api.scores(gameId);
    } catch (problem) {
      notices.problem(problem, t("table.after.scores"));
    }
  }

  function connection(name) {
    state.connection = name;
    renderTop();
  }

  function viewAt(version) {
    return api.view(gameId, { token, version, you: Boolean(token) });
  }

  // ---- showing events one by one ---------------------------------------------------------

  function enqueue(event) {
    if (event.version <= state.view.version || state.known.has(event.version)) return;
    state.known.add(event.version);
    state.pending.push(event);
    state.pending.sort((a, b) => a.version - b.version);
    pump();
  }

  async function pump() {
    if (state.pumping) return;
    state.pumping = true;
    state.selected = null;
    render();
    try {
      while (state.pending.length && !state.stopped) {
        // Far behind, or at the "instant" pace: every event is told in the feed, the last shown.
        if (state.pending.length > CATCH_UP || (paceMs() === 0 && state.pending.length > 1)) {
          const skipped = state.pending.splice(0, state.pending.length - 1);
          for (const event of skipped) note(event);
        }
        const event = state.pending[0];
        await show(event);
        state.pending = state.pending.filter((waitingEvent) => waitingEvent !== event);
      }
    } catch (problem) {
      if (problem.status === 0 || problem.status >= 500) {
        // The event stays first in line, and is shown once the service answers again.
        const said = notices.problem(problem, t("table.after.retry"));
        setTimeout(() => {
          said.remove();
          pump();
        }, RETRY_MS);
      } else {
        notices.problem(problem, t("table.after.now"));
        state.pending = [];
        catchUp().catch((again) => notices.problem(again));
      }
    } finally {
      state.pumping = false;
      render();
      focusHandIfMyTurn();
      if (!state.pending.length) readClock();
    }
  }

  // ---- the clock -------------------------------------------------------------------------

  /** The clock of the game shown, once the table shows its last version: read afresh (a
   * past version's view knows no deadline). A game already further on comes as events. */
  async function readClock() {
    if (state.stopped || !state.view?.clock || state.view.status !== "active") {
      clock.set(null);
      return;
    }
    if (clock.holds(state.view.version)) return;
    if (state.reading) {
      state.again = true; // the read on its way may be of an older version: once more after it
      return;
    }
    await readNow();
  }

  /** Read the game as it is now: its clock, and whatever happened that the stream has not
   * brought yet (the service's timekeeper took a seat, a stream fell behind). */
  async function readNow() {
    if (state.reading || state.stopped || !state.view) return;
    state.reading = true;
    try {
      const now = await api.view(gameId, { token });
      if (state.stopped) return;
      if (now.version === state.view.version && !waiting()) {
        clock.set(now.clock, now.version);
        render(); // the seat to move gets its count
      } else if (now.version > state.view.version) for (const event of await api.events(gameId, token, state.view.version)) enqueue(event);
    } catch (problem) {
      if (problem.status !== 0 && problem.status < 500) notices.problem(problem);
      // else the countdown asks again a little later
    } finally {
      state.reading = false;
      if (state.again && !waiting()) {
        state.again = false;
        readClock();
      }
    }
  }

  /** Count and describe an event that will not be shown on its own. */
  function note(event) {
    if (state.game.scoringEvents.includes(event.type)) state.scored += 1;
    noteAway(state.bots, event);
    addFeed(event);
  }

  async function show(event) {
    if (event.version <= state.view.version) return;
    const others = event.data?.seat !== undefined && event.data.seat !== you();
    if (event.version === state.view.version + 1) {
      const moment = state.game.moment(event, state.view);
      if (moment) {
        state.moment = moment;
        state.event = null;
        render();
        await pause(2);
      }
    }
    const view = await viewAt(event.version);
    if (state.stopped) return;
    note(event);
    // The sheet is read again once it has a line more than the one held (this event's, or
    // one told in passing at the "instant" pace), and at the end.
    const started = view.status !== "waiting";
    if (started && (!state.scores || scoredCount(state.game, state.scores) < state.scored || event.type === "game_finished")) await readScores();
    state.moment = null;
    state.view = view;
    state.names = namesOf(view);
    state.event = event;
    render();
    if (state.pending.length) await pause(others ? 1 : 0.4);
  }

  function pause(weight) {
    const ms = paceMs(weight);
    return ms ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  }

  /** Back to the game as it is now: after a refused move, or once the table fell behind. */
  async function catchUp() {
    const view = await api.view(gameId, { token });
    const missed = await api.events(gameId, token, state.view.version);
    for (const event of missed.filter((e) => e.version <= view.version)) {
      noteAway(state.bots, event); // every one, in order: some were queued, never shown
      if (state.known.has(event.version)) continue;
      state.known.add(event.version);
      addFeed(event);
    }
    state.pending = state.pending.filter((event) => event.version > view.version);
    if (view.status !== "waiting") await readScores();
    if (state.scores) state.scored = scoredCount(state.game, state.scores);
    state.view = view;
    state.names = namesOf(view);
    state.event = null;
    state.moment = null;
    clock.set(view.clock, view.version);
    render();
  }

  // ---- playing ---------------------------------------------------------------------------

  async function play(move) {
    if (!canPlay()) return;
    state.sending = true;
    state.selected = null;
    render();
    // The service answers a move with the bots' moves that follow it, searched first: past a
    // glance, the banner says so rather than "Sending your move…" for seconds.
    const late = searchers(state.view).length
      ? setTimeout(() => {
          state.thinking = state.sending;
          render();
        }, THINKING_MS)
      : null;
    try {
      const answer = await api.play(gameId, token, move, state.view.version);
      notices.clear();
      for (const event of answer.events) enqueue(event);
    } catch (problem) {
      notices.problem(problem, problem.status === 409 || problem.status === 422 ? t("table.after.refused") : "");
      try {
        await catchUp();
      } catch (again) {
        notices.problem(again);
      }
    } finally {
      clearTimeout(late);
      state.sending = false;
      state.thinking = false;
      render();
    }
  }

  // ---- the lobby: leaving a waiting game, playing again ------------------------------------

  /** Give the seat back while the game waits: it is open again for someone else. */
  async function leave() {
    if (state.leaving || !waitingForPlayers()) return;
    state.leaving = true;
    render();
    // Stop following first: once the seat is given back, its token reads nothing any more.
    state.stopped = true;
    state.stream?.stop();
    try {
      await api.leave(gameId, you(), token);
      release(gameId, you(), token);
      location.hash = links.lobby();
    } catch (problem) {
      notices.problem(problem, problem.code === "game_started" ? t("table.after.started") : "");
      state.leaving = false;
      state.stopped = false;
      state.pending = [];
      catchUp()
        .then(() => listen(state.view.version))
        .catch((again) => notices.problem(again));
    }
  }

  /** "Play again": this seat in the finished game's next game, created by the first seat to ask. */
  async function playAgain() {
    if (state.rematching) return;
    state.rematching = true;
    renderTop();
    try {
      const next = await api.rematch(gameId, token);
      location.hash = links.seat(next.game.game_id, next.token);
    } catch (problem) {
      notices.problem(problem, t("table.after.rematch"));
      state.rematching = false;
      renderTop();
    }
  }

  // ---- the seat held here: resigning, coming back ------------------------------------------

  function askResign(asking) {
    state.asking = asking;
    render();
    screen.querySelector(asking ? ".resign-no" : "button.resign")?.focus();
  }

  /** Resign (for good) or come back (`step`: api.resign or api.comeBack); the events it
   * causes are shown as any others, from the stream or read at once. */
  async function seatStep(step) {
    if (state.stepping) return;
    state.stepping = true;
    render();
    try {
      const after = await step(gameId, you(), token);
      notices.clear();
      state.asking = false;
      if (after.version > state.view.version) for (const event of await api.events(gameId, token, state.view.version)) enqueue(event);
    } catch (problem) {
      notices.problem(problem, t("table.after.now"));
      state.asking = false;
      state.pending = [];
      catchUp().catch((again) => notices.problem(again));
    } finally {
      state.stepping = false;
      render();
    }
  }

  function choose(index) {
    if (!canPlay()) return;
    state.selected = state.selected === index ? null : index;
    render();
  }

  function targetsOfSelected() {
    if (state.selected === null || !canPlay()) return [];
    return state.game.targets(state.view, state.view.you.hand[state.selected]);
  }

  function onKey(event) {
    if (!state.view || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === "Escape" && state.selected !== null) {
      state.selected = null;
      render();
      event.preventDefault();
      return;
    }
    const target = targetsOfSelected().find((choice) => choice.key === event.key);
    if (target) {
      event.preventDefault();
      play(target.move);
    }
  }
  document.addEventListener("keydown", onKey);

  /** Arrow keys move along the hand's playable cards (one tab stop for the whole hand). */
  function handKeys(event) {
    const cards = [...parts.hand.querySelectorAll(".hand-card:not([disabled])")];
    const at = cards.indexOf(event.currentTarget);
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: cards.length - 1 }[event.key];
    if (to === undefined || !cards.length) return;
    event.preventDefault();
    cards[(to + cards.length) % cards.length].focus();
  }

  function focusHandIfMyTurn() {
    if (!canPlay()) return;
    const active = document.activeElement;
    if (active && active !== document.body && active !== root && !parts.hand.contains(active)) return;
    const first = parts.hand.querySelector(".hand-card:not([disabled])");
    first?.focus({ preventScroll: true });
  }

  // ---- drawing -------------------------------------------------------------------------------

  function addFeed(event, text) {
    const line = h("li", { class: "feed-line", "data-version": event?.version ?? "" }, event ? h("span", { class: "feed-version" }, `#${event.version}`) : null, text ?? describeLobby(event, state.names) ?? describeAway(event, state.names) ?? describe(state.game, event, state.names));
    parts.feed.prepend(line);
    while (parts.feed.children.length > FEED_LINES) parts.feed.lastChild.remove();
  }

  function renderTop() {
    const { view, game } = state;
    if (!view) return;
    const finished = view.status === "finished";
    const over = isOver(view);
    fill(
      parts.top,
      h("h1", null, game.title),
      h(
        "ul",
        { class: "facts" },
        (waitingForPlayers() ? [t("table.waiting_players")] : game.status(view)).map((fact) => h("li", null, fact)),
        view.clock ? h("li", { class: "per-move" }, perMove(view.clock)) : null,
        h("li", { class: "version" }, t("table.event", { version: view.version })),
      ),
      h("span", { class: ["connection", `connection-${state.connection}`], "data-connection": state.connection }, over ? t("table.over") : t(`connection.${state.connection}`)),
      paceControl(),
      h(
        "nav",
        { class: "table-links" },
        token ? h("a", { href: links.watch(gameId), title: t("table.watch_link.title") }, t("table.watch_link")) : null,
        over ? h("a", { href: links.steps(gameId), class: "button" }, t("table.step_through")) : null,
        over ? h("a", { href: api.exportUrl(gameId), download: `${view.ruleset}-${gameId}.ndjson` }, t("table.download")) : null,
        finished && token
          ? h("button", { type: "button", class: "primary play-again", disabled: state.rematching, title: t("table.again.title"), on: { click: playAgain } }, view.next_game ? t("table.join_rematch") : t("table.play_again"))
          : null,
        finished && !token && view.next_game ? h("a", { href: links.watch(view.next_game), class: "next-game" }, t("table.watch_next")) : null,
        over ? h("a", { href: links.lobby() }, t("table.new_game")) : null,
      ),
    );
  }

  function turnText() {
    const { view, game, names } = state;
    if (waitingForPlayers()) {
      const open = openSeats(view).length;
      return t("table.waiting_for", { open });
    }
    if (view.status === "finished") return h("span", { class: "game-over" }, tn("table.game_over", { winners: game.winnersText(view.winners, view.totals, names) }));
    if (view.status === "abandoned") return abandonedLine();
    // While the table shows what others did, the banner says it: the move, the overflow, the round's scores.
    if (state.moment) return tn("table.plays", { name: who(names[state.moment.seat]) });
    if (waiting()) return state.event ? describe(game, state.event, names) : t("table.catching_up");
    if (view.turn === null) return t("table.dealing");
    if (state.thinking) return thinkingText(searchers(view).map((player) => names[player.seat]));
    if (state.sending) return t("table.sending");
    if (myTurn()) return state.selected === null ? game.prompt.pick : game.prompt.place(view.you.hand[state.selected]);
    const player = view.players[view.turn];
    if (player.bot || player.away) return thinkingText([player.name]);
    return tn(you() === null ? "table.to_play" : "table.waiting_for_player", { name: who(player.name) });
  }

  function thinkingText(thinkers) {
    return tn("table.thinking", { count: thinkers.length, names: listing(thinkers.map(who)) });
  }

  function renderHand() {
    const { view, game } = state;
    if (!view.you) {
      fill(parts.hand);
      return;
    }
    const playable = canPlay();
    const hand = view.you.hand;
    const legal = hand.map((code) => playable && game.targets(view, code).length > 0);
    const firstLegal = legal.indexOf(true);
    fill(
      parts.hand,
      h(
        "section",
        { class: ["hand", playable && "my-turn"], "aria-label": t("hand.label") },
        h("h2", null, t("hand.title"), h("span", { class: "count" }, t("hand.count", { count: hand.length }))),
        hand.length
          ? h(
              "div",
              { class: "hand-cards", role: "group", "aria-label": t("hand.cards") },
              hand.map((code, index) =>
                h(
                  "button",
                  {
                    type: "button",
                    class: ["hand-card", state.selected === index && "selected", legal[index] && "legal"],
                    "data-card": code,
                    "data-index": index,
                    "data-focus": `card-${index}`,
                    "data-legal": legal[index] ? "true" : "false",
                    disabled: !legal[index],
                    "aria-pressed": state.selected === index ? "true" : "false",
                    "aria-label": playable && !legal[index] ? t("hand.cannot", { card: game.face(code).label }) : game.face(code).label,
                    tabIndex: index === (state.selected ?? firstLegal) ? 0 : -1,
                    on: { click: () => choose(index), keydown: handKeys },
                  },
                  game.card(code),
                ),
              ),
            )
          : h("p", { class: "empty" }, t("hand.none")),
        playable ? h("p", { class: "keys" }, t("hand.keys")) : null,
      ),
    );
  }

  function renderMine() {
    const player = mine();
    if (!player || state.view.status !== "active") {
      fill(parts.mine);
      return;
    }
    fill(
      parts.mine,
      yourSeat(player, state.bots, {
        resign: () => seatStep(api.resign),
        comeBack: () => seatStep(api.comeBack),
        asking: state.asking,
        ask: askResign,
        busy: state.stepping,
        clocked: Boolean(state.view.clock),
      }),
    );
  }

  function renderSide() {
    const { view, game, names, scores } = state;
    if (!scores) return;
    fill(parts.sheet, sheet(game, scores, view, names, state.scored));
    if (state.scored > 0 || view.status === "finished") {
      fill(parts.chart, h("section", { class: "panel" }, h("h2", null, t("chart.title")), totalsChart(game.series(scores, state.scored), names)));
    } else {
      fill(parts.chart);
    }
  }

  function render() {
    const { view, game } = state;
    if (!view) return;
    const focused = document.activeElement?.dataset?.focus;
    screen.dataset.version = view.version;
    screen.dataset.status = view.status;
    screen.dataset.turn = view.turn ?? "";
    screen.dataset.busy = waiting() || state.sending ? "true" : "false";
    renderTop();
    fill(parts.turn, turnText());
    parts.turn.classList.toggle("yours", myTurn() && !waiting());
    if (waitingForPlayers()) {
      // Nothing is dealt yet: the seats, who has joined, and the way out.
      fill(parts.seats, waitingRoom(view, { you: you(), leave: token ? leave : null, leaving: state.leaving }));
      fill(parts.board);
      fill(parts.hand);
    } else {
      fill(parts.seats, seatList(view, game, { you: you(), event: state.event, bots: state.bots, clock: clock.holds(view.version) }));
      fill(parts.board, game.board(view, { moment: state.moment, event: state.event, targets: targetsOfSelected(), play, names: state.names, selected: state.selected === null ? null : view.you?.hand[state.selected] }));
      renderHand();
    }
    renderMine();
    renderSide();
    clock.paint();
    parts.deals.show(view);
    document.title = t(myTurn() && !waiting() ? "title.your_turn" : "title.game", { game: game.title });
    if (focused) screen.querySelector(`[data-focus="${focused}"]:not([disabled])`)?.focus({ preventScroll: true });
  }

  start();
  return () => {
    state.stopped = true;
    state.stream?.stop();
    clock.stop();
    document.removeEventListener("keydown", onKey);
  };
}
