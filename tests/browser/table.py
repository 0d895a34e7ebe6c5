"""Helpers of the browser tests: the API as a second client (to set games up, play the other
seats, and check what the page shows), and reading the page as a person reads it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from playwright.sync_api import Page

TABLE = "section.table-screen"
STEPS = "section.steps-screen"
#: Four bots: a game of them is played to its end as soon as it is created.
BOTS = [
    {"name": "Ana", "bot": "greedy"},
    {"name": "Bob", "bot": "random"},
    {"name": "Cy", "bot": "greedy"},
    {"name": "Dee", "bot": "random"},
]


def create(base: str, players: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    """A new game through the API; its answer (game_id, each person's token, the game)."""
    answer = httpx.post(f"{base}/v1/games", json={"players": players, **options}, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def token_of(created: dict[str, Any], name: str) -> str:
    return next(player["token"] for player in created["players"] if player["name"] == name)


def read(base: str, game_id: str, token: str | None = None, **params: Any) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.get(f"{base}/v1/games/{game_id}", headers=headers, params=params, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def scores(base: str, game_id: str) -> dict[str, Any]:
    answer = httpx.get(f"{base}/v1/games/{game_id}/scores", timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def play_first_legal(base: str, game_id: str, token: str) -> dict[str, Any]:
    """Play the token's seat's first legal move through the API (it must be its turn)."""
    game = read(base, game_id, token)
    move = game["you"]["legal_moves"][0]
    answer = httpx.post(
        f"{base}/v1/games/{game_id}/moves",
        headers={"Authorization": f"Bearer {token}"},
        json={**move, "expected_version": game["version"]},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def number(text: str) -> int:
    """A total as the page writes it: "12", "+4", "−3" (a true minus sign), maybe with a ★."""
    cleaned = text.replace("★", "").replace("−", "-").replace("+", "").strip()
    return int(cleaned)


def totals_shown(page: Page) -> list[int]:
    return [number(text) for text in page.locator(f"{TABLE} .seat .total").all_inner_texts()]


def settled(page: Page, timeout: float = 15_000) -> None:
    """Wait until the table has shown every event it knows of and sends nothing."""
    page.wait_for_selector(f'{TABLE}[data-busy="false"]', timeout=timeout)


def my_turn_or_over(page: Page, timeout: float = 15_000) -> str:
    """Wait until the table waits for this seat's move, or the game is over: which of the two.
    (A hand is drawn as `my-turn` only once every event has been shown and nothing is sent.)"""
    page.wait_for_selector(f'.hand.my-turn, {TABLE}[data-status="finished"][data-busy="false"]', timeout=timeout)
    return page.locator(TABLE).get_attribute("data-status") or ""


def version_shown(page: Page) -> int:
    return int(page.locator(TABLE).get_attribute("data-version") or 0)


RECORD_VERSIONS = """
window.versionsShown = [];
new MutationObserver(() => {
  const table = document.querySelector("section.table-screen");
  const version = table && Number(table.dataset.version);
  if (version && window.versionsShown.at(-1)?.version !== version) {
    window.versionsShown.push({ version, at: performance.now() });
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-version"], childList: true });
"""
"""An init script: every version the table shows, in order, and when (window.versionsShown)."""


def play_out(base: str, game_id: str, tokens: dict[int, str]) -> int:
    """Play every person's seat (`tokens`, by seat) to the end through the API, each its
    first legal move, on one connection, reading a seat's view only when the last answer
    was another's: the number of moves played."""
    moves = 0
    with httpx.Client(base_url=base, timeout=10) as http:

        def view(seat: int) -> dict[str, Any]:
            return http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[seat]}"}).json()

        game = view(next(iter(tokens)))
        while game["status"] == "active":
            if game["you"]["seat"] != game["turn"]:
                game = view(game["turn"])
            answer = http.post(
                f"/v1/games/{game_id}/moves",
                headers={"Authorization": f"Bearer {tokens[game['turn']]}"},
                json={**game["you"]["legal_moves"][0], "expected_version": game["version"]},
            )
            assert answer.status_code == 201, answer.text
            game = answer.json()["game"]
            moves += 1
    return moves


def finished_game(served: str, ruleset: str, seats: int) -> dict[str, Any]:
    """A game of `seats` bots (two rounds of Poison, or the pot game), over once created: its create answer."""
    options = {"rounds": 2} if ruleset == "poison" else {"ruleset": "pot"}
    created = create(served, BOTS[:seats], seed=21, **options)
    assert created["game"]["status"] == "finished", "bots alone play the whole game at once"
    return created


def finished_id_and_version(served: str, ruleset: str, seats: int) -> tuple[str, int]:
    """A finished game's id and its last version (see `finished_game`), for a page that
    steps through it to the end."""
    created = finished_game(served, ruleset, seats)
    return created["game_id"], created["game"]["version"]


def exported(served: str, game_id: str) -> str:
    """A finished game's log as its download gives it (NDJSON)."""
    answer = httpx.get(f"{served}/v1/games/{game_id}/export", timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.text


def altered(served: str, game_id: str, version: int, kind: str, change: Callable[[dict[str, Any]], object]) -> str:
    """A finished game's exported log with its event `version` (which is a `kind`) changed
    in place by `change`: a log tampered with, or one from before a field existed."""
    lines = exported(served, game_id).splitlines()
    event = json.loads(lines[version - 1])
    assert event["type"] == kind
    change(event)
    lines[version - 1] = json.dumps(event)
    return "\n".join(lines) + "\n"


def drop_file(page: Page, selector: str, text: str, name: str) -> None:
    """Drop a file on an element, as a person dragging it from their desktop does."""
    page.locator(selector).evaluate(
        """(zone, [text, name]) => {
            const carried = new DataTransfer();
            carried.items.add(new File([text], name, { type: "application/x-ndjson" }));
            for (const type of ["dragenter", "dragover", "drop"]) {
                zone.dispatchEvent(new DragEvent(type, { dataTransfer: carried, bubbles: true, cancelable: true }));
            }
        }""",
        [text, name],
    )
