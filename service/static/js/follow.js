// Following a game live over its Server-Sent Events stream (GET …/events/stream).
//
// The browser's EventSource does the reconnecting: after a dropped connection it asks again
// with `Last-Event-ID`, the last version it got, and the stream goes on from the event after
// it. If the stream is refused instead (the service restarting, a 503), EventSource gives up;
// then a new one is opened, after a pause that doubles, from `?after=` the last version seen.
// No token is sent: EventSource cannot send headers, and the public events are enough, since
// the table reads a seat's own hand with its token after each event.

import { api } from "./api.js";

/** The events after which nothing more is ever played: the stream ends there. */
const ENDS = ["game_finished", "game_abandoned"];
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 8000;

/**
 * Calls `onEvent(event)` for each event after version `after`, in order, and
 * `onState(state)` with "live", "reconnecting", "offline" or "ended". Returns `stop()`.
 */
export function follow(gameId, after, eventTypes, { onEvent, onState }) {
  let source = null;
  let last = after;
  let stopped = false;
  let pause = FIRST_PAUSE_MS;
  let timer = null;

  function received(message) {
    const event = JSON.parse(message.data);
    if (event.version <= last) return;
    last = event.version;
    onEvent(event);
    if (ENDS.includes(event.type)) end();
  }

  function open() {
    timer = null;
    source = new EventSource(api.streamUrl(gameId, last));
    source.addEventListener("open", () => {
      pause = FIRST_PAUSE_MS;
      onState("live");
    });
    for (const type of eventTypes) source.addEventListener(type, received);
    source.addEventListener("error", () => {
      if (stopped) return;
      if (source.readyState === EventSource.CONNECTING) {
        onState("reconnecting"); // EventSource asks again itself, with Last-Event-ID
        return;
      }
      source.close();
      onState("offline");
      timer = setTimeout(open, pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    });
  }

  function end() {
    stop();
    onState("ended");
  }

  function stop() {
    stopped = true;
    if (timer) clearTimeout(timer);
    source?.close();
  }

  open();
  return { stop, lastVersion: () => last };
}
