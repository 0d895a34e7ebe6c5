"""The C loops: `replay` a recorded game, `simulate` many games; the reference agrees. The
tests of `simulate` that every ruleset shares run over each (the pot game's own, in
tests/core/pot/test_batch.py)."""

from typing import Any

import pytest

from core.errors import SEED_LIMIT, RuleError
from core.plain import Random, stream_seed
from core.poison import engine, reference
from core.rulesets import POISON, POT
from tests.core.pot.recorded import record_game as record_pot_game
from tests.core.recorded import outcome, record_game
from tests.rulesets import EVERY_IMPLEMENTATION, EVERY_RULESET


def poison_recording(players: int, seed: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    deals, moves, _ = record_game(players, seed)
    return {"deals": deals}, moves


def pot_recording(players: int, seed: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    deal, moves, _ = record_pot_game(players, seed)
    return {"deal": deal}, moves


#: A recorded game of each ruleset: the keyword argument that hands `replay` its deals, and its moves.
RECORDINGS = {"poison": poison_recording, "pot": pot_recording}


@pytest.mark.parametrize(("players", "cauldrons"), [(3, "dynamic"), (4, "fixed"), (5, "dynamic"), (6, "fixed")])
def test_replaying_a_recorded_game_gives_the_same_final_state(rules, players, cauldrons):
    deals, moves, original = record_game(players, 40 + players, cauldrons=cauldrons)
    replayed = rules.replay(players, moves, cauldrons=cauldrons, deals=deals)
    assert replayed.error is None
    assert replayed.illegal_at is None
    assert replayed.applied == len(moves) == players * (38 if players == 3 else 50)
    assert replayed.game.results() == original.results()
    assert replayed.game.winners == original.winners
    assert rules.replay(players, moves, cauldrons=cauldrons, seed=40 + players).game.totals == original.totals


@EVERY_IMPLEMENTATION
def test_replay_reports_the_index_of_the_first_illegal_move_and_stops_there(ruleset, rules):
    players = ruleset.players[0] + 1
    dealt, moves = RECORDINGS[ruleset.name](players, 41)
    at = len(moves) // 3  # in Poison's second round
    bad = list(moves)
    seat, *move = bad[at]
    bad[at] = ((seat + 1) % players, *move)
    replayed = rules.replay(players, bad, **dealt)
    assert (replayed.applied, replayed.illegal_at, replayed.error.code) == (at, at, "not_your_turn")
    before = rules.replay(players, moves[:at], **dealt).game
    assert (replayed.game.view(), replayed.game.hand_sizes) == (before.view(), before.hand_sizes)


@pytest.mark.parametrize("side", ["engine", "reference"])
@pytest.mark.parametrize(
    ("ruleset", "entry", "code"),
    [
        (POISON, ("1", "R1", 0), "seat_out_of_range"),
        (POISON, (1, "R1"), "invalid_move"),
        (POISON, "R1", "invalid_move"),
        (POISON, (1, "R9", 0), "unknown_card"),
        (POISON, (1, "R1", 4), "cauldron_out_of_range"),
        (POISON, (5, "R1", 0), "seat_out_of_range"),
        (POT, ("1", "T0", False), "seat_out_of_range"),
        (POT, (7, "T0", False), "seat_out_of_range"),
        (POT, (None, None, None), "seat_out_of_range"),
        (POT, (1, "T9", False), "unknown_card"),
        (POT, (1, 3, False), "unknown_card"),
        (POT, (1, "T0", 2), "invalid_move"),
        (POT, (1, "T0", "False"), "invalid_move"),
        (POT, (1, "T0"), "invalid_move"),
        (POT, (1, "T0", False, 0), "invalid_move"),
        (POT, (), "invalid_move"),
        (POT, [1, "T0"], "invalid_move"),
        (POT, "T0F", "invalid_move"),
        (POT, "T0", "invalid_move"),
        (POT, None, "invalid_move"),
        (POT, 5, "invalid_move"),
        (POT, {"seat": 1}, "invalid_move"),
        (POT, b"abc", "invalid_move"),
    ],
)
def test_replay_reports_a_malformed_entry_as_the_first_illegal_move(ruleset, side, entry, code):
    rules, players = getattr(ruleset, side), ruleset.players[0] + 1
    dealt, moves = RECORDINGS[ruleset.name](players, 42)
    replayed = rules.replay(players, [*moves[:5], entry, *moves[6:]], **dealt)
    assert (replayed.illegal_at, replayed.error.code) == (5, code)
    assert replayed.game.view() == rules.replay(players, moves[:5], **dealt).game.view()


def test_replay_stops_where_a_rounds_deal_is_missing_or_invalid(rules):
    deals, moves, _ = record_game(4, 43)
    missing = rules.replay(4, moves, deals=deals[:1])
    assert (missing.illegal_at, missing.error.code) == (50, "awaiting_deal")
    broken = (deals[1].hands[:3], ())
    invalid = rules.replay(4, moves, deals=[deals[0], broken])
    assert (invalid.illegal_at, invalid.error.code) == (50, "invalid_deal")
    assert invalid.game.status == "dealing"
    unread = rules.replay(4, moves[:50], deals=[deals[0], broken])
    assert (unread.illegal_at, unread.error.code) == (50, "invalid_deal")
    nothing = rules.replay(4, [], deals=["junk"])
    assert (nothing.illegal_at, nothing.error.code) == (0, "invalid_deal")


def test_replay_deals_the_next_round_even_when_no_move_of_it_is_recorded(rules):
    deals, moves, _ = record_game(4, 44)
    replayed = rules.replay(4, moves[:50], deals=deals[:2])
    assert (replayed.error, replayed.game.status, replayed.game.round) == (None, "active", 2)


def test_replay_raises_only_for_invalid_game_options(rules):
    with pytest.raises(RuleError) as refused:
        rules.replay(7, [])
    assert refused.value.code == "invalid_players"
    with pytest.raises(RuleError) as refused:
        rules.replay(4, "not a list")
    assert refused.value.code == "invalid_move"


@pytest.mark.parametrize("cut", [0, 1, 49, 50, 51, 137, 199])
@pytest.mark.parametrize("damage", ["card", "seat", "cauldron", "entry", "deal"])
def test_engine_and_reference_replay_alike_wherever_the_record_breaks(cut, damage):
    deals, moves, _ = record_game(4, 45)
    seat, card, cauldron = moves[cut]
    broken = {
        "card": (seat, "G4" if card != "G4" else "R1", cauldron),
        "seat": ((seat + 2) % 4, card, cauldron),
        "cauldron": (seat, card, (cauldron + 1) % 3),
        "entry": [seat, card],
        "deal": (seat, card, cauldron),
    }[damage]
    moves = [*moves[:cut], broken, *moves[cut + 1 :]]
    if damage == "deal":
        deals = [deals[0], (deals[1].hands, ("R1",)), *deals[2:]]
    assert outcome(engine.replay(4, moves, deals=deals)) == outcome(reference.replay(4, moves, deals=deals))


@pytest.mark.parametrize(
    ("players", "rounds", "cauldrons"),
    [(3, None, "dynamic"), (4, 2, "fixed"), (5, 1, "dynamic"), (6, 7, "fixed")],
)
def test_simulate_gives_the_same_totals_in_the_engine_and_the_reference(players, rounds, cauldrons):
    one = engine.simulate(players, 12, seed=50, rounds=rounds, cauldrons=cauldrons)
    two = reference.simulate(players, 12, seed=50, rounds=rounds, cauldrons=cauldrons)
    assert one == two
    per_game = (rounds or players) * (38 if players == 3 else 50)
    assert one.moves == 12 * per_game
    assert sum(one.wins) >= 12


@pytest.mark.parametrize("games", [-1, 1.5, "10", None, 10**10])
def test_simulate_refuses_a_bad_number_of_games(rules, games):
    with pytest.raises(RuleError) as refused:
        rules.simulate(4, games)
    assert refused.value.code == "invalid_games"


@EVERY_IMPLEMENTATION
def test_simulating_no_games_plays_nothing(ruleset, rules):
    players = ruleset.players[0]
    assert rules.simulate(players, 0) == (0, 0, (0,) * players, (0,) * players, (0,) * players)


@EVERY_IMPLEMENTATION
def test_simulating_in_chunks_adds_up_to_simulating_at_once(ruleset, rules):
    bots = ["greedy", "random", "random"]
    whole = rules.simulate(3, 9, seed=12, bots=bots)
    parts = [rules.simulate(3, n, seed=12, bots=bots, first=f) for f, n in [(0, 4), (4, 5)]]
    assert whole.moves == sum(p.moves for p in parts)
    for field in ("wins", "score_sum", "score_squares"):
        assert getattr(whole, field) == tuple(map(sum, zip(*(getattr(p, field) for p in parts), strict=True)))


@EVERY_RULESET
def test_simulated_game_g_is_the_seeded_game_stream_seed_of_g_played_at_random(ruleset):
    # A game number whose derived seed a Game takes (simulate deals from any 64-bit state).
    seed, players = 77, ruleset.players[0] + 1
    number = next(n for n in range(3, 64) if stream_seed(seed, n) <= SEED_LIMIT)
    game_seed = stream_seed(seed, number)
    game = ruleset.engine.Game(players, seed=game_seed)
    rng = Random(stream_seed(game_seed, 0))
    while game.status != "finished":
        legal = game.legal_moves()
        game.play(game.turn, *legal[rng.below(len(legal))])
    alone = ruleset.engine.simulate(players, number + 1, seed=seed)
    before = ruleset.engine.simulate(players, number, seed=seed)
    assert tuple(a - b for a, b in zip(alone.score_sum, before.score_sum, strict=True)) == game.totals


def test_derived_seeds_are_the_references_stream_seeds():
    for seed, stream in [(0, 0), (1, 5), (2**64 - 1, 20), (12345, 2**40)]:
        assert engine.derive_seed(seed, stream) == reference.stream_seed(seed, stream)
    with pytest.raises(RuleError):
        engine.derive_seed(-1, 0)
