"""Idempotency keys belong to their caller (issue 11, defect 4): a key one seat used, even
for a refused move, never decides another seat's request with the same key."""

from __future__ import annotations

import pytest

from tests.service.api import auth, create, view

pytestmark = pytest.mark.anyio


async def test_a_key_burnt_by_a_seat_not_to_move_does_not_refuse_the_movers_move(client):
    created, tokens = await create(client, 3, seed=31)
    game_id = created["game_id"]
    assert (await view(client, game_id))["turn"] == 1
    other = (await view(client, game_id, tokens[2]))["you"]["hand"][0]
    burnt = await client.post(
        f"/v1/games/{game_id}/moves",
        json={"card": other, "cauldron": 0},
        headers={**auth(tokens[2]), "Idempotency-Key": "shared"},
    )
    assert burnt.status_code == 409, burnt.text  # not seat 2's turn: refused, recorded under its key
    move = (await view(client, game_id, tokens[1]))["you"]["legal_moves"][0]
    mover = await client.post(
        f"/v1/games/{game_id}/moves", json=move, headers={**auth(tokens[1]), "Idempotency-Key": "shared"}
    )
    assert mover.status_code == 201, mover.text
    assert (await view(client, game_id))["version"] == 3
    # Each caller's record still answers its own retries, and only its own.
    again = await client.post(
        f"/v1/games/{game_id}/moves", json=move, headers={**auth(tokens[1]), "Idempotency-Key": "shared"}
    )
    assert (again.status_code, again.content) == (201, mover.content)
    retried = await client.post(
        f"/v1/games/{game_id}/moves",
        json={"card": other, "cauldron": 0},
        headers={**auth(tokens[2]), "Idempotency-Key": "shared"},
    )
    assert (retried.status_code, retried.content) == (409, burnt.content)


async def test_a_successful_move_under_a_key_does_not_bind_the_next_seats_key(client):
    created, tokens = await create(client, 3, seed=32)
    game_id = created["game_id"]
    for _ in range(3):  # three seats in turn, all with the same key
        seat = (await view(client, game_id))["turn"]
        move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
        response = await client.post(
            f"/v1/games/{game_id}/moves", json=move, headers={**auth(tokens[seat]), "Idempotency-Key": "same"}
        )
        assert response.status_code == 201, response.text
    assert (await view(client, game_id))["version"] == 5
