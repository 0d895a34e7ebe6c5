"""Helpers for the API tests: create games, play moves, follow the reference."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(client: AsyncTestClient, players: int = 4, *, bots: dict[int, str] | None = None, **options: Any):
    bots = bots or {}
    body = {
        "players": [{"name": f"p{s}", **({"bot": bots[s]} if s in bots else {})} for s in range(players)],
        **options,
    }
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    tokens = {p["seat"]: p["token"] for p in created["players"] if "token" in p}
    return created, tokens


async def view(client: AsyncTestClient, game_id: str, token: str | None = None) -> dict:
    response = await client.get(f"/v1/games/{game_id}", headers=auth(token) if token else {})
    assert response.status_code == 200, response.text
    return response.json()
