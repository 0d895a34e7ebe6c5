// The seats this browser holds, kept in its own storage (localStorage, which only pages of
// this service read) so that a seat is found again without its link: each one's game,
// seat, name, ruleset and token, newest first. A seat is kept when its table is opened with
// its token; it is let go when its person leaves it, when its token turns out to be no
// seat's, or when its person forgets it in the lobby. The token is never sent anywhere but
// in the Authorization header of this service's requests, as the link's is.

const KEY = "poison-table.seats";
/** The most seats kept: the oldest is let go first. */
const MOST = 30;

function read() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(kept) ? kept.filter((entry) => entry && typeof entry.game_id === "string" && Number.isInteger(entry.seat) && typeof entry.token === "string") : [];
  } catch {
    return []; // a browser that keeps nothing, or a value some other page wrote
  }
}

function write(entries) {
  try {
    localStorage.setItem(KEY, JSON.stringify(entries.slice(0, MOST)));
  } catch {
    // a browser that keeps nothing: the seat's link is still the way back
  }
}

/** Every seat kept, newest first: {game_id, seat, name, ruleset, token, at}. */
export const heldSeats = () => read();

/** Keep a seat (again: it moves to the front, with its newest token). */
export function hold({ game_id, seat, name, ruleset, token }) {
  write([{ game_id, seat, name, ruleset, token, at: Date.now() }, ...read().filter((entry) => entry.game_id !== game_id || entry.seat !== seat)]);
}

/** Let go of a game's seat (`seat` null: whichever seat), only if `token` is the one kept
 * when it is given (a newer token for the seat stays). */
export function release(gameId, seat = null, token = null) {
  const gone = (entry) => entry.game_id === gameId && (seat === null || entry.seat === seat) && (token === null || entry.token === token);
  write(read().filter((entry) => !gone(entry)));
}
