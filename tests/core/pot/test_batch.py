"""The C loops of the pot game: `replay` a recorded game, `simulate` many; the reference agrees."""

import pytest

from core.errors import SEED_LIMIT
from core.pot import engine, reference
from tests.core.pot.recorded import record_game
from tests.core.recorded import outcome


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
    one, two = engine.replay(4, moves, deal=deal), reference.replay(4, moves, deal=deal)
    assert (outcome(one), one.game.draw_order()) == (outcome(two), two.game.draw_order())


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
