"""`poison simulate` as a person reads it: win rates that never round a lost game away,
the progress in a terminal with thousands separators, a header that echoes every option.
Run in this process (`service.cli.main`), but for the terminal's progress and the lack of
memory, which need a process of their own."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from core.rulesets import RULESETS
from service.commands.simulate import percent
from tests.service.command import Terminal, poison_here


def table_rows(stdout: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")]


@pytest.mark.parametrize(
    ("part", "whole", "shown"),
    [
        (399_887, 400_000, "99.97%"),  # the issue's: it was 100.0%
        (8, 400_000, "0.002%"),  # and 0.0%
        (3_998, 4_000, "99.95%"),
        (2, 4_000, "0.05%"),
        (999_999_999, 1_000_000_000, "99.9999999%"),
        (1, 1_000_000_000, "0.0000001%"),
        (400_000, 400_000, "100.0%"),
        (0, 400_000, "0.0%"),
        (1, 3, "33.3%"),
        (2, 3, "66.7%"),
        (1, 8, "12.5%"),
    ],
)
def test_a_win_rate_has_one_decimal_or_as_many_as_keep_it_off_0_and_100(part, whole, shown):
    assert percent(part, whole) == shown


def test_no_seat_that_lost_a_game_is_shown_winning_all_of_them():
    args = ("simulate", "--games", "4000", "--bots", "greedy,random,random,random", "--seed", "3")
    report = json.loads(poison_here(*args, "--json").stdout)
    wins = [seat["wins"] for seat in report["seats"]]
    # The case this test is about: one decimal would round these to 100.0% and 0.0%.
    assert any(3_996 <= won < 4_000 for won in wins), wins
    assert any(0 < won <= 4 for won in wins), wins
    table = poison_here(*args)
    assert table.returncode == 0, table.stderr
    rates = [row[3] for row in table_rows(table.stdout) if row[0].isdigit()]
    assert rates == [percent(won, 4_000) for won in wins]
    assert all(rate not in {"100.0%", "0.0%"} for rate, won in zip(rates, wins, strict=True) if 0 < won < 4_000)


@pytest.mark.subprocess
def test_the_progress_in_a_terminal_counts_games_with_thousands_separators():
    with Terminal("simulate", "--ruleset", "pot", "--players", "2", "--games", "60000") as terminal:
        assert terminal.wait() == 0
    text = terminal.output.decode()
    assert "60,000 of 60,000 games" in text  # the bar's last state, drawn as it is put away
    assert not re.search(r"\d{4,} of", text)
    screen = "\n".join(line.rstrip() for line in terminal.screen().display)
    assert screen.lstrip().startswith("60,000 games, ruleset pot, 2 players, seed 0\n")
    assert "simulating" not in screen


@pytest.mark.parametrize(
    ("args", "header"),
    [
        (
            ["--players", "3", "--rounds", "2", "--cauldrons", "fixed", "--seed", "12345678901"],
            "1,000 games, ruleset poison, 3 players, seed 12345678901, rounds 2, cauldrons fixed",
        ),
        (["--players", "5"], "1,000 games, ruleset poison, 5 players, seed 0, rounds default, cauldrons dynamic"),
        (["--ruleset", "pot", "--players", "2"], "1,000 games, ruleset pot, 2 players, seed 0"),
    ],
)
def test_the_header_echoes_every_option(args, header):
    result = poison_here("simulate", "--games", "1000", *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == header


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_jobs_play_the_games_on_several_threads_with_the_same_figures(ruleset):
    # 45,000 games: more than one chunk of the command, so chunks and threads both split them.
    args = ("simulate", "--ruleset", ruleset, "--players", "4", "--games", "45000", "--seed", "9", "--json")
    alone, together = poison_here(*args), poison_here(*args, "--jobs", "3")
    assert alone.returncode == together.returncode == 0, together.stderr
    figures = [json.loads(run.stdout) for run in (alone, together)]
    for report in figures:
        del report["seconds"], report["games_per_s"]
    assert figures[0] == figures[1]
    assert figures[0]["games"] == 45_000


@pytest.mark.parametrize(("jobs", "said"), [("0", "--jobs is 1 to 64, not 0"), ("65", "--jobs is 1 to 64, not 65")])
def test_jobs_out_of_bounds_are_refused_in_words(jobs, said):
    refused = poison_here("simulate", "--games", "10", "--jobs", jobs)
    assert refused.returncode == 2
    assert said in refused.stderr
    assert refused.stdout == ""


def test_jobs_that_are_not_a_whole_number_are_refused_in_words():
    refused = poison_here("simulate", "--games", "10", "--jobs", "two")
    assert refused.returncode == 2
    assert "a whole number, not 'two'" in refused.stderr


def test_a_searching_seat_plays_at_its_strength_or_the_rulesets_default():
    args = ["simulate", "--ruleset", "pot", "--players", "3", "--games", "3", "--json"]
    result = poison_here(*args, "--bots", "mcts:15,mcts,greedy")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [seat["bot"] for seat in report["seats"]] == [
        "mcts:15",
        f"mcts:{RULESETS['pot'].default_playouts}",
        "greedy",
    ]
    assert sum(seat["wins"] for seat in report["seats"]) >= 3


#: poison simulate of search bots whose trees cannot be allocated: the address space capped a
#: few MB above what the process holds, and every decision at 200,000 playouts asks for more.
SIMULATE_SHORT_OF_MEMORY = """
import resource, sys
from service import i18n
from service.cli import main
i18n.words().number(1)  # its language loaded, as a command has it long before a search runs short
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) for line in status if line.startswith("VmSize")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 3_000_000, resource.RLIM_INFINITY))
sys.exit(main(["simulate", "--players", "2", "--ruleset", "pot", "--games", "2", "--bots", "mcts:200000,greedy"]))
"""


@pytest.mark.subprocess
def test_simulate_short_of_memory_for_a_search_says_so_in_one_line() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", SIMULATE_SHORT_OF_MEMORY], capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.splitlines() == [
        "poison simulate: out of memory: no memory for a search tree: the games could not be played out"
    ]
