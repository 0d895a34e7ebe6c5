"""A property test of secrecy, for every ruleset: two games whose deals differ only in cards
seat k may not see give seat k byte-identical answers, and give the public byte-identical
answers too.

For seat k, hypothesis draws a deal and a short run of legal moves (game A). Game B's deal
is A's with every card seat k may not see and nobody plays in that run shuffled among the
places k cannot see: the other seats' hands, Poison's set-aside hand, the pot game's draw
pile below the cards the run draws. The same moves are then legal in B, and are played in
both through the API. Each game lives in a store namespace of its own under the same id,
with the same tokens, written as a log whose deal is in its deal event and whose seed is
none (a seed would tell the deals apart, and is public once the game is over anyway). Both
are compared while active, where the secret is kept: every move's answer, the view at every
version (the public one, and seat k's own with `you=true`) and now, the event log, the live
stream's frames, the score sheet, the listing, and the refusals of a few bad requests, each
with seat k's token and with none.

A difference is a leak: something in the answers to seat k depends on a card it may not
see. (A failing example names the seat, the deal and the moves.)
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar.testing import AsyncTestClient

from core.rulesets import RULESETS, Ruleset
from events.codec import Event, Player
from events.games import summary_of
from events.listing import listing_member
from events.play import LoggedGame
from events.poison.rules import round_started
from events.pot.rules import cards_dealt
from events.pot.schema import CardsDrawn, PotStarted
from events.replay import rebuild
from events.rulesets import rules_for
from service.app import create_app
from service.settings import Settings
from tests.rulesets import facts
from tests.service.api import auth, body_of, http_scope

pytestmark = pytest.mark.anyio

#: The longest run of moves drawn: short of the end of Poison's shortest round and of the
#: pot game's deck, so that the game is still active (and its secret kept) at the end.
MOST_MOVES = 10
_ids = itertools.count(1)
CREATED_MS = 1_700_000_000_000


@pytest.fixture
async def twins(redis_url: str, namespace: str) -> AsyncIterator[tuple[AsyncTestClient, AsyncTestClient]]:
    """Two apps over the same server, each in a namespace of its own (games A and B)."""
    apps = [create_app(Settings(redis_url=redis_url, namespace=f"{namespace}-{side}")) for side in "ab"]
    async with AsyncTestClient(apps[0]) as a, AsyncTestClient(apps[1]) as b:
        yield a, b


# ---- the deals ------------------------------------------------------------------------------


def deal_of(ruleset: Ruleset, seed: int, players: int) -> Any:
    if ruleset.name == "pot":
        return ruleset.engine.seeded_deal(seed, players)
    return ruleset.engine.seeded_deal(seed, players, 1)


def first_events(ruleset: Ruleset, game_id: str, players: int, deal: Any) -> list[Event]:
    """A game's creation (no seed, one round of Poison) and its deal, as the store keeps them."""
    rules = rules_for(ruleset.name)
    seats = tuple(Player(seat=seat, name=f"p{seat}") for seat in range(players))
    options = {"rounds": 1} if ruleset.name == "poison" else {}
    created, game = rules.create(game_id, seats, None, options)  # type: ignore[arg-type]
    game.deal(*deal)
    return [created, cards_dealt(game) if ruleset.name == "pot" else round_started(game)]


def ordered(ruleset: Ruleset, cards: list[str]) -> tuple[str, ...]:
    """A hand in the canonical order of the ruleset's card codes (its order says nothing)."""
    return tuple(sorted(cards, key=list(ruleset.card_codes).index))


def hidden_shuffle(
    ruleset: Ruleset, deal: Any, seat: int, played: dict[int, list[str]], drawn: int, rng: random.Random
):
    """`deal` with every card `seat` may not see and no one plays shuffled among the places
    that hold such cards; `drawn` cards off the pot game's pile are seen by whoever draws
    them (or start a pot), so they stay."""
    kept: dict[int, Counter[str]] = {}
    pool: list[str] = []
    for other, hand in enumerate(deal.hands):
        if other == seat:
            continue
        fixed = Counter(played.get(other, [])) & Counter(hand)
        kept[other] = fixed
        pool += list((Counter(hand) - fixed).elements())
    if ruleset.name == "pot":
        pool += list(deal.draw_pile[drawn:])
    else:
        pool += list(deal.set_aside)
    rng.shuffle(pool)
    hands = []
    for other, hand in enumerate(deal.hands):
        if other == seat:
            hands.append(tuple(hand))
            continue
        free = len(hand) - sum(kept[other].values())
        hands.append(ordered(ruleset, [*kept[other].elements(), *pool[:free]]))
        pool = pool[free:]
    if ruleset.name == "pot":
        return type(deal)(tuple(hands), deal.pot, (*deal.draw_pile[:drawn], *pool))
    return type(deal)(tuple(hands), ordered(ruleset, pool))


def run_of_moves(ruleset: Ruleset, deal: Any, players: int, count: int, rng: random.Random) -> list[tuple[int, tuple]]:
    """Up to `count` legal moves from `deal` (seat, move), stopping while the game is active."""
    game = ruleset.reference.Game(players, deal=deal) if ruleset.name == "pot" else None
    if game is None:
        game = ruleset.reference.Game(players, rounds=1, deals=[deal])
    moves = []
    for _ in range(count):
        seat = game.turn
        move = facts(ruleset).pick(game, rng)
        played = game.play(seat, *move)
        if getattr(played, "round_over", False) or getattr(played, "game_over", False) or game.status != "active":
            break
        moves.append((seat, tuple(move)))
    return moves


# ---- the two games --------------------------------------------------------------------------


async def on_app_loop(client: AsyncTestClient, call: Callable[[], Awaitable[Any]]) -> Any:
    """`call` run on the event loop the app runs on (the test client's own thread), where
    its store connection lives."""
    return await anyio.to_thread.run_sync(partial(client.blocking_portal.call, call))


async def write(client: AsyncTestClient, game_id: str, events: list[Event], tokens: dict[int, str]) -> LoggedGame:
    """The game of `events` in the app's store, listed, its seats' tokens `tokens`."""
    logged = rebuild(list(enumerate(events, start=1)))
    store = client.app.state.games.store
    summary = {**summary_of(logged), "listed": listing_member(game_id, CREATED_MS)}
    keys = client.app.state.server_key
    hashes = {seat: keys.verifier(token) for seat, token in tokens.items()}
    await on_app_loop(
        client, lambda: store.append(game_id, events, 0, summary=summary, tokens=hashes, codec=logged.rules.codec)
    )
    return logged


Answer = tuple[int, str, bytes]


def answer(response: Any) -> Answer:
    return response.status_code, response.headers.get("content-type", ""), response.content


async def frames(client: AsyncTestClient, game_id: str, headers: dict[str, str], version: int) -> bytes:
    """The live stream's frames from its start up to event `version` (its keep-alive
    comments left out: how many there are is a matter of time, not of cards). Read through
    the app's ASGI callable, which is told the client left once they have come."""
    path = f"/v1/games/{game_id}/events/stream"
    scope = http_scope("GET", path, headers)
    seen = bytearray()

    async def stream() -> None:
        enough = asyncio.Event()
        first = True

        async def receive() -> dict[str, Any]:
            nonlocal first
            if first:
                first = False
                return {"type": "http.request", "body": b"", "more_body": False}
            await enough.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                seen.extend(b"%d\n" % message["status"])
            elif message["type"] == "http.response.body":
                seen.extend(message.get("body", b""))
                done = any(f"id: {version}{end}".encode() in seen for end in ("\n", "\r\n"))
                if done or not message.get("more_body", False):
                    enough.set()

        await asyncio.wait_for(client.app(scope, receive, send), 10)  # a guard against a stream that never ends

    await on_app_loop(client, stream)
    return b"\n".join(line for line in bytes(seen).split(b"\n") if not line.startswith(b":"))


async def answers(client: AsyncTestClient, game_id: str, ruleset: Ruleset, headers: dict[str, str]) -> dict[str, Any]:
    """Every read of the game, and a few refusals, as `headers` ask them."""
    base = f"/v1/games/{game_id}"
    now = (await client.get(base, headers=headers)).json()
    version = now["version"]
    got: dict[str, Any] = {"view": answer(await client.get(base, headers=headers))}
    for at in range(1, version + 1):
        got[f"view@{at}"] = answer(await client.get(f"{base}?version={at}", headers=headers))
        # With a token, the seat's own view then too: its hand and legal moves as they were.
        # (Without one, `you=true` is refused, 401, alike in both games.)
        got[f"view@{at}&you"] = answer(await client.get(f"{base}?version={at}&you=true", headers=headers))
    for path in ("/events", "/events?after=1&limit=3", "/scores", "/export", f"?version={version + 1}"):
        got[path] = answer(await client.get(base + path, headers=headers))
    got["listing"] = answer(await client.get("/v1/games", headers=headers))
    got["stream"] = await frames(client, game_id, headers, version)
    wrong = {"card": ruleset.card_codes[0], "cauldron": 7} if ruleset.name == "poison" else {"card": "Z9", "close": 1}
    refusals = [wrong, {"card": card_missing(ruleset, now), **extra(ruleset)}]
    for index, body in enumerate(refusals):
        got[f"refused {index}"] = answer(await client.post(f"{base}/moves", json=body, headers=headers))
        got[f"refused {index} (framework)"] = answer(await client.post(f"{base}/moves?", json=body, headers=headers))
    got["stale"] = answer(
        await client.post(
            f"{base}/moves",
            json={"card": ruleset.card_codes[0], **extra(ruleset), "expected_version": 1},
            headers=headers,
        )
    )
    return got


def extra(ruleset: Ruleset) -> dict[str, Any]:
    return {"cauldron": 0} if ruleset.name == "poison" else {"close": False}


def card_missing(ruleset: Ruleset, view: dict[str, Any]) -> str:
    """A card the reader does not hold (the first code, when it holds them all)."""
    held = set((view.get("you") or {}).get("hand") or [])
    return next((card for card in ruleset.card_codes if card not in held), ruleset.card_codes[0])


# ---- the property ---------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", list(RULESETS.values()), ids=list(RULESETS))
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
async def test_two_deals_that_differ_only_in_what_a_seat_may_not_see_answer_that_seat_and_the_public_alike(
    twins, ruleset, data
):
    a, b = twins
    players = data.draw(st.integers(*ruleset.players), label="players")
    seat = data.draw(st.integers(0, players - 1), label="seat k")
    seed = data.draw(st.integers(0, 2**63 - 1), label="deal seed")
    rng = random.Random(data.draw(st.integers(0, 2**32), label="move and shuffle seed"))
    deal = deal_of(ruleset, seed, players)
    moves = run_of_moves(ruleset, deal, players, data.draw(st.integers(0, MOST_MOVES), label="moves"), rng)
    played: dict[int, list[str]] = {}
    for mover, move in moves:
        played.setdefault(mover, []).append(move[0])
    tokens = {other: f"token-of-seat-{other}-" + "x" * 32 for other in range(players)}

    game_id = f"secrecy-{next(_ids)}"
    await write(a, game_id, first_events(ruleset, game_id, players, deal), tokens)
    moved_a = [
        await a.post(f"/v1/games/{game_id}/moves", json=body_of(ruleset, move), headers=auth(tokens[mover]))
        for mover, move in moves
    ]
    assert all(response.status_code == 201 for response in moved_a), [response.text for response in moved_a]
    drawn = 0
    if ruleset.name == "pot":
        stored = await on_app_loop(a, partial(a.app.state.games.store.read, game_id, 0))
        drawn = sum(
            e.count if isinstance(e, CardsDrawn) else 1 for _, e in stored if isinstance(e, (CardsDrawn, PotStarted))
        )
    other_deal = hidden_shuffle(ruleset, deal, seat, played, drawn, rng)
    await write(b, game_id, first_events(ruleset, game_id, players, other_deal), tokens)
    for index, (mover, move) in enumerate(moves):
        response = await b.post(f"/v1/games/{game_id}/moves", json=body_of(ruleset, move), headers=auth(tokens[mover]))
        assert response.status_code == 201, (index, response.text)
        if mover == seat:  # seat k's own move: its answer is seat k's to read
            assert answer(response) == answer(moved_a[index]), f"seat {seat}'s move {index}:\n{deal}\n{other_deal}"

    for reader, headers in ((seat, auth(tokens[seat])), (None, {})):
        seen_a = await answers(a, game_id, ruleset, headers)
        seen_b = await answers(b, game_id, ruleset, headers)
        for what in seen_a:
            assert seen_a[what] == seen_b[what], (
                f"seat {seat} of {players} ({'its token' if reader is not None else 'no token'}) tells the deals "
                f"apart by {what} after {len(moves)} moves:\n{deal}\n{other_deal}"
            )
