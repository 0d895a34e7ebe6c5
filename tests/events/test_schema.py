"""Events: their stored and public forms, strict decoding, and reading older schemas."""

import msgspec
import pytest

from events.poison.schema import (
    SCHEMA_VERSIONS,
    CardPlayed,
    MalformedEvent,
    RoundScored,
    decode_public_line,
    decode_stored,
    encode_public,
    encode_stored,
    from_public,
    to_public,
)
from tests.events.logs import game_log


def test_every_event_of_a_game_survives_the_stored_form_unchanged():
    log, _ = game_log(3, seed=3)
    assert {type(event).__name__ for event in log} >= {
        "GameCreated",
        "RoundStarted",
        "CardPlayed",
        "CauldronOverflowed",
        "RoundScored",
        "GameFinished",
    }
    for event in log:
        assert decode_stored(*encode_stored(event)) == event


def test_every_event_survives_the_public_form_as_exported_lines():
    log, _ = game_log(4, seed=4, rounds=1)
    for version, event in enumerate(log, 1):
        line = encode_public(to_public(version, event))
        public = decode_public_line(line)
        assert public.version == version
        assert from_public(public) == event


def test_the_public_form_is_version_type_and_data():
    event = CardPlayed(round=1, seat=2, card="R5", cauldron=0, total=9)
    assert msgspec.json.decode(encode_public(to_public(7, event))) == {
        "version": 7,
        "type": "card_played",
        "data": {"round": 1, "seat": 2, "card": "R5", "cauldron": 0, "total": 9},
    }


@pytest.mark.parametrize(
    ("kind", "data", "says"),
    [
        ("card_played", {"round": 1, "seat": 2, "card": "R3", "cauldron": 0, "total": 9}, "card"),
        ("card_played", {"round": 1, "seat": 2, "card": "R5", "cauldron": 3, "total": 9}, "cauldron"),
        ("card_played", {"round": 1, "seat": 2, "card": "R5", "cauldron": 0, "total": 9, "x": 1}, "x"),
        ("card_played", {"round": 1, "seat": 2, "card": "R5", "cauldron": 0}, "total"),
        ("card_exploded", {}, "unknown event type"),
        ("game_finished", {"totals": [1, 2], "winners": ["0"]}, "winners"),
    ],
)
def test_malformed_events_are_refused_saying_what_is_wrong(kind, data, says):
    with pytest.raises(MalformedEvent, match=says):
        decode_stored(kind, SCHEMA_VERSIONS.get(kind, 1), msgspec.msgpack.encode({"type": kind, **data}))


def test_an_event_stored_under_another_type_is_refused():
    payload = encode_stored(CardPlayed(round=1, seat=2, card="R5", cauldron=0, total=9))[2]
    with pytest.raises(MalformedEvent, match="stored as cauldron_overflowed but holds card_played"):
        decode_stored("cauldron_overflowed", 1, payload)


def test_a_schema_version_from_the_future_is_refused():
    with pytest.raises(MalformedEvent, match="no schema version 9"):
        decode_stored("card_played", 9, msgspec.msgpack.encode({}))


def test_an_older_round_scored_is_upcast_on_read():
    # round_scored v1 kept taken counts as [red, blue, purple, poison] lists.
    v1 = msgspec.msgpack.encode(
        {
            "round": 2,
            "scores": [3, 0, 7],
            "taken": [[2, 0, 1, 0], [0, 0, 0, 0], [1, 2, 0, 2]],
            "discarded": [["red"], [], []],
        }
    )
    event = decode_stored("round_scored", 1, v1)
    assert isinstance(event, RoundScored)
    assert event.taken[2].blue == 2
    assert event.taken[2].poison == 2
    assert encode_stored(event)[1] == SCHEMA_VERSIONS["round_scored"] == 2


def test_a_field_added_with_a_default_reads_old_events_without_a_new_version():
    # game_created written before `rules` existed still reads, with the default rules.
    old = msgspec.msgpack.encode(
        {"type": "game_created", "game_id": "g", "players": [{"seat": 0, "name": "a"}], "rounds": 3}
    )
    assert decode_stored("game_created", 1, old).rules.cauldrons == "dynamic"


def test_events_are_frozen():
    event = CardPlayed(round=1, seat=2, card="R5", cauldron=0, total=9)
    with pytest.raises(AttributeError):
        event.total = 10
