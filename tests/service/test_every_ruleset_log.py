"""A game's log over HTTP, tested once and run for every ruleset of core.rulesets.RULESETS:
the export of a finished game replays to the same game, the event log is redacted for each
reader while the game is active and whole once it is finished, the live stream delivers
every event and resumes after Last-Event-ID, time travel shows the game as it was, and a
tampered export is refused at its first bad event. Each game is played against the
ruleset's reference (tests/service/api.py Table); what the registry does not say of a
ruleset is in tests/rulesets.py."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from events.codec import decode_public_line, encode_public, to_public
from events.play import create_game
from events.replay import decode_log
from events.rulesets import rules_for
from tests.rulesets import EVERY_RULESET, facts, numbered, redacted, seats, tamperings
from tests.service.api import Table, auth, parse_stream, problem, shortest, view

pytestmark = pytest.mark.anyio

NDJSON = {"content-type": "application/x-ndjson"}


async def exported(client, game_id: str) -> list[dict]:
    response = await client.get(f"/v1/games/{game_id}/export")
    assert response.status_code == 200, response.text
    return [msgspec.json.decode(line) for line in response.content.splitlines()]


def first_deal(ruleset, players: int, seed: int, options) -> dict:
    """The public form of the first deal the seed makes, as the event layer makes it."""
    events, _ = create_game(ruleset.name, "g", seats(players), seed=seed, options=options)
    return msgspec.json.decode(encode_public(to_public(2, events[1])))


def without_all(game: dict) -> dict:
    return {key: value for key, value in game.items() if key != "all"}


# ---- export and replay -------------------------------------------------------------------


@EVERY_RULESET
async def test_a_finished_games_export_is_its_public_log_and_replays_to_the_same_game_as_ndjson_and_json(
    client, ruleset
):
    n, options = 3, shortest(ruleset)
    table = await Table.new(client, ruleset, n, seed=14, options=options)
    game_id = table.game_id
    problem(await client.get(f"/v1/games/{game_id}/export"), 409, "game_active")
    then = {}  # version -> the public view and every hand then
    while not table.finished:
        version = (await table.move()).json()["version"]
        then[version] = (await view(client, game_id), table.hands())
    public = (await client.get(f"/v1/games/{game_id}/events?limit=5000")).json()
    response = await client.get(f"/v1/games/{game_id}/export")
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = response.content.splitlines()
    events = [msgspec.json.decode(line) for line in lines]
    assert events == public["events"]
    assert [event["version"] for event in events] == list(range(1, public["version"] + 1))
    assert events[0]["data"]["seed"] == 14
    assert events[1] == first_deal(ruleset, n, 14, options)  # every hand, whole
    winners = {"totals": list(table.oracle.totals), "winners": list(table.oracle.winners)}
    assert events[-1] == {"version": len(events), "type": "game_finished", "data": winners}

    replayed = await client.post("/v1/replays", content=response.content, headers=NDJSON)
    assert replayed.status_code == 200, replayed.text
    body = replayed.json()
    assert body["version"] == len(lines)
    assert (body["game"]["ruleset"], body["game"]["status"]) == (ruleset.name, "finished")
    assert without_all(body["game"]) == await view(client, game_id)
    everything = body["game"]["all"]
    assert everything["hands"] == [[] for _ in range(n)]  # nothing is left hidden at the end
    assert not any(any(value) for value in everything.values())
    assert body["scores"] == (await client.get(f"/v1/games/{game_id}/scores")).json()
    assert {key: body["scores"][key] for key in winners} == winners
    as_json = await client.post("/v1/replays", json={"events": events})
    assert as_json.status_code == 200, as_json.text
    assert as_json.json() == body

    middle = sorted(then)[len(then) // 2]
    partial = (await client.post(f"/v1/replays?version={middle}", content=response.content, headers=NDJSON)).json()
    assert (partial["version"], partial["game"]["status"]) == (middle, "active")
    assert without_all(partial["game"]) == then[middle][0]
    assert without_all(partial["game"]) == (await client.get(f"/v1/games/{game_id}?version={middle}")).json()
    assert partial["game"]["all"]["hands"] == [list(hand) for hand in then[middle][1]]
    assert [game["game_id"] for game in (await client.get("/v1/games")).json()["games"]] == [game_id]  # none stored


# ---- redaction ---------------------------------------------------------------------------


def exercised(events: list[dict], ruleset, n: int) -> bool:
    """Whether `events` hold each event a reader sees redacted, and, of those that name a
    seat, one for every seat."""
    for kind in facts(ruleset).redacted_types:
        some = [event["data"] for event in events if event["type"] == kind]
        if not some or (any("seat" in data for data in some) and {data["seat"] for data in some} != set(range(n))):
            return False
    return True


@EVERY_RULESET
async def test_the_event_log_is_redacted_for_each_reader_while_active_and_whole_for_everyone_once_finished(
    client, ruleset
):
    n = 3
    table = await Table.new(client, ruleset, n, seed=15, options=shortest(ruleset))
    game_id, tokens = table.game_id, table.tokens
    readers = [None, *range(n)]

    async def logs() -> dict:
        return {
            reader: (
                await client.get(
                    f"/v1/games/{game_id}/events?limit=5000", headers=auth(tokens[reader]) if reader is not None else {}
                )
            ).json()
            for reader in readers
        }

    at_creation = await logs()
    assert at_creation[None]["version"] == table.created["game"]["version"] == 2
    deal = rules_for(ruleset.name).deal_type.__struct_config__.tag
    assert [event["type"] for event in at_creation[None]["events"]] == ["game_created", deal]
    while not exercised((await client.get(f"/v1/games/{game_id}/events?limit=5000")).json()["events"], ruleset, n):
        await table.move()
    later = await logs()
    problem(await client.get(f"/v1/games/{game_id}/export"), 409, "game_active")
    await table.play_until(lambda game: game.status == "finished")
    whole = await exported(client, game_id)
    assert exercised(whole[: later[None]["version"]], ruleset, n)
    for while_active in (at_creation, later):
        for reader in readers:
            log = while_active[reader]
            assert log["events"] == [redacted(ruleset, event, reader) for event in whole[: log["version"]]]
            assert log["events"][0]["data"]["seed"] is None
            assert "token" not in str(log)
            assert not any(token in str(log) for token in tokens.values())
    for reader, log in (await logs()).items():
        assert log["events"] == whole, reader
    assert whole[0]["data"]["seed"] == 15
    assert whole[1] == first_deal(ruleset, n, 15, shortest(ruleset))
    paged = (await client.get(f"/v1/games/{game_id}/events?after=3&limit=2")).json()
    assert paged["events"] == whole[3:5]
    one = (await client.get(f"/v1/games/{game_id}/events?after=1&limit=1")).json()
    assert [event["version"] for event in one["events"]] == [2]


# ---- the live stream ---------------------------------------------------------------------


async def read_stream(client, game_id: str, headers: dict) -> str:
    async def read() -> str:
        async with client.stream("GET", f"/v1/games/{game_id}/events/stream", headers=headers) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            return "".join([chunk async for chunk in stream.aiter_text()])

    return await asyncio.wait_for(read(), 10)


@EVERY_RULESET
async def test_the_stream_of_a_game_delivers_every_event_resumes_after_last_event_id_and_ends_with_the_game(
    client, ruleset
):
    bots = {seat: ruleset.bots[seat % len(ruleset.bots)] for seat in range(3)}
    table = await Table.new(client, ruleset, 3, seed=20, bots=bots, options=shortest(ruleset))
    assert table.created["game"]["status"] == "finished"
    version = table.created["game"]["version"]
    log = await exported(client, table.game_id)
    whole = parse_stream(await read_stream(client, table.game_id, {}))
    assert [message[0] for message in whole] == list(range(1, version + 1))
    assert [message[2] for message in whole] == log
    assert [message[1] for message in whole] == [event["type"] for event in log]
    assert whole[-1][1] == "game_finished"
    resumed = parse_stream(await read_stream(client, table.game_id, {"Last-Event-ID": str(version - 4)}))
    assert [message[0] for message in resumed] == list(range(version - 3, version + 1))
    assert [message[2] for message in resumed] == log[version - 4 :]
    at_the_end = await read_stream(client, table.game_id, {"Last-Event-ID": str(version)})  # closes at once
    assert "id:" not in at_the_end


# ---- time travel -------------------------------------------------------------------------


def cards_anywhere(node) -> list:
    """Every card list under a `cards` key of a view (a cauldron's, the pot's)."""
    if isinstance(node, dict):
        return [card for key, value in node.items() for card in (value if key == "cards" else cards_anywhere(value))]
    if isinstance(node, list):
        return [card for item in node for card in cards_anywhere(item)]
    return []


@EVERY_RULESET
async def test_time_travel_shows_the_game_as_it_was_after_any_move(client, ruleset):
    table = await Table.new(client, ruleset, 3, seed=22)
    game_id = table.game_id

    def known(oracle) -> dict:
        return {
            "turn": oracle.turn,
            "hand_sizes": list(oracle.hand_sizes),
            "totals": list(oracle.totals),
            "winners": list(oracle.winners),
        }

    def seen(game: dict) -> dict:
        fields = ("turn", "totals", "winners")
        return {**{key: game[key] for key in fields}, "hand_sizes": [p["hand_size"] for p in game["players"]]}

    then = {table.created["game"]["version"]: (table.created["game"], known(table.oracle))}
    for _ in range(15):
        version = (await table.move()).json()["version"]
        then[version] = (await view(client, game_id), known(table.oracle))
    for version, (public, oracle) in then.items():
        past = (await client.get(f"/v1/games/{game_id}?version={version}", headers=auth(table.tokens[0]))).json()
        assert (past["version"], past["ruleset"]) == (version, ruleset.name)
        assert "you" not in past
        assert past == public
        assert seen(past) == oracle
    created_only = (await client.get(f"/v1/games/{game_id}?version=1")).json()
    assert created_only["turn"] is None
    assert [p["hand_size"] for p in created_only["players"]] == [0, 0, 0]
    assert cards_anywhere(created_only) == []
    current = max(then)
    for beyond in (current + 1, current + 1000, 0, "x"):
        problem(await client.get(f"/v1/games/{game_id}?version={beyond}"), 400, "invalid_request")
    assert await view(client, game_id) == then[current][0]


# ---- tampered exports --------------------------------------------------------------------


@EVERY_RULESET
async def test_a_tampered_export_is_422_invalid_log_at_its_first_bad_event_as_ndjson_and_as_json(client, ruleset):
    table = await Table.new(client, ruleset, 4, seed=18, bots={1: "greedy"}, options=facts(ruleset).options)
    await table.play_until(lambda game: game.status == "finished")
    lines = (await client.get(f"/v1/games/{table.game_id}/export")).content.splitlines()
    log = [event for _, event in decode_log([decode_public_line(line) for line in lines])]
    cases = {
        name: (index, [encode_public(to_public(version, event)) for version, event in numbered(forged)], says)
        for name, (index, forged, says) in tamperings(ruleset, log).items()
    }
    cases["a line that is not JSON"] = (4, [*lines[:4], b"{not json", *lines[5:]], None)
    for cut in (1, 2):  # without game_finished; without the last move's end either
        cases[f"the last {cut} cut off"] = (len(lines) - cut, lines[:-cut], None)
    for name, (index, forged, says) in cases.items():
        answers = [await client.post("/v1/replays", content=b"\n".join(forged), headers=NDJSON)]
        if name != "a line that is not JSON":
            answers.append(await client.post("/v1/replays", json={"events": [msgspec.json.decode(f) for f in forged]}))
        for answer in answers:
            body = problem(answer, 422, "invalid_log")
            assert body["at_version"] == index + 1, name
            assert says is None or says in body["detail"], (name, body["detail"])
