"""The event layer's tests written once and run for every ruleset of core.rulesets.RULESETS:
a whole log rebuilds the game the reference plays, with or without its seed; a tampered log
is refused at its first bad event; a log that stops inside a move is not complete; a reader
of an active game's log sees only what it may. What a ruleset's own events allow is in
tests/rulesets.py; a new ruleset gets these tests by being registered (and described there)."""

from __future__ import annotations

import msgspec
import pytest

from core.errors import RuleError
from core.rulesets import RULESETS, Ruleset
from events.codec import (
    TABLE_EVENTS,
    GameFinished,
    Player,
    encode_public,
    to_public,
)
from events.play import create_game
from events.replay import InvalidLog, rebuild, require_complete
from events.rulesets import rules_for
from tests.rulesets import (
    EVERY_RULESET,
    facts,
    incomplete_cuts,
    numbered,
    played_log,
    redacted,
    tamperings,
    unseeded,
)

#: The table's events, which every ruleset's codec takes and a game played through holds none of.
TABLE = set(TABLE_EVENTS)  # the lobby's and the away seats': not in a game played through


def choices(ruleset: Ruleset, index: int) -> dict[str, str]:
    """One choice of each option that has choices, a different one for each `index`."""
    return {option.name: option.choices[index % len(option.choices)] for option in ruleset.options if option.choices}


def oracle_of(ruleset: Ruleset, log, n: int, seed: int | None, options) -> object:
    """The reference game dealt from `seed` and played with the moves `log` records."""
    rules = rules_for(ruleset.name)
    oracle = ruleset.reference.Game(n, seed=seed, **options)
    for event in log:
        if isinstance(event, rules.played_type):
            seat, move = rules.move_of(event)
            oracle.play(seat, *move)
    return oracle


def every_view(game, n: int) -> list:
    return [game.view(seat) for seat in (None, *range(n))]


# ---- the log and the reference -----------------------------------------------------------


SIZES = [
    pytest.param(ruleset, n, id=f"{name}-{n}")
    for name, ruleset in RULESETS.items()
    for n in range(ruleset.players[0], ruleset.players[1] + 1)
]


@pytest.mark.parametrize(("ruleset", "n"), SIZES)
def test_a_whole_seeded_log_rebuilds_to_the_state_the_reference_reaches_with_the_same_moves(ruleset, n):
    seed, options = 40 + n, choices(ruleset, n)
    log, played = played_log(ruleset, n, seed=seed, bots={1: "greedy"} if n > 2 else None, options=options)
    rules = rules_for(ruleset.name)
    assert {type(event) for event in log} == set(rules.codec.types.values()) - TABLE  # every kind of event
    rebuilt = rebuild(numbered(log))
    oracle = oracle_of(ruleset, log, n, seed, options)
    assert rebuilt.version == len(log)
    assert rebuilt.finished
    assert oracle.status == "finished"
    assert every_view(rebuilt.game, n) == every_view(oracle, n)
    assert (rebuilt.game.totals, rebuilt.game.winners) == (oracle.totals, oracle.winners)
    assert log[-1] == GameFinished(totals=oracle.totals, winners=oracle.winners)
    assert every_view(rebuilt.game, n) == every_view(played.game, n)


@EVERY_RULESET
def test_a_new_game_given_an_option_its_ruleset_does_not_have_is_refused_naming_it(ruleset):
    players = tuple(Player(seat=seat, name=f"p{seat}") for seat in range(ruleset.players[0]))
    with pytest.raises(RuleError, match="has no option speed") as refused:
        create_game(ruleset.name, "g", players, seed=1, options={"speed": 3})
    assert refused.value.code == "invalid_option"


@EVERY_RULESET
def test_a_log_without_its_seed_rebuilds_the_same_game_from_the_deals_it_records(ruleset):
    n = ruleset.players[0]
    log, _ = played_log(ruleset, n, seed=13, bots={1: "greedy"})
    without_seed = [unseeded(log[0]), *log[1:]]
    without = rebuild(numbered(without_seed))
    assert without.finished
    assert every_view(without.game, n) == every_view(rebuild(numbered(log)).game, n)
    # Another deal written into an unseeded log makes another game, and the log says which.
    other, _ = played_log(ruleset, n, seed=99, moves=6)
    other_unseeded = [unseeded(other[0]), *other[1:]]
    assert other[1] != log[1]
    assert every_view(rebuild(numbered(other_unseeded)).game, n) == every_view(oracle_of(ruleset, other, n, 99, {}), n)


# ---- tampered logs ---------------------------------------------------------------------------


def tampered_logs() -> dict[str, tuple]:
    """Every ruleset's log of four seats with a greedy bot at seat 1, and its tamperings."""
    found = {}
    for name, ruleset in RULESETS.items():
        log, _ = played_log(ruleset, 4, seed=13, bots={1: "greedy"}, options=facts(ruleset).options)
        for tamper, tampered in tamperings(ruleset, log).items():
            found[f"{name}-{tamper}"] = (log, tampered)
    return found


TAMPERED = tampered_logs()


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_log_is_refused_at_its_first_bad_event_and_the_log_up_to_it_is_not(case):
    log, (index, forged, says) = TAMPERED[case]
    assert forged != log
    assert rebuild(numbered(log[: index + 1])).version == index + 1  # the true event there passes
    with pytest.raises(InvalidLog) as refused:
        rebuild(numbered(forged))
    assert refused.value.at_version == index + 1
    assert str(refused.value).startswith(f"event {index + 1}: ")
    if says is not None:
        assert says in refused.value.reason


@EVERY_RULESET
def test_a_log_that_stops_inside_a_move_is_not_complete_where_it_stops(ruleset):
    log, _ = played_log(ruleset, 3, seed=7, options=facts(ruleset).options)
    require_complete(rebuild(numbered(log)))
    for cut in incomplete_cuts(ruleset, log):
        partial = rebuild(numbered(log[:cut]))  # every event so far is right
        with pytest.raises(InvalidLog) as refused:
            require_complete(partial)
        assert refused.value.at_version == cut + 1
    with pytest.raises(InvalidLog) as refused:
        require_complete(rebuild(numbered(log[:1])))  # created, never dealt
    assert refused.value.at_version == 2


# ---- what a reader may see ---------------------------------------------------------------


@EVERY_RULESET
def test_an_active_log_shows_each_reader_only_what_it_may_see(ruleset):
    n = 4
    log, logged = played_log(ruleset, n, seed=31, moves=30)
    rules, known = rules_for(ruleset.name), facts(ruleset)
    assert not logged.finished
    public = [msgspec.json.decode(encode_public(to_public(version, event))) for version, event in numbered(log)]
    for kind in known.redacted_types:  # the log holds every event a reader sees redacted
        some = [event["data"] for event in public if event["type"] == kind]
        assert some, kind
        assert all("seat" not in data for data in some) or len({data["seat"] for data in some}) >= 2
    for reader in (None, *range(n)):
        for version, event in numbered(log):
            seen = rules.visible(event, reader, False)
            assert type(seen) is type(event)
            shown = msgspec.json.decode(encode_public(to_public(version, seen)))
            assert shown == redacted(ruleset, public[version - 1], reader)
            for key in known.hidden_keys:
                assert f'"{key}":[' not in encode_public(to_public(version, seen)).decode()


@EVERY_RULESET
def test_a_finished_log_shows_everything_to_everyone(ruleset):
    n = ruleset.players[0]
    log, logged = played_log(ruleset, n, seed=13, options=facts(ruleset).options)
    rules = rules_for(ruleset.name)
    assert logged.finished
    for reader in (None, *range(n)):
        assert [rules.visible(event, reader, True) for event in log] == log
        assert rules.visible(log[0], reader, True).seed == 13
