"""Fair deals through the real app, for every ruleset (issue 27): a lobby's creator cannot
choose the seed that deals the joiners' hands; every game shows its commitment to its deals
from the start, and no answer shows its seed or salt while it is active; once it is over
(finished or abandoned) the log reveals both, they hash (hashlib, here) to the commitment
the views showed, and replay says the commitment holds, or that an older log has none; and
`poison replay` says so too."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import pytest

from events.codec import encode_public, to_public
from events.play import create_game, play_move
from events.rulesets import rules_for
from tests.rulesets import EVERY_RULESET, seats
from tests.service.api import Table, auth, problem, shortest
from tests.service.command import poison_here

pytestmark = pytest.mark.anyio

NDJSON = {"content-type": "application/x-ndjson"}


def sha256_of(seed: int, salt: str) -> str:
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def lobby_body(ruleset, **more: Any) -> dict[str, Any]:
    """A table of three: its creator, and two seats open for strangers."""
    players = [{"name": "mallory"}, {"open": True}, {"open": True}]
    return {"ruleset": ruleset.name, "players": players, **shortest(ruleset), **more}


async def join_two(client, game_id: str) -> None:
    """Two strangers take seats 1 and 2: the game starts, and its first deal is made."""
    for seat, name in ((1, "alice"), (2, "bob")):
        answer = await client.post(f"/v1/games/{game_id}/seats/{seat}", json={"name": name})
        assert answer.status_code == 201, answer.text


async def first_deal(store, ruleset, game_id: str) -> Any:
    """The game's first deal as the store keeps it: every hand, and what else it hides."""
    deal_type = rules_for(ruleset.name).deal_type
    return next(event for _, event in await store.read(game_id) if isinstance(event, deal_type))


async def exported(client, game_id: str) -> list[dict]:
    response = await client.get(f"/v1/games/{game_id}/export")
    assert response.status_code == 200, response.text
    return [msgspec.json.decode(line) for line in response.content.splitlines()]


def as_ndjson(events: list[dict]) -> bytes:
    return b"".join(msgspec.json.encode(event) + b"\n" for event in events)


# ---- the creator chooses nothing that deals a stranger's hand ------------------------------


@EVERY_RULESET
async def test_a_new_game_with_a_seed_and_an_open_seat_is_422_seed_with_open_seats_and_creates_nothing(client, ruleset):
    """The issue's attack begins with a lobby dealt from the creator's seed: refused."""
    refused = problem(await client.post("/v1/games", json=lobby_body(ruleset, seed=31337)), 422, "seed_with_open_seats")
    assert "seed" in refused["detail"]
    assert "open seat" in refused["detail"]
    assert (await client.get("/v1/games")).json()["games"] == []


@EVERY_RULESET
async def test_the_joiners_hands_follow_from_nothing_the_creator_chose(client, store, ruleset):
    """The issue's attack: a creator asks for a lobby dealt from seed 31337, two strangers
    join, and the creator deals a private copy from the same seed. Whether the service
    refuses the seed (as it does) or mixes its own randomness in, the copy does not deal
    what the lobby dealt; nor do two lobbies made with the same body deal the same. (Whole
    deals are compared, every hand and what else they hide, so that no chance match of two
    small hands can pass for the attack working.)"""
    attempt = await client.post("/v1/games", json=lobby_body(ruleset, seed=31337))
    if attempt.status_code != 201:
        problem(attempt, 422, "seed_with_open_seats")
        attempt = await client.post("/v1/games", json=lobby_body(ruleset))  # all the creator may choose
    lobby = attempt.json()["game_id"]
    await join_two(client, lobby)
    named = [{"name": name} for name in ("mallory", "alice", "bob")]
    copy = (await client.post("/v1/games", json={**lobby_body(ruleset, seed=31337), "players": named})).json()
    again = (await client.post("/v1/games", json=lobby_body(ruleset))).json()["game_id"]
    await join_two(client, again)
    dealt = await first_deal(store, ruleset, lobby)
    assert await first_deal(store, ruleset, copy["game_id"]) != dealt
    assert await first_deal(store, ruleset, again) != dealt


# ---- secret while active -------------------------------------------------------------------


@EVERY_RULESET
async def test_no_answer_about_an_active_game_shows_its_seed_or_salt_and_its_views_show_the_commitment(
    client, store, ruleset
):
    body = {**lobby_body(ruleset), "players": [{"name": "ann"}, {"open": True}, {"name": "cy", "bot": "greedy"}]}
    created = await client.post("/v1/games", json=body)
    game_id = created.json()["game_id"]
    stored = (await store.read(game_id, 0, 1))[0][1]
    seed, salt = stored.seed, stored.salt
    commitment = sha256_of(seed, salt)
    tokens = {0: created.json()["players"][0]["token"]}
    answers = [created]

    async def read_everything() -> None:
        version = (await client.get(f"/v1/games/{game_id}")).json()["version"]
        for headers in ({}, *(auth(token) for token in tokens.values())):
            for path in ("", "/events?limit=5000", "/scores", "/export", "/events?after=1"):
                answers.append(await client.get(f"/v1/games/{game_id}{path}", headers=headers))
            for then in range(1, version + 1):
                you = "&you=true" if headers else ""
                answers.append(await client.get(f"/v1/games/{game_id}?version={then}{you}", headers=headers))
        answers.append(await client.get("/v1/games"))

    await read_everything()
    joined = await client.post(f"/v1/games/{game_id}/seats/1", json={"name": "bea"})
    tokens[1] = joined.json()["token"]
    answers.append(joined)
    answers.append(await client.post(f"/v1/games/{game_id}/seats/1", json={"name": "dee"}))  # 409: taken
    await read_everything()
    game = (await client.get(f"/v1/games/{game_id}")).json()
    waiting = next(seat for seat in tokens if seat != game["turn"])
    move = (await client.get(f"/v1/games/{game_id}", headers=auth(tokens[game["turn"]]))).json()["you"]
    answers.append(  # 409: not its turn
        await client.post(f"/v1/games/{game_id}/moves", json=move["legal_moves"][0], headers=auth(tokens[waiting]))
    )
    key = {"Idempotency-Key": "fair-deals-move-1", **auth(tokens[game["turn"]])}
    for _ in range(2):  # the move, and its retry answered from the record
        answers.append(await client.post(f"/v1/games/{game_id}/moves", json=move["legal_moves"][0], headers=key))
    await read_everything()

    assert (await client.get(f"/v1/games/{game_id}")).json()["status"] == "active"
    for answer in answers:
        assert str(seed) not in answer.text, (answer.request.url, answer.text)
        assert salt not in answer.text, (answer.request.url, answer.text)
    assert game["seed_commitment"] == commitment
    first = (await client.get(f"/v1/games/{game_id}/events?limit=1")).json()["events"][0]["data"]
    assert (first["seed"], first["salt"], first["seed_commitment"]) == (None, None, commitment)


# ---- public once over, and checked by replay -----------------------------------------------


@EVERY_RULESET
async def test_a_finished_games_export_reveals_the_seed_and_salt_that_hash_to_the_commitment_it_showed(client, ruleset):
    table = await Table.new(client, ruleset, 3, seed=4_611_686_018_427_387_903, bots={1: "greedy"})
    noted = table.created["game"]["seed_commitment"]  # what a player records at the start
    await table.play_until(lambda game: game.status == "finished")
    created = (await exported(client, table.game_id))[0]["data"]
    assert created["seed"] == 4_611_686_018_427_387_903
    assert created["seed_commitment"] == noted == sha256_of(created["seed"], created["salt"])
    events = (await client.get(f"/v1/games/{table.game_id}/events?limit=1")).json()["events"]
    assert events[0]["data"] == created
    export = (await client.get(f"/v1/games/{table.game_id}/export")).content
    replayed = await client.post("/v1/replays", content=export, headers=NDJSON)
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["commitment"] == "holds"
    partial = await client.post("/v1/replays", params={"version": 1}, content=export, headers=NDJSON)
    assert partial.json()["commitment"] == "holds"


@EVERY_RULESET
async def test_an_abandoned_games_log_reveals_its_seed_and_salt_and_its_export_replays_with_the_commitment(
    client, ruleset
):
    created = (await client.post("/v1/games", json=lobby_body(ruleset))).json()
    game_id, token = created["game_id"], created["players"][0]["token"]
    noted = created["game"]["seed_commitment"]
    hidden = (await client.get(f"/v1/games/{game_id}/events")).json()["events"][0]["data"]
    assert (hidden["seed"], hidden["salt"]) == (None, None)
    problem(await client.get(f"/v1/games/{game_id}/export"), 409, "game_active")
    left = await client.delete(f"/v1/games/{game_id}/seats/0", headers=auth(token))
    assert left.status_code == 204, left.text
    assert (await client.get(f"/v1/games/{game_id}")).json()["status"] == "abandoned"
    shown = (await client.get(f"/v1/games/{game_id}/events")).json()["events"][0]["data"]
    assert shown["seed_commitment"] == noted == sha256_of(shown["seed"], shown["salt"])
    log = await exported(client, game_id)
    assert log[0]["data"] == shown
    replayed = await client.post("/v1/replays", content=as_ndjson(log), headers=NDJSON)
    assert replayed.status_code == 200, replayed.text
    assert (replayed.json()["game"]["status"], replayed.json()["commitment"]) == ("abandoned", "holds")


@EVERY_RULESET
async def test_a_log_written_before_commitments_replays_and_the_answer_says_it_has_none_to_check(client, ruleset):
    table = await Table.new(client, ruleset, 3, seed=12, bots={1: "greedy", 2: "greedy"})
    await table.play_until(lambda game: game.status == "finished")
    log = await exported(client, table.game_id)
    fields = {key: value for key, value in log[0]["data"].items() if key not in {"seed_commitment", "salt"}}
    old = [{**log[0], "data": fields}, *log[1:]]  # as an export was before games committed
    replayed = await client.post("/v1/replays", content=as_ndjson(old), headers=NDJSON)
    assert replayed.status_code == 200, replayed.text
    assert replayed.json()["commitment"] == "none"
    assert replayed.json()["game"]["totals"] == list(table.oracle.totals)


# ---- poison replay ---------------------------------------------------------------------------


def finished_log(ruleset) -> list:
    log, logged = create_game(ruleset.name, "g-cli", seats(3, {1: "greedy"}), seed=77, options=shortest(ruleset))
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, logged.game.legal_moves()[0])
        log += caused
    return log


@EVERY_RULESET
def test_poison_replay_says_the_commitment_holds_or_that_an_old_log_has_none_and_refuses_a_broken_one(
    ruleset, tmp_path
):
    log = finished_log(ruleset)
    created = log[0]
    public = [msgspec.json.decode(encode_public(to_public(v, event))) for v, event in enumerate(log, start=1)]
    cases = {
        "honest": public,
        "old": [{**public[0], "data": {**public[0]["data"], "seed_commitment": None, "salt": None}}, *public[1:]],
        "tampered": [{**public[0], "data": {**public[0]["data"], "seed": 78}}, *public[1:]],
    }
    results = {}
    for name, events in cases.items():
        path = tmp_path / f"{name}.ndjson"
        path.write_bytes(as_ndjson(events))
        results[name] = poison_here("replay", str(path))
    honest, old, tampered = results["honest"], results["old"], results["tampered"]
    assert honest.returncode == 0, honest.stderr
    said = f"the seed commitment holds: SHA-256 of '77:{created.salt}' is {sha256_of(77, created.salt)}"
    assert said in honest.stdout.replace("\n", "")
    assert old.returncode == 0, old.stderr
    assert "no seed commitment to check" in old.stdout
    assert "commitment holds" not in old.stdout
    assert tampered.returncode == 1
    assert "invalid log: event 1: the seed_commitment" in tampered.stderr
    assert "the seed, the salt or the commitment was changed" in tampered.stderr.replace("\n", " ")
