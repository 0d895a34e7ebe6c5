"""Tokens and idempotency records against a stranger (issue 27, defects 4, 5 and 8), through
the real app on the real store: an idempotent retry answers only the caller who made the
first request, a probe with someone's key learns nothing, the store holds no token in any
form, nobody who reads the store can make a rematch token, and the refusals kept under
idempotency keys stay within their bound."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator

import msgspec
import pytest
from litestar.testing import AsyncTestClient
from litestar.types import ASGIApp, Receive, Scope, Send
from redis.asyncio import Redis

from service.app import create_app
from service.settings import Settings
from tests.service.api import auth, problem, view

pytestmark = pytest.mark.anyio

#: The header by which a test says a request comes from another address (see `client`).
ADDRESS = "x-test-address"
#: The stranger's address: another machine than the test client's.
STRANGER = {ADDRESS: "203.0.113.9"}


def from_address(app: ASGIApp) -> ASGIApp:
    """`app`, told that a request with the ADDRESS header comes from that address (the test
    client's transport names one address for all)."""

    async def addressed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == ADDRESS.encode():
                    scope = {**scope, "client": (value.decode(), 40000)}  # type: ignore[typeddict-item]
        await app(scope, receive, send)

    return addressed


@pytest.fixture
async def client(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    async with AsyncTestClient(from_address(create_app(settings))) as client:
        yield client


async def waiting(client: AsyncTestClient) -> tuple[str, str]:
    """ann at seat 0, seats 1 and 2 open: the game id and ann's token."""
    body = {"players": [{"name": "ann"}, {"open": True}, {"open": True}], "rounds": 1}
    created = (await client.post("/v1/games", json=body)).json()
    return created["game_id"], created["players"][0]["token"]


async def join(
    client: AsyncTestClient,
    game_id: str,
    seat: int,
    name: str,
    key: str | None = None,
    by: dict[str, str] | None = None,
):
    headers = {**({"Idempotency-Key": key} if key else {}), **(by or {})}
    return await client.post(f"/v1/games/{game_id}/seats/{seat}", json={"name": name}, headers=headers)


async def test_a_strangers_join_with_the_joiners_key_and_body_is_a_request_of_its_own(client):
    game_id, _ = await waiting(client)
    joined = await join(client, game_id, 1, "bea", "bea-join-1")
    assert joined.status_code == 201, joined.text
    token = joined.json()["token"]
    copied = await join(client, game_id, 1, "bea", "bea-join-1", STRANGER)
    problem(copied, 409, "seat_taken")  # not bea's answer
    assert token not in copied.text
    # bea's own retry still gets her first answer, byte for byte, and her token works.
    again = await join(client, game_id, 1, "bea", "bea-join-1")
    assert (again.status_code, again.content) == (201, joined.content)
    assert (await view(client, game_id, token))["you"]["seat"] == 1


async def test_a_probe_of_another_seat_with_a_joiners_key_does_not_say_the_key_is_in_use(client):
    game_id, _ = await waiting(client)
    assert (await join(client, game_id, 1, "bea", "bea-join-1")).status_code == 201
    probe = await join(client, game_id, 2, "zed", "bea-join-1", STRANGER)
    assert probe.status_code == 201, probe.text  # a join of its own, as under any unused key
    assert probe.json()["seat"] == 2


async def test_the_joiner_reusing_a_key_for_another_seat_is_still_told_so(client):
    game_id, _ = await waiting(client)
    assert (await join(client, game_id, 1, "bea", "bea-join-1")).status_code == 201
    problem(await join(client, game_id, 2, "bea", "bea-join-1"), 422, "idempotency_key_reused")


async def test_a_leave_under_a_key_another_token_used_on_the_seat_is_a_leave_of_its_own(client):
    game_id, ann = await waiting(client)
    assert (await join(client, game_id, 1, "bea")).status_code == 201  # so that the game is not abandoned
    left = await client.delete(f"/v1/games/{game_id}/seats/0", headers={**auth(ann), "Idempotency-Key": "k"})
    assert left.status_code == 204
    cal = (await join(client, game_id, 0, "cal")).json()["token"]
    leave = await client.delete(f"/v1/games/{game_id}/seats/0", headers={**auth(cal), "Idempotency-Key": "k"})
    assert leave.status_code == 204, leave.text  # not 422: ann's key says nothing to cal
    assert (await view(client, game_id))["players"][0]["open"] is True


async def store_values(raw: Redis, namespace: str) -> list[bytes]:
    """Every key's name and every value under the namespace, whatever its type."""
    found: list[bytes] = []
    async for key in raw.scan_iter(match=f"{namespace}:*"):
        found.append(key)
        kind = (await raw.type(key)).decode()
        if kind == "string":
            found.append(await raw.get(key))
        elif kind == "hash":
            for field, value in (await raw.hgetall(key)).items():
                found += [field, value]
        elif kind == "list":
            found += await raw.lrange(key, 0, -1)
        elif kind == "zset":
            found += await raw.zrange(key, 0, -1)
        elif kind == "set":
            found += list(await raw.smembers(key))
        elif kind == "stream":
            for _, fields in await raw.xrange(key):
                for field, value in fields.items():
                    found += [field, value]
        else:
            pytest.fail(f"a key of a type this scan does not read: {key!r} is a {kind}")
    return found


def forms_of(token: str) -> list[bytes]:
    """A token as the store could hold it: its text, its bytes (raw and in hex), its SHA-256
    hash (from which the old rematch tokens were made)."""
    decoded = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    digest = hashlib.sha256(token.encode()).hexdigest()
    return [token.encode(), decoded, decoded.hex().encode(), digest.encode(), bytes.fromhex(digest)]


async def play_out(client: AsyncTestClient, game_id: str, tokens: dict[int, str]) -> None:
    """Every move to the end, each under a key, and a refused move under a key too."""
    number = 0
    while (game := await view(client, game_id))["status"] == "active":
        seat = game["turn"]
        number += 1
        for idle in (s for s in tokens if s != seat):
            hand = (await view(client, game_id, tokens[idle]))["you"]["hand"]
            if hand:  # not its turn: refused, and kept under its key
                headers = {**auth(tokens[idle]), "Idempotency-Key": f"refused-{number}"}
                refused = await client.post(
                    f"/v1/games/{game_id}/moves", json={"card": hand[0], "cauldron": 0}, headers=headers
                )
                assert refused.status_code == 409, refused.text
                break
        move = (await view(client, game_id, tokens[seat]))["you"]["legal_moves"][0]
        headers = {**auth(tokens[seat]), "Idempotency-Key": f"move-{number}"}
        assert (await client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers)).status_code == 201


async def test_no_token_is_in_any_key_or_value_of_the_store_after_a_game_its_lobby_and_its_rematch(
    client, raw, namespace
):
    game_id, ann = await waiting(client)
    left = (await join(client, game_id, 1, "dee", "dee-join")).json()["token"]
    leave = await client.delete(f"/v1/games/{game_id}/seats/1", headers={**auth(left), "Idempotency-Key": "go"})
    assert leave.status_code == 204
    bea = (await join(client, game_id, 1, "bea", "bea-join")).json()["token"]
    problem(await join(client, game_id, 1, "eve", "eve-join"), 409, "seat_taken")  # a refusal kept under its key
    cal = (await join(client, game_id, 2, "cal", "cal-join")).json()["token"]
    tokens = {0: ann, 1: bea, 2: cal}
    await play_out(client, game_id, tokens)
    rematched = [
        (await client.post(f"/v1/games/{game_id}/rematch", headers={**auth(t), "Idempotency-Key": "again"})).json()
        for t in tokens.values()
    ]
    every_token = [ann, left, bea, cal, *(answer["token"] for answer in rematched)]
    next_game = (await view(client, game_id))["next_game"]
    assert (await view(client, next_game, rematched[1]["token"]))["you"]["seat"] == 1
    values = await store_values(raw, namespace)
    assert len(values) > 50
    found = [(token, form) for token in every_token for form in forms_of(token) for value in values if form in value]
    assert found == []


async def test_nobody_who_reads_the_store_can_make_a_rematch_token(client, raw, namespace):
    body = {"players": [{"name": "ann"}, {"name": "bob"}, {"name": "cal"}], "rounds": 1}
    created = (await client.post("/v1/games", json=body)).json()
    game_id = created["game_id"]
    tokens = {p["seat"]: p["token"] for p in created["players"]}
    await play_out(client, game_id, tokens)
    assert (await client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[0]))).status_code == 201
    next_game = (await view(client, game_id))["next_game"]
    # What the store holds of bob's seat in the finished game, and what was once made of it.
    stored = await raw.hget(f"{namespace}:{{{game_id}}}:tokens", "1")
    assert stored is not None
    digest = hashlib.sha256("\0".join(("rematch", stored.decode(), next_game)).encode()).digest()
    while (forged := base64.urlsafe_b64encode(digest).decode().rstrip("=")[:43]).startswith("-"):
        digest = hashlib.sha256(digest).digest()
    problem(await client.get(f"/v1/games/{next_game}", headers=auth(forged)), 401, "unauthorized")
    problem(await client.get(f"/v1/games/{next_game}", headers=auth(stored.decode()[-43:])), 401, "unauthorized")
    bob = (await client.post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[1]))).json()["token"]
    assert (await view(client, next_game, bob))["you"]["seat"] == 1


@pytest.fixture
async def unthrottled(settings: Settings) -> AsyncIterator[AsyncTestClient]:
    """The app with rate limits no test of refusals meets, keeping 20 refusals per seat."""
    loose = msgspec.structs.replace(settings, seat_move_burst=1_000_000, move_burst=1_000_000, kept_refusals=20)
    async with AsyncTestClient(create_app(loose)) as client:
        yield client


async def test_refusals_beyond_the_setting_are_forgotten_and_the_kept_ones_answer_their_retries(
    unthrottled, raw, namespace
):
    body = {"players": [{"name": "ann"}, {"name": "bob"}, {"name": "cal"}]}
    created = (await unthrottled.post("/v1/games", json=body)).json()
    game_id = created["game_id"]
    token = next(p["token"] for p in created["players"] if p["seat"] != created["game"]["turn"])
    card = (await view(unthrottled, game_id, token))["you"]["hand"][0]

    async def refused(number: int) -> bytes:
        headers = {**auth(token), "Idempotency-Key": f"fresh-{number}"}
        answer = await unthrottled.post(
            f"/v1/games/{game_id}/moves", json={"card": card, "cauldron": 0}, headers=headers
        )
        assert answer.status_code == 409, answer.text
        return answer.content

    answers = [await refused(number) for number in range(60)]
    records = [key async for key in raw.scan_iter(match=f"{namespace}:*idempotency*", count=1000)]
    assert len(records) == 20
    assert await refused(59) == answers[59]  # kept: the same answer, from its record
    assert len([key async for key in raw.scan_iter(match=f"{namespace}:*idempotency*", count=1000)]) == 20
