"""The `mcts` search bot of both games: deterministic, legal, blind to what its seat may not
see, bounded in its budget, off the GIL, and not offered by the service yet.

Budgets are tiny (a few dozen playouts): these tests check behaviour, not strength (the
strength bars are benchmarks/mcts_bars.py's).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from benchmarks import mcts_bars
from core.errors import MILLISECOND_BOUNDS, PLAYOUT_BOUNDS, SEARCH_BOT, InvalidArgument
from core.poison import engine, reference
from core.pot import engine as pot
from core.pot import reference as pot_reference
from core.rulesets import RULESETS
from tests.waiting import cpu_seconds, until

GAMES = [engine, pot]


def greedy_after(rules, moves: int, players: int, seed: int = 5):
    """A seeded game of `rules` after `moves` moves of the greedy bot."""
    game = rules.Game(players, seed=seed)
    for _ in range(moves):
        game.play(game.turn, *game.choose("greedy"))
    return game


def poison_after(moves: int, players: int = 4, seed: int = 5) -> engine.Game:
    return greedy_after(engine, moves, players, seed)


def pot_after(moves: int, players: int = 2, seed: int = 5) -> pot.Game:
    return greedy_after(pot, moves, players, seed)


# ---- determinism and legality ---------------------------------------------------------------


@pytest.mark.parametrize("moves", [0, 9, 30])
def test_a_poison_search_from_the_same_position_seed_and_budget_is_the_same(moves):
    game = poison_after(moves)
    first = game.search(11, playouts=120)
    assert game.copy().search(11, playouts=120) == first
    assert first.playouts == 120
    assert sum(first.visits) == 120
    assert first.move in first.moves == game.legal_moves()
    assert first.visits[first.moves.index(first.move)] == max(first.visits)


@pytest.mark.parametrize("moves", [0, 7, 20])
def test_a_pot_search_from_the_same_position_seed_and_budget_is_the_same(moves):
    game = pot_after(moves)
    first = game.search(11, playouts=120)
    assert game.copy().search(11, playouts=120) == first
    assert first.move in first.moves == game.legal_moves()
    assert sum(first.visits) == first.playouts


def test_different_seeds_search_differently():
    game = poison_after(4)
    assert len({game.search(seed, playouts=60).visits for seed in range(4)}) > 1


def test_choose_mcts_is_the_searchs_move_in_both_games():
    for game in (poison_after(6), pot_after(6)):
        assert game.choose("mcts", 3, playouts=50) == game.search(3, playouts=50).move


def test_a_forced_move_is_played_without_searching():
    game = pot_after(0)
    while len(game.legal_moves()) != 1 and game.status == "active":
        move = game.choose("greedy")
        game.play(game.turn, move.card, move.close)
    searched = game.search(1, playouts=50)
    assert searched.playouts == 0
    assert searched.move == game.legal_moves()[0]


@pytest.mark.parametrize(("ruleset", "players"), [("poison", 3), ("poison", 5), ("pot", 2), ("pot", 4)])
def test_mcts_plays_whole_games_of_legal_moves_only(ruleset, players):
    game = RULESETS[ruleset].engine.Game(players, seed=players)
    step = 0
    while game.status == "active":
        move = game.choose("mcts", step, playouts=12)
        assert move in game.legal_moves()
        game.play(game.turn, *move)
        step += 1
    assert game.status == "finished"


# ---- the seat's view alone ------------------------------------------------------------------


def hidden_swap_poison(players: int, moves: int) -> tuple[engine.Game, engine.Game, int]:
    """Two games at the same position, the same in everything the seat to move may see, with
    two unplayed cards swapped between two hands it may not see (the set-aside hand is one
    of them with three players)."""
    deal = engine.seeded_deal(8, players, 1)
    hands = [list(hand) for hand in deal.hands] + [list(deal.set_aside)]
    first = engine.Game(players, deals=[deal])
    played = []
    for _ in range(moves):
        move = first.choose("greedy")
        played.append((first.turn, move.card, move.cauldron))
        first.play(first.turn, move.card, move.cauldron)
    seat = first.turn
    held = [list(first.hand(s)) for s in range(players)] + [list(first.set_aside())]
    a, b = [s for s in range(len(held)) if s != seat and held[s]][-2:]
    card_a = held[a][0]
    card_b = next(card for card in held[b] if card != card_a)
    hands[a].remove(card_a)
    hands[b].remove(card_b)
    hands[a].append(card_b)
    hands[b].append(card_a)
    second = engine.Game(players, deals=[(hands[:players], hands[players] if players == 3 else ())])
    for move in played:
        second.play(*move)
    return first, second, seat


@pytest.mark.parametrize(("players", "moves"), [(3, 0), (3, 11), (4, 5), (4, 26), (6, 13)])
def test_a_poison_search_reads_only_its_seats_view(players, moves):
    first, second, seat = hidden_swap_poison(players, moves)
    assert first.view(seat) == second.view(seat)
    differ = [s for s in range(players) if first.hand(s) != second.hand(s)]
    assert differ or first.set_aside() != second.set_aside()
    for seed in (1, 2):
        assert first.search(seed, playouts=150) == second.search(seed, playouts=150)


@pytest.mark.parametrize(("players", "moves"), [(3, 30), (5, 30)])
def test_a_poison_search_reads_not_the_seed_that_deals_the_next_rounds(players, moves):
    # A seeded game knows every later round's deal; the same game dealt by hand does not.
    # Were the seed left in the search's view, its playouts would play on into the next
    # round's real deal from the seeded game only, and the two searches would differ.
    seeded = engine.Game(players, seed=8)
    dealt = engine.Game(players, deals=[engine.seeded_deal(8, players, 1)])
    for _ in range(moves):
        move = seeded.choose("greedy")
        seeded.play(seeded.turn, move.card, move.cauldron)
        dealt.play(dealt.turn, move.card, move.cauldron)
    assert seeded.rounds > 1
    assert seeded.round == 1
    assert seeded.seed == 8
    assert dealt.seed is None
    assert seeded.view(seeded.turn) == dealt.view(dealt.turn)
    assert len(seeded.legal_moves()) > 1  # a forced move is played without searching
    for seed in (1, 2):
        assert seeded.search(seed, playouts=200) == dealt.search(seed, playouts=200)


def test_a_pot_search_reads_neither_the_other_hands_nor_the_pile():
    deal = pot.seeded_deal(9, 3)
    hands = [list(hand) for hand in deal.hands]
    pile = list(deal.draw_pile)
    card = next(card for card in pile if card not in hands[1])
    hands[1][0], pile[pile.index(card)] = card, hands[1][0]
    pile.reverse()
    first = pot.Game(3, deal=deal)
    second = pot.Game(3, deal=(hands, deal.pot, pile))
    assert first.view(0) == second.view(0)
    assert first.hand(1) != second.hand(1)
    for seed in (1, 2):
        assert first.search(seed, playouts=150) == second.search(seed, playouts=150)


def test_a_pot_search_mid_game_reads_not_the_piles_order():
    deal = pot.seeded_deal(4, 2)
    first = pot.Game(2, deal=deal)
    played = []
    for _ in range(9):
        move = first.choose("greedy")
        played.append((first.turn, move.card, move.close))
        first.play(first.turn, move.card, move.close)
    drawn = len(deal.draw_pile) - first.draw_pile
    pile = list(deal.draw_pile[:drawn]) + list(reversed(deal.draw_pile[drawn:]))
    second = pot.Game(2, deal=(deal.hands, deal.pot, pile))
    for move in played:
        second.play(*move)
    seat = first.turn
    assert first.view(seat) == second.view(seat)
    assert first.draw_order() != second.draw_order()
    assert first.search(3, playouts=150) == second.search(3, playouts=150)


# ---- budgets --------------------------------------------------------------------------------

BAD_PLAYOUTS = [0, -1, PLAYOUT_BOUNDS[1] + 1, 1.5, True, "100"]
BAD_MILLISECONDS = [0, -5, MILLISECOND_BOUNDS[1] + 1, 2.0, False, "10"]


@pytest.mark.parametrize("rules", GAMES, ids=["poison", "pot"])
def test_bad_budgets_are_refused_in_words_and_change_nothing(rules):
    game = poison_after(3) if rules is engine else pot_after(3)
    before = game.view(game.turn)
    for playouts in BAD_PLAYOUTS:
        with pytest.raises(InvalidArgument, match="playouts must be a whole number") as refused:
            game.search(playouts=playouts)
        assert refused.value.code == "invalid_budget"
        with pytest.raises(InvalidArgument, match="playouts must be"):
            game.choose("mcts", playouts=playouts)
    for milliseconds in BAD_MILLISECONDS:
        with pytest.raises(InvalidArgument, match="milliseconds must be a whole number"):
            game.search(milliseconds=milliseconds)
    with pytest.raises(InvalidArgument, match="'greedy' takes none"):
        game.choose("greedy", playouts=10)
    assert game.view(game.turn) == before


@pytest.mark.parametrize("rules", GAMES, ids=["poison", "pot"])
def test_simulate_refuses_bad_playouts(rules):
    players = 4 if rules is engine else 2
    bots = [SEARCH_BOT] + ["greedy"] * (players - 1)
    for playouts in (0, [5] * (players + 1), "5", [None] * (players - 1) + [0]):
        with pytest.raises(InvalidArgument) as refused:
            rules.simulate(players, 1, bots=bots, playouts=playouts)
        assert refused.value.code == "invalid_budget"


def test_a_search_over_time_stops_at_its_milliseconds():
    game = poison_after(0)
    started = time.thread_time()  # this thread's CPU time, the search's: a busy machine does not stretch it
    searched = game.search(playouts=PLAYOUT_BOUNDS[1], milliseconds=40)
    # 40 ms of the clock give at most 40 ms of CPU; every playout would take over a second.
    assert time.thread_time() - started < 0.3
    assert 0 < searched.playouts < PLAYOUT_BOUNDS[1]


def searching_for_a_while(thread: threading.Thread) -> bool:
    """Whether `thread` has spent 20 ms of CPU (it is searching, past its start), or ended."""
    try:
        return not thread.is_alive() or cpu_seconds(os.getpid(), thread.native_id) >= 0.02
    except ProcessLookupError:  # it has just ended
        return True


def test_the_search_runs_without_the_gil():
    game = poison_after(2)
    searching = threading.Thread(target=game.search, kwargs={"playouts": PLAYOUT_BOUNDS[1], "milliseconds": 300})
    counted = 0
    searching.start()
    until(lambda: searching_for_a_while(searching), what="the search under way")  # a search holding the GIL ends first
    while searching.is_alive():
        counted += 1
    searching.join()
    # Holding the GIL, the search would leave this thread a few switch intervals at most.
    assert counted > 10_000


@pytest.mark.parametrize("rules", GAMES, ids=["poison", "pot"])
def test_a_search_answers_for_the_position_searched_while_another_thread_plays_on(rules):
    # The search runs without the GIL on its copy of the view; the game itself may move on
    # meanwhile (a service thread searching, a request playing), and the answer must still
    # be about the position that was searched, never the game as it stands afterwards.
    game = poison_after(2) if rules is engine else pot_after(2)
    before = game.legal_moves()
    answer: list = []
    searching = threading.Thread(
        target=lambda: answer.append(game.search(5, playouts=PLAYOUT_BOUNDS[1], milliseconds=1000))
    )
    searching.start()
    until(lambda: searching_for_a_while(searching), what="the search under way")
    move = game.choose("greedy")
    game.play(game.turn, *move)
    assert searching.is_alive(), "the game moved on while the search ran"
    searching.join()
    searched = answer[0]
    assert game.legal_moves() != before
    assert searched.moves == before
    assert searched.move in before
    assert sum(searched.visits) == searched.playouts


# ---- in simulate, and where it is offered ---------------------------------------------------


def test_simulate_with_searching_seats_gives_the_same_figures_on_one_and_two_threads():
    bots = ["mcts", "greedy", "random", "greedy"]
    runs = [engine.simulate(4, 4, seed=3, rounds=1, bots=bots, playouts=10, threads=t) for t in (1, 2)]
    assert runs[0] == runs[1]
    assert runs[0].games == 4
    pot_runs = [pot.simulate(2, 6, seed=3, bots=["mcts", "greedy"], playouts=[10, None], threads=t) for t in (1, 2)]
    assert pot_runs[0] == pot_runs[1]


#: A simulation whose search trees cannot be allocated: the address space capped a few MB
#: above what the process holds, then every mcts decision asks for 6 MB.
SHORT_OF_MEMORY = """
import resource, sys
from core.poison import engine
from core.pot import engine as pot
rules, players, options = (pot, 2, {}) if sys.argv[1] == "pot" else (engine, 4, {"rounds": 1})
bots = ["mcts"] + ["greedy"] * (players - 1)
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) for line in status if line.startswith("VmSize")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 3_000_000, resource.RLIM_INFINITY))
try:
    print(rules.simulate(players, 2, seed=1, bots=bots, playouts=200_000, **options))
except MemoryError as error:
    print("MemoryError:", error)
"""


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_simulate_short_of_memory_for_a_search_says_so_rather_than_tally_unplayed_games(ruleset):
    # The searching loop stopped a game at a tree it could not allocate, and the game was
    # tallied as played: every seat won every game with a total of 0.
    ran = subprocess.run(
        [sys.executable, "-c", SHORT_OF_MEMORY, ruleset], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.stdout.strip() == "MemoryError: no memory for a search tree: the games could not be played out"


def test_the_engines_play_mcts_but_the_service_is_not_offered_it_yet():
    for ruleset in RULESETS.values():
        assert SEARCH_BOT in ruleset.engine.ENGINE_BOTS
        assert SEARCH_BOT not in ruleset.bots
        assert ruleset.engine.ENGINE_BOTS[: len(ruleset.bots)] == ruleset.bots


@pytest.mark.parametrize("rules", [reference, pot_reference], ids=["poison", "pot"])
def test_the_references_refuse_mcts_saying_the_engine_plays_it(rules):
    game = rules.Game(4, seed=1) if rules is reference else rules.Game(2, seed=1)
    with pytest.raises(InvalidArgument, match="compiled engine only"):
        game.choose(SEARCH_BOT)


@pytest.mark.parametrize("timed", ["0", "-3"])
def test_the_bars_command_refuses_no_timed_games_in_one_line(timed, capsys):
    # Zero timed games left the median of no decisions to raise a StatisticsError traceback.
    with pytest.raises(SystemExit) as stopped:
        mcts_bars.main(["--games", "1", "--timed-games", timed])
    assert stopped.value.code == 2
    assert f"--timed-games is 1 to 1,000, not {timed}" in capsys.readouterr().err
