"""The fast road for loading a stored game (events.restore) against the checked one.

restore() must give exactly what the checked rebuild gives for every log our store can
hold, both rulesets, any point of a game; and refuse, as the checked rebuild does, what it
would refuse. decode_entries() must read today's stored entries as the store's general
decoding does, and leave anything else (tampered bytes, older schemas) to it.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.codec import Player, RematchCreated
from events.mapper import decode_entries, events_of
from events.play import LoggedGame, create_game, play_move
from events.poison.schema import CardPlayed
from events.replay import InvalidLog, rebuild
from events.restore import batched, restore
from events.rulesets import EVENT_RULES
from tests.events.logs import game_log, numbered

RULESETS = tuple(EVENT_RULES)
#: A whole game of Poison, as the store holds it.
WHOLE = numbered(game_log(4, seed=3)[0])


def random_log(seed: int, *, to_the_end: bool = False) -> list[tuple[int, Any]]:
    """A game of a random ruleset, size, bots and options, played at random up to a random
    point (a whole move and all it caused, as the store holds it), or to its end."""
    draw = random.Random(seed)
    rules = EVENT_RULES[draw.choice(RULESETS)]
    count = draw.randint(*rules.ruleset.players)
    bots: list[str | None] = [draw.choice([None, None, *rules.ruleset.bots]) for _ in range(count)]
    bots[draw.randrange(count)] = None  # someone plays, or bots alone would finish it at once
    options: dict[str, Any] = {}
    for option in rules.ruleset.options:
        if option.bounds is not None:
            options[option.name] = draw.randint(option.bounds[0], min(option.bounds[1], 4))
        elif option.choices:
            options[option.name] = draw.choice(option.choices)
    seats = tuple(Player(seat=seat, name=f"p{seat}", bot=bots[seat]) for seat in range(count))
    log, logged = create_game(rules.name, f"g{seed}", seats, seed=seed, options=options)
    stop = draw.randint(2, 400) if not to_the_end else None
    while not logged.finished and (stop is None or len(log) < stop):
        caused, logged = play_move(logged, logged.game.turn, tuple(draw.choice(logged.game.legal_moves())))
        log += caused
    return numbered(log)


def fingerprint(logged: LoggedGame) -> list[Any]:
    """Everything the engine's game shows (every seat's view and hand, every result), and
    the events of playing it on to its end the same way: two games with equal fingerprints
    are in the same state, hidden parts included."""
    game = logged.game
    seats = range(game.players)
    shown: list[Any] = [logged.created, logged.version, logged.pending, game.view(), game.legal_moves()]
    shown += [game.view(seat) for seat in seats] + [game.hand(seat) for seat in seats]
    for results in ("results", "set_aside", "draw_order"):
        if hasattr(game, results):
            shown.append(getattr(game, results)())
    draw = random.Random(7)
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, tuple(draw.choice(logged.game.legal_moves())))
        shown.append(caused)
    shown.append(logged.game.view())
    return shown


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_a_restored_game_is_exactly_the_checked_rebuild_of_its_log(seed: int) -> None:
    events = random_log(seed)
    assert batched(events) is not None  # the batch road was taken, not the fallback
    assert fingerprint(restore(events)) == fingerprint(rebuild(events))


def test_both_rulesets_and_finished_games_are_among_the_logs_compared() -> None:
    # The property above is only as good as its logs: they cover both games, and whole ones.
    logs = [random_log(seed) for seed in range(60)]
    assert {restore(events).rules.name for events in logs} == set(RULESETS)
    assert any(restore(events).finished for events in logs)
    assert any(not restore(events).finished for events in logs)


def refusal(build: Any, events: list[tuple[int, Any]]) -> tuple[int, str]:
    with pytest.raises(InvalidLog) as refused:
        build(events)
    return refused.value.at_version, refused.value.reason


def test_a_move_the_rules_refuse_is_refused_as_the_checked_rebuild_refuses_it() -> None:
    events = WHOLE
    at = next(index for index, (_, event) in enumerate(events) if isinstance(event, CardPlayed) and index > 10)
    version, played = events[at]
    other = next(card for card in ("R1", "B7", "P4", "G4") if card != played.card)
    tampered = [*events[:at], (version, msgspec.structs.replace(played, card=other)), *events[at + 1 :]]
    assert batched(tampered) is None
    assert refusal(restore, tampered) == refusal(rebuild, tampered)


def test_a_gap_in_the_versions_is_refused_as_the_checked_rebuild_refuses_it() -> None:
    events = WHOLE
    gapped = [*events[:5], *events[6:]]
    assert refusal(restore, gapped) == refusal(rebuild, gapped)
    assert refusal(restore, []) == refusal(rebuild, [])


def test_an_event_the_batch_does_not_know_leaves_the_log_to_the_checked_rebuild() -> None:
    # A lobby event (here a rematch after the end): judged one by one, whatever that says.
    events = [*WHOLE, (len(WHOLE) + 1, RematchCreated(game_id="next"))]
    assert batched(events) is None
    try:
        expected: Any = fingerprint(rebuild(events))
    except InvalidLog as refused:
        expected = (refused.at_version, refused.reason)
    try:
        got: Any = fingerprint(restore(events))
    except InvalidLog as refused:
        got = (refused.at_version, refused.reason)
    assert got == expected


# ---- decoding stored entries --------------------------------------------------------------


def entries_of(events: list[tuple[int, Any]]) -> list[list[Any]]:
    """The entries XRANGE gives for these events, as the append script writes them."""
    codec = rebuild(events[:1]).rules.codec
    entries = []
    for version, event in events:
        kind, schema, data = codec.encode_stored(event)
        entries.append([b"0-%d" % version, [b"t", kind.encode(), b"s", b"%d" % schema, b"d", data]])
    return entries


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_todays_entries_decode_in_one_pass_as_the_store_decodes_them_one_by_one(seed: int) -> None:
    events = random_log(seed)
    entries = entries_of(events)
    assert decode_entries(entries) == events
    assert decode_entries(entries[3:]) == events[3:]  # a read after some version


def one_by_one(entries: list[list[Any]]) -> Any:
    try:
        return events_of(entries)
    except InvalidLog as refused:
        return refused.at_version, refused.reason


@pytest.mark.parametrize(
    "tamper",
    [
        lambda fields: [*fields[:5], msgspec.msgpack.encode({"type": "card_played", "round": 1})],
        lambda fields: [*fields[:5], fields[5].replace(b"card_played", b"card_playeX")],
        lambda fields: [*fields[:5], b"\xc1"],
        lambda fields: [b"t", b"round_started", *fields[2:]],
        lambda fields: [*fields[:2], b"s", b"9", *fields[4:]],
        lambda fields: [*fields[:4], b"x", fields[5]],
        lambda fields: fields[:4],
        lambda fields: [*fields, b"d", fields[5]],
    ],
    ids=[
        "data missing fields",
        "data of an unknown kind",
        "bytes that are no msgpack",
        "stored as another kind than it holds",
        "a schema version that does not exist",
        "its data under another name",
        "no data",
        "its data twice",
    ],
)
def test_an_entry_not_of_todays_form_is_left_to_the_general_decoding(tamper: Any) -> None:
    events = WHOLE
    entries = entries_of(events)
    at = next(index for index, (_, event) in enumerate(events) if isinstance(event, CardPlayed))
    entries[at] = [entries[at][0], tamper(entries[at][1])]
    assert decode_entries(entries) is None


def test_a_card_that_is_no_card_of_the_game_is_refused_at_its_version() -> None:
    events = WHOLE
    entries = entries_of(events)
    at = next(index for index, (_, event) in enumerate(events) if isinstance(event, CardPlayed))
    fields = entries[at][1]
    entries[at] = [entries[at][0], [*fields[:5], fields[5].replace(events[at][1].card.encode(), b"Z9")]]
    assert decode_entries(entries) is None
    version, reason = one_by_one(entries)
    assert version == events[at][0]
    assert "Z9" in reason


def test_entries_whose_ids_are_not_the_versions_in_a_row_are_left_to_the_general_decoding() -> None:
    entries = entries_of(WHOLE)
    assert decode_entries([entries[0], *entries[2:]]) is None  # a gap
    assert decode_entries([[b"1-1", entries[0][1]], *entries[1:]]) is None  # not 0-<version>
    assert decode_entries([]) == []
