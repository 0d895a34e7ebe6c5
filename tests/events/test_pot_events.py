"""The pot game's events: each move records what the reference says it did, every event
survives its stored and public forms, the deal is the seed's and one the rules could make,
and pot and Poison events never pass for each other. What holds of every ruleset's log (it
rebuilds the reference's game, a tampered log is refused at its first bad event, a reader
sees only what it may) is in tests/events/test_every_ruleset.py."""

from __future__ import annotations

import msgspec
import pytest

from core.pot import reference
from core.pot.engine import seeded_deal
from core.rulesets import POT
from events import rulesets
from events.codec import GameFinished, MalformedEvent, decode_public_line, encode_public, to_public
from events.play import new_game, play_move
from events.poison import schema as poison_schema
from events.pot.schema import (
    CODEC,
    CardsDealt,
    PotCardPlayed,
)
from events.replay import InvalidLog, decode_log, rebuild
from events.store import EventStore
from tests.pot_moves import move_events
from tests.rulesets import numbered, played_log, seats, unseeded


def pot_log(n: int, *, game_id: str = "g-pot", **how):
    """A pot game's log played through events.play to its end (or for `moves` moves)."""
    return played_log(POT, n, game_id=game_id, **how)


# ---- the log and the reference -----------------------------------------------------------


def test_a_log_cut_anywhere_between_moves_rebuilds_the_references_state_there():
    log, _ = pot_log(3, seed=5)
    oracle = reference.Game(3, seed=5)
    for version, event in numbered(log):
        if not isinstance(event, PotCardPlayed):
            continue
        before = rebuild(numbered(log[: version - 1]))
        assert before.game.view(event.seat) == oracle.view(event.seat)
        assert before.game.draw_order() == oracle.draw_order()
        oracle.play(event.seat, event.card, event.close)


def test_every_move_records_what_the_reference_says_it_did_in_order():
    log, _ = pot_log(4, seed=21)
    oracle = reference.Game(4, seed=21)
    moves = [i for i, e in enumerate(log) if isinstance(e, PotCardPlayed)]
    for start, end in zip(moves, [*moves[1:], len(log)], strict=True):
        event = log[start]
        done = oracle.play(event.seat, event.card, event.close)
        public = [decode_public_line(encode_public(to_public(v, e))) for v, e in numbered(log)[start:end]]
        assert [{"type": e.type, "data": e.data} for e in public] == move_events(done, oracle)


# ---- stored and public forms -----------------------------------------------------------


LOG, _ = pot_log(3, seed=13, bots={1: "greedy"})


def test_every_pot_event_survives_its_stored_form():
    for event in LOG:
        stored_type, schema, payload = CODEC.encode_stored(event)
        assert stored_type.startswith("pot:")
        assert rulesets.decode_stored(stored_type, schema, payload) == event
        assert type(rulesets.decode_stored(stored_type, schema, payload)) is type(event)


def test_every_pot_event_survives_its_public_form_and_the_log_decodes_whole():
    public = [to_public(version, event) for version, event in numbered(LOG)]
    lines = [decode_public_line(encode_public(item)) for item in public]
    assert [(line.version, line.type) for line in lines] == [(item.version, item.type) for item in public]
    assert [msgspec.json.encode(line) for line in lines] == [encode_public(item) for item in public]
    assert [CODEC.from_public(line) for line in lines] == LOG
    assert decode_log(lines) == numbered(LOG)
    assert lines[0].data["ruleset"] == "pot"
    assert "rounds" not in lines[0].data
    assert "rules" not in lines[0].data


@pytest.mark.anyio
async def test_pot_events_survive_the_real_store(store: EventStore):
    await store.append("g-pot", LOG, 0, summary={"status": "finished", "ruleset": "pot"}, codec=CODEC)
    read = await store.read("g-pot")
    assert read == numbered(LOG)
    assert rebuild(read).game.totals == LOG[-1].totals


# ---- the log alone determines the game ------------------------------------------------------


def test_the_deal_event_holds_the_hands_the_first_pot_and_the_draw_pile_of_the_seed():
    deal = seeded_deal(13, 3)
    assert LOG[1] == CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=deal.draw_pile)
    assert sum(len(hand) for hand in LOG[1].hands) + 1 + len(LOG[1].draw_pile) == 56


def test_a_deal_the_rules_could_not_make_is_refused_even_without_a_seed():
    deal = LOG[1]
    created = unseeded(LOG[0])
    doubled = CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=(deal.draw_pile[0], *deal.draw_pile))
    hidden = CardsDealt(hands=deal.hands, pot=deal.pot, draw_pile=None)
    for bad in (doubled, hidden):
        with pytest.raises(InvalidLog) as refused:
            rebuild(numbered([created, bad]))
        assert refused.value.at_version == 2


# ---- a Poison event in a pot log -----------------------------------------------------------


def first(log, kind, where=lambda event: True, after=0):
    return next(i for i, e in enumerate(log) if isinstance(e, kind) and where(e) and i >= after)


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("card_played", {"round": 1, "seat": 0, "card": "R5", "cauldron": 0, "total": 5}),
        ("round_started", {"round": 1, "dealer": 0, "hands": [[], [], []], "set_aside": []}),
        ("cauldron_overflowed", {"round": 1, "seat": 0, "cauldron": 0, "taken": ["R5"]}),
    ],
)
def test_a_public_event_of_poison_in_a_pot_log_is_refused_at_its_version(kind, data):
    public = [to_public(version, event) for version, event in numbered(LOG)]
    at = first(LOG, PotCardPlayed)
    forged = [*public[:at], poison_schema.PublicEvent(at + 1, kind, data), *public[at + 1 :]]
    with pytest.raises(InvalidLog) as refused:
        decode_log(forged)
    assert refused.value.at_version == at + 1


# ---- two rulesets, one game id ------------------------------------------------------------


def poison_log():
    log, logged = new_game("g-same", seats(3), rounds=1, rules=poison_schema.Rules(), seed=13)
    for _ in range(5):
        caused, logged = play_move(logged, logged.game.turn, tuple(logged.game.legal_moves()[0]))
        log += caused
    return log


POISON_LOG = poison_log()
POT_LOG, _ = pot_log(3, seed=13, moves=5, game_id="g-same")


def test_pot_and_poison_events_of_one_game_id_never_decode_into_each_other_in_the_stored_form():
    for event in POT_LOG:
        stored_type, schema, payload = CODEC.encode_stored(event)
        with pytest.raises(MalformedEvent):
            poison_schema.decode_stored(stored_type.removeprefix("pot:"), schema, payload)
    for event in POISON_LOG:
        stored_type, schema, payload = poison_schema.encode_stored(event)
        assert not stored_type.startswith("pot:")
        decoded = rulesets.decode_stored(stored_type, schema, payload)
        assert type(decoded) is type(event)
        if stored_type in CODEC.types:
            with pytest.raises(MalformedEvent):
                CODEC.decode_stored(stored_type, schema, payload)


def test_pot_and_poison_public_logs_of_one_game_id_never_decode_into_each_other():
    pot_public = [to_public(v, e) for v, e in numbered(POT_LOG)]
    poison_public = [to_public(v, e) for v, e in numbered(POISON_LOG)]
    assert all(
        type(e).__module__ == "events.pot.schema" or isinstance(e, GameFinished) for _, e in decode_log(pot_public)
    )
    assert all(
        type(e).__module__ == "events.poison.schema" or isinstance(e, GameFinished)
        for _, e in decode_log(poison_public)
    )
    # A pot log's events after a Poison creation, and a Poison log's after a pot creation.
    with pytest.raises(InvalidLog) as refused:
        decode_log([poison_public[0], *pot_public[1:]])
    assert refused.value.at_version == 2
    with pytest.raises(InvalidLog) as refused:
        decode_log([pot_public[0], *poison_public[1:]])
    assert refused.value.at_version == 2


@pytest.mark.anyio
async def test_pot_and_poison_games_with_one_game_id_read_back_as_their_own(redis_url: str, namespace: str):
    pot_store = EventStore.from_url(redis_url, namespace=namespace + "-pot")
    poison_store = EventStore.from_url(redis_url, namespace=namespace + "-poison")
    try:
        await pot_store.append("g-same", POT_LOG, 0, summary={"status": "active"}, codec=CODEC)
        await poison_store.append("g-same", POISON_LOG, 0, summary={"status": "finished"}, codec=poison_schema.CODEC)
        pot_read = await pot_store.read("g-same")
        poison_read = await poison_store.read("g-same")
    finally:
        await pot_store.close()
        await poison_store.close()
    assert pot_read == numbered(POT_LOG)
    assert poison_read == numbered(POISON_LOG)
    assert isinstance(pot_read[2][1], PotCardPlayed)
    assert isinstance(poison_read[2][1], poison_schema.CardPlayed)
