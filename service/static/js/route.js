// The page's addresses, all in the URL fragment, which a browser never sends to a server:
//   #/                          the lobby
//   #/games/ID                  watch a game (the public view)
//   #/games/ID?token=T          play a seat: the token stays in the fragment and in the
//                               Authorization header, never in a request's path or query
//   #/games/ID/steps?version=N  step through a finished game, event by event
//   #/replay                    drop an exported log to replay it
//   #/rules/GAME                the whole rules of a game (poison, pot) in the reader's language

export function parse(hash) {
  const [path, query = ""] = hash.replace(/^#/, "").split("?", 2);
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const version = Number.parseInt(params.get("version") ?? "", 10);
  if (parts[0] === "games" && parts[1]) {
    if (parts[2] === "steps") return { screen: "steps", gameId: parts[1], version: Number.isFinite(version) ? version : null };
    return { screen: "table", gameId: parts[1], token: params.get("token") || null };
  }
  if (parts[0] === "replay") return { screen: "file" };
  if (parts[0] === "rules") return { screen: "rules", game: parts[1] ?? "" };
  return { screen: "lobby", status: params.get("status") || null };
}

const game = (gameId) => `#/games/${encodeURIComponent(gameId)}`;

export const links = {
  lobby: () => "#/",
  watch: (gameId) => game(gameId),
  seat: (gameId, token) => `${game(gameId)}?token=${encodeURIComponent(token)}`,
  steps: (gameId, version) => `${game(gameId)}/steps${version ? `?version=${version}` : ""}`,
  replay: () => "#/replay",
  rules: (game) => `#/rules/${encodeURIComponent(game)}`,
  /** The whole address, to send to a friend. */
  absolute: (fragment) => `${location.origin}${location.pathname}${fragment}`,
};
