// The service's public HTTP API (docs/http-api.md), and nothing else: the page is a client
// like any other. A seat's token travels only in the Authorization header, never in a URL.
// Every refusal arrives as a Problem carrying the API's stable `code` and its readable `detail`.

import { heard } from "./servertime.js";

/** An answer of 4xx/5xx: problem+json (RFC 9457), or what the network said. */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code ?? "network_error";
    this.title = body.title ?? "The request failed";
    this.detail = body.detail ?? "";
    this.body = body;
  }
}

/** A key for Idempotency-Key: random, and made where crypto.randomUUID is missing too (a
 * page served over plain HTTP to a friend's browser on the same network is no secure context). */
export function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "table-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function call(method, path, { token, json, body, type, query, key, accept } = {}) {
  const headers = { Accept: accept ?? "application/json" };
  if (key) headers["Idempotency-Key"] = key;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = typeof json === "string" ? json : JSON.stringify(json);
  } else if (body !== undefined) {
    headers["Content-Type"] = type;
  }
  const search = query ? String(new URLSearchParams(query)) : "";
  const url = search ? `${path}?${search}` : path;
  let response;
  const sent = Date.now();
  try {
    response = await fetch(url, { method, headers, body, cache: "no-store" });
    heard(response.headers.get("Date"), sent, Date.now());
  } catch (error) {
    throw new Problem(0, { title: "The service cannot be reached", detail: String(error.message ?? error) });
  }
  const text = await response.text();
  if (!response.ok) {
    let problem;
    try {
      problem = JSON.parse(text);
    } catch {
      problem = { title: response.statusText, detail: text.slice(0, 200) };
    }
    throw new Problem(response.status, problem);
  }
  if (accept) return text; // asked for something other than JSON: the text as it came
  return text ? JSON.parse(text) : null;
}

/** How often a request whose outcome is unknown is sent (with its one key) before giving up. */
const ATTEMPTS = 3;

/** A request that changes the game, sent again with the same Idempotency-Key while its
 * outcome is unknown (the network failed, or 503: the store may have taken it), so that it
 * happens at most once and a retry gets the first answer. */
async function retried(send) {
  const key = idempotencyKey();
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(key);
    } catch (problem) {
      if (attempt >= ATTEMPTS || !(problem.status === 0 || problem.status === 503)) throw problem;
      await new Promise((resolve) => setTimeout(resolve, 400 * attempt));
    }
  }
}

/** Leave out the parameters that are not set. */
function only(params) {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== false));
}

export const api = {
  /** The OpenAPI document: the lobby reads each ruleset's seats and options from it. */
  document: () => call("GET", "/schema/openapi.json"),

  listGames: ({ status, limit, cursor } = {}) => call("GET", "/v1/games", { query: only({ status, limit, cursor }) }),

  /** `body` is JSON text: a seed may be as large as 2⁶³−1, beyond JavaScript's exact numbers. */
  createGame: (body) => call("POST", "/v1/games", { json: body }),

  /** The game now, or right after event `version` (with `you`: the token's seat as it was then). */
  view: (gameId, { token, version, you } = {}) =>
    call("GET", `/v1/games/${encodeURIComponent(gameId)}`, { token, query: only({ version, you: you && token ? "true" : undefined }) }),

  /** A move, sent again with the same Idempotency-Key while its outcome is unknown (the
   * network failed, or 503: the store may have taken it), so it is played at most once. */
  play: (gameId, token, move, expectedVersion) =>
    retried((key) => call("POST", `/v1/games/${encodeURIComponent(gameId)}/moves`, { token, key, json: { ...move, expected_version: expectedVersion } })),

  /** Take open seat `seat` of a waiting game under `name`: {seat, name, token, game}. The key
   * makes a retry (after a dropped answer) get the first answer, never a second seat. */
  join: (gameId, seat, name) => retried((key) => call("POST", `/v1/games/${encodeURIComponent(gameId)}/seats/${seat}`, { key, json: { name } })),

  /** Resign the token's seat for good: the server's bot plays it to the end. The game after it. */
  resign: (gameId, seat, token) => retried((key) => call("POST", `/v1/games/${encodeURIComponent(gameId)}/seats/${seat}/resign`, { token, key })),

  /** Play the token's seat again after its clock ran out (it was away). The game after it. */
  comeBack: (gameId, seat, token) => retried((key) => call("POST", `/v1/games/${encodeURIComponent(gameId)}/seats/${seat}/return`, { token, key })),

  /** Leave the token's seat of a waiting game: it is open again, and the token no longer works. */
  leave: (gameId, seat, token) => call("DELETE", `/v1/games/${encodeURIComponent(gameId)}/seats/${seat}`, { token, key: idempotencyKey() }),

  /** "Play again": the token's seat in the finished game's next game (the first call creates
   * it, the other seats' calls join it): {seat, name, token, game}. */
  rematch: (gameId, token) => call("POST", `/v1/games/${encodeURIComponent(gameId)}/rematch`, { token, key: idempotencyKey() }),

  scores: (gameId) => call("GET", `/v1/games/${encodeURIComponent(gameId)}/scores`),

  /** The log after version `after` (the whole log by default), page by page. */
  async events(gameId, token, after = 0) {
    const events = [];
    for (;;) {
      const page = await call("GET", `/v1/games/${encodeURIComponent(gameId)}/events`, {
        token,
        query: { after: after + events.length, limit: 5000 },
      });
      events.push(...page.events);
      if (!page.events.length || after + events.length >= page.version) return events;
    }
  },

  exportUrl: (gameId) => `/v1/games/${encodeURIComponent(gameId)}/export`,

  /** A finished game's whole log, nothing redacted (NDJSON text, as the download gives it). */
  exported: (gameId) => call("GET", api.exportUrl(gameId), { accept: "application/x-ndjson" }),

  streamUrl: (gameId, after) => `/v1/games/${encodeURIComponent(gameId)}/events/stream?after=${after}`,

  /** Check an exported log (NDJSON text) and show the game it describes, after `version` events. */
  replay: (ndjson, version) =>
    call("POST", "/v1/replays", { body: ndjson, type: "application/x-ndjson", query: only({ version }) }),
};
