"""The C loops of the pot game: `replay` a recorded game, `simulate` many; the reference agrees."""

import pytest

from core.errors import SEED_LIMIT
from core.pot import engine, reference
from tests.core.pot.recorded import record_game


def outcome(replayed):
    error = replayed.error
    game = replayed.game
    return (
        replayed.applied,
        replayed.illegal_at,
        None if error is None else (type(error), error.code, str(error)),
        game.view(),
        tuple(game.view(seat) for seat in range(game.players)),
        game.draw_order(),
        game.results(),
    )


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_replaying_a_recorded_game_gives_the_same_final_state(pot, players):
    deal, moves, original = record_game(players, 40 + players)
    replayed = pot.replay(players, moves, deal=deal)
    assert (replayed.error, replayed.illegal_at, replayed.applied) == (None, None, len(moves))
    assert replayed.game.status == "finished"
    assert replayed.game.results() == original.results()
    assert replayed.game.totals == original.totals
    assert replayed.game.winners == original.winners
    assert pot.replay(players, moves, seed=40 + players).game.view() == original.view()


def test_replay_reports_the_index_of_the_first_illegal_move_and_stops_there(pot):
    deal, moves, _ = record_game(3, 41)
    bad = list(moves)
    seat, card, close = bad[20]
    bad[20] = ((seat + 1) % 3, card, close)
    replayed = pot.replay(3, bad, deal=deal)
    assert (replayed.illegal_at, replayed.error.code) == (20, "not_your_turn")
    assert replayed.game.view() == pot.replay(3, moves[:20], deal=deal).game.view()


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        (("1", "T0", False), "seat_out_of_range"),
        ((7, "T0", False), "seat_out_of_range"),
        ((None, None, None), "seat_out_of_range"),
        ((1, "T9", False), "unknown_card"),
        ((1, 3, False), "unknown_card"),
        ((1, "T0", 2), "invalid_move"),
        ((1, "T0", "False"), "invalid_move"),
        ((1, "T0"), "invalid_move"),
        ((1, "T0", False, 0), "invalid_move"),
        ((), "invalid_move"),
        ([1, "T0"], "invalid_move"),
        ("T0F", "invalid_move"),
        ("T0", "invalid_move"),
        (None, "invalid_move"),
        (5, "invalid_move"),
        ({"seat": 1}, "invalid_move"),
        (b"abc", "invalid_move"),
    ],
)
def test_replay_reports_a_malformed_entry_as_the_first_illegal_move(pot, entry, code):
    deal, moves, _ = record_game(3, 42)
    replayed = pot.replay(3, [*moves[:5], entry, *moves[6:]], deal=deal)
    assert (replayed.illegal_at, replayed.error.code) == (5, code)
    assert replayed.game.view() == pot.replay(3, moves[:5], deal=deal).game.view()


def test_replay_without_a_deal_stops_at_the_first_move_awaiting_it(pot):
    _, moves, _ = record_game(2, 43)
    replayed = pot.replay(2, moves)
    assert (replayed.illegal_at, replayed.error.code, replayed.game.status) == (0, "awaiting_deal", "dealing")
    assert pot.replay(2, []).error is None


def test_replay_stops_at_a_move_after_the_end(pot):
    deal, moves, _ = record_game(2, 44)
    replayed = pot.replay(2, [*moves, moves[-1]], deal=deal)
    assert (replayed.illegal_at, replayed.error.code) == (len(moves), "game_finished")


@pytest.mark.parametrize("cut", [0, 1, 17, 30, -1])
@pytest.mark.parametrize("damage", ["card", "seat", "close", "entry", "type"])
def test_engine_and_reference_replay_alike_wherever_the_record_breaks(cut, damage):
    deal, moves, _ = record_game(4, 45)
    cut %= len(moves)
    seat, card, close = moves[cut]
    broken = {
        "card": (seat, "T6" if card != "T6" else "T0", close),
        "seat": ((seat + 2) % 4, card, close),
        "close": (seat, card, not close),
        "entry": [seat, card],
        "type": (seat, card, int(close)),
    }[damage]
    moves = [*moves[:cut], broken, *moves[cut + 1 :]]
    assert outcome(engine.replay(4, moves, deal=deal)) == outcome(reference.replay(4, moves, deal=deal))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_seeded_deals_agree(players):
    for seed in (0, 1, SEED_LIMIT, 123456789):
        assert engine.seeded_deal(seed, players) == reference.seeded_deal(seed, players)


@pytest.mark.parametrize(
    ("players", "bots"),
    [(2, None), (2, ["greedy", "random"]), (3, ["random", "greedy", "greedy"]), (5, None), (6, ["greedy"] * 6)],
)
def test_simulate_gives_the_same_figures_in_the_engine_and_the_reference(players, bots):
    one = engine.simulate(players, 12, seed=50, bots=bots)
    two = reference.simulate(players, 12, seed=50, bots=bots)
    assert one == two
    assert one.games == 12
    assert sum(one.wins) >= 12
    assert one.moves >= 12 * (55 - 56 // 2)  # every card but the pots' first ones is played


def test_simulated_game_g_is_the_seeded_game_stream_seed_of_g_played_by_its_bots():
    # A game number whose derived seed a Game takes (simulate deals from any 64-bit state).
    seed = 77
    number = next(n for n in range(3, 64) if reference.stream_seed(seed, n) <= SEED_LIMIT)
    game_seed = reference.stream_seed(seed, number)
    game = engine.Game(3, seed=game_seed)
    rng = reference.Random(reference.stream_seed(game_seed, 0))
    while game.status != "finished":
        legal = game.legal_moves()
        game.play(game.turn, *legal[rng.below(len(legal))])
    alone = engine.simulate(3, number + 1, seed=seed)
    before = engine.simulate(3, number, seed=seed)
    assert tuple(a - b for a, b in zip(alone.score_sum, before.score_sum, strict=True)) == game.totals


def test_simulating_no_games_plays_nothing(pot):
    assert pot.simulate(4, 0) == (0, 0, (0,) * 4, (0,) * 4, (0,) * 4)


def test_simulating_in_chunks_adds_up_to_simulating_at_once(pot):
    bots = ["greedy", "random", "random"]
    whole = pot.simulate(3, 9, seed=12, bots=bots)
    parts = [pot.simulate(3, n, seed=12, bots=bots, first=f) for f, n in [(0, 4), (4, 5)]]
    assert whole.moves == sum(p.moves for p in parts)
    for field in ("wins", "score_sum", "score_squares"):
        assert getattr(whole, field) == tuple(map(sum, zip(*(getattr(p, field) for p in parts), strict=True)))
