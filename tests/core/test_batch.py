"""The C loops: `replay` a recorded game, `simulate` many games; the reference agrees."""

import pytest

from core.errors import SEED_LIMIT, RuleError
from core.poison import engine, reference
from tests.core.recorded import record_game


def outcome(replayed):
    error = replayed.error
    game = replayed.game
    return (
        replayed.applied,
        replayed.illegal_at,
        None if error is None else (error.code, str(error)),
        game.status,
        game.round,
        game.view(),
        game.results(),
        game.totals,
        game.winners,
    )


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


def test_replay_reports_the_index_of_the_first_illegal_move_and_stops_there(rules):
    deals, moves, _ = record_game(4, 41)
    bad = list(moves)
    seat, card, cauldron = bad[70]
    bad[70] = ((seat + 1) % 4, card, cauldron)
    replayed = rules.replay(4, bad, deals=deals)
    assert (replayed.illegal_at, replayed.error.code) == (70, "not_your_turn")
    assert replayed.game.round == 2
    assert sum(replayed.game.hand_sizes) == 50 - 20


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        (("1", "R1", 0), "seat_out_of_range"),
        ((1, "R1"), "invalid_move"),
        ("R1", "invalid_move"),
        ((1, "R9", 0), "unknown_card"),
        ((1, "R1", 4), "cauldron_out_of_range"),
        ((5, "R1", 0), "seat_out_of_range"),
    ],
)
def test_replay_reports_a_malformed_entry_as_the_first_illegal_move(rules, entry, code):
    deals, moves, _ = record_game(4, 42)
    replayed = rules.replay(4, [*moves[:5], entry, *moves[6:]], deals=deals)
    assert (replayed.illegal_at, replayed.error.code) == (5, code)
    assert replayed.game.view() == rules.replay(4, moves[:5], deals=deals).game.view()


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


def test_simulated_game_g_is_the_seeded_game_stream_seed_of_g_played_at_random():
    # A game number whose derived seed a Game takes (simulate deals from any 64-bit state).
    seed = 77
    number = next(n for n in range(3, 64) if reference.stream_seed(seed, n) <= SEED_LIMIT)
    game_seed = reference.stream_seed(seed, number)
    game = engine.Game(4, seed=game_seed)
    rng = reference.Random(reference.stream_seed(game_seed, 0))
    while game.status != "finished":
        legal = game.legal_moves()
        game.play(game.turn, *legal[rng.below(len(legal))])
    alone = engine.simulate(4, number + 1, seed=seed)
    before = engine.simulate(4, number, seed=seed)
    assert tuple(a - b for a, b in zip(alone.score_sum, before.score_sum, strict=True)) == game.totals


@pytest.mark.parametrize("games", [-1, 1.5, "10", None, 10**10])
def test_simulate_refuses_a_bad_number_of_games(rules, games):
    with pytest.raises(RuleError) as refused:
        rules.simulate(4, games)
    assert refused.value.code == "invalid_games"


def test_simulating_no_games_plays_nothing(rules):
    assert rules.simulate(4, 0) == (0, 0, (0,) * 4, (0,) * 4, (0,) * 4)


def test_simulating_in_chunks_adds_up_to_simulating_at_once(rules):
    whole = rules.simulate(3, 9, seed=12, bots=["greedy", "random", "random"])
    parts = [rules.simulate(3, n, seed=12, bots=["greedy", "random", "random"], first=f) for f, n in [(0, 4), (4, 5)]]
    assert whole.moves == sum(p.moves for p in parts)
    for field in ("wins", "score_sum", "score_squares"):
        assert getattr(whole, field) == tuple(map(sum, zip(*(getattr(p, field) for p in parts), strict=True)))


def test_derived_seeds_are_the_references_stream_seeds():
    for seed, stream in [(0, 0), (1, 5), (2**64 - 1, 20), (12345, 2**40)]:
        assert engine.derive_seed(seed, stream) == reference.stream_seed(seed, stream)
    with pytest.raises(RuleError):
        engine.derive_seed(-1, 0)
