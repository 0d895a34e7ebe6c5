"""`simulate(..., threads=N)` of both games: the figures never depend on N, bad N is refused.

Each game draws from its own stream (stream_seed(seed, game number)), so splitting the games
among threads and summing their tallies must give exactly the one-thread figures.
"""

import pytest

from core.errors import InvalidArgument
from core.poison import engine
from core.poison.engine import THREAD_BOUNDS
from core.pot import engine as pot
from core.results import merged

POISON_MIXES = [
    (3, None, "dynamic"),
    (4, ("greedy", "random", "greedy", "random"), "fixed"),
    (6, ("greedy",) * 6, "dynamic"),
]
POT_MIXES = [(3, None), (4, ("random", "greedy", "random", "greedy")), (6, ("greedy",) * 6)]


@pytest.mark.parametrize(("players", "bots", "cauldrons"), POISON_MIXES)
def test_poison_simulate_gives_the_same_figures_on_one_two_and_three_threads(players, bots, cauldrons):
    runs = [
        engine.simulate(players, 301, seed=19, first=7, bots=bots, cauldrons=cauldrons, threads=threads)
        for threads in (1, 2, 3)
    ]
    assert runs[0].games == 301
    assert runs[0].moves > 0
    assert runs[1] == runs[0]
    assert runs[2] == runs[0]


@pytest.mark.parametrize(("players", "bots"), POT_MIXES)
def test_pot_simulate_gives_the_same_figures_on_one_two_and_three_threads(players, bots):
    runs = [pot.simulate(players, 301, seed=23, first=11, bots=bots, threads=threads) for threads in (1, 2, 3)]
    assert runs[0].games == 301
    assert runs[0].moves > 0
    assert runs[1] == runs[0]
    assert runs[2] == runs[0]


@pytest.mark.parametrize("simulate", [engine.simulate, pot.simulate], ids=["poison", "pot"])
def test_more_threads_than_games_still_plays_every_game_once(simulate):
    assert simulate(4, 5, seed=3, threads=8) == simulate(4, 5, seed=3)
    assert simulate(4, 0, threads=THREAD_BOUNDS[1]).games == 0


@pytest.mark.parametrize("simulate", [engine.simulate, pot.simulate], ids=["poison", "pot"])
def test_a_threaded_run_equals_its_one_thread_chunks_merged(simulate):
    whole = simulate(5, 90, seed=41, threads=2)
    chunks = [simulate(5, 40, seed=41), simulate(5, 50, seed=41, first=40)]
    assert chunks[0] != chunks[1]
    assert merged(chunks) == whole
    assert merged(chunks[::-1]) == whole
    assert merged([whole]) == whole


def test_merging_no_simulation_at_all_is_refused():
    with pytest.raises(ValueError, match="at least one simulation"):
        merged([])


@pytest.mark.parametrize("simulate", [engine.simulate, pot.simulate], ids=["poison", "pot"])
def test_merging_simulations_of_different_numbers_of_seats_is_refused(simulate):
    four, five = simulate(4, 3, seed=1), simulate(5, 3, seed=1)
    for parts in ([four, five], [five, four]):
        with pytest.raises(ValueError, match="as many seats"):
            merged(parts)


@pytest.mark.parametrize("simulate", [engine.simulate, pot.simulate], ids=["poison", "pot"])
@pytest.mark.parametrize("threads", [0, -1, THREAD_BOUNDS[1] + 1, 2.0, "2", True, None])
def test_a_thread_count_out_of_bounds_or_not_a_whole_number_is_refused(simulate, threads):
    with pytest.raises(InvalidArgument) as refused:
        simulate(4, 10, threads=threads)
    assert refused.value.code == "invalid_threads"
    assert f"from 1 to {THREAD_BOUNDS[1]}, not {threads!r}" in str(refused.value)
