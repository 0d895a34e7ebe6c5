"""`poison ladder`: a round robin of bots with rotated seats, win shares with 95% intervals,
ratings, a progress bar in a terminal, --json, and bad input refused in one line.

The search bot plays at a tiny strength (mcts:20) here: these tests check the command,
not the bot's strength (benchmarks/mcts_bars.py does). The command runs in this process
(`service.cli.main`), but for the terminal's test: a process of its own takes seconds to
start on a loaded machine."""

from __future__ import annotations

import json

import pytest

from service.commands.standings import ELO_MEAN, wilson
from tests.service.command import Terminal, assert_one_line_refusal, poison_here

LADDER = ("ladder", "--bots", "random,greedy,mcts:20", "--games", "6", "--seed", "4")


def ladder(*args: str) -> tuple[int, str, str]:
    result = poison_here("ladder", *args)
    return result.returncode, result.stdout, result.stderr


@pytest.fixture(scope="module")
def report() -> dict:
    code, out, err = ladder(*LADDER[1:], "--json")  # once for the module's tests
    assert code == 0, err
    return json.loads(out)


def test_every_pair_of_bots_plays_one_match(report):
    pairs = {(match["a"], match["b"]) for match in report["matches"]}
    assert pairs == {("random", "greedy"), ("random", "mcts:20"), ("greedy", "mcts:20")}
    assert report["games_per_match"] == 6
    for match in report["matches"]:
        assert match["games"] == 6
        # Every game has a winner; a shared win counts for both bots.
        assert match["a_wins"] + match["b_wins"] >= 6
        assert match["a_share"] == match["a_wins"] / (match["a_wins"] + match["b_wins"])
        assert match["ci95"] == list(wilson(match["a_wins"], match["a_wins"] + match["b_wins"]))


def test_the_ladder_is_ordered_by_rating_and_each_share_lies_in_its_interval(report):
    ladder = report["ladder"]
    assert [row["bot"] for row in ladder][-1] == "random"
    ratings = [row["rating"] for row in ladder]
    assert ratings == sorted(ratings, reverse=True)
    assert sum(ratings) / len(ratings) == pytest.approx(ELO_MEAN)
    for row in ladder:
        low, high = row["ci95"]
        assert 0 <= low <= row["share"] <= high <= 1
        played = sum(m["a_wins"] + m["b_wins"] for m in report["matches"] if row["bot"] in (m["a"], m["b"]))
        assert row["wins"] + row["losses"] == played


def test_the_same_seed_plays_the_same_ladder_on_any_number_of_threads(report):
    code, out, err = ladder(*LADDER[1:], "--json", "--jobs", "2")
    assert code == 0, err
    figures = json.loads(out)
    assert figures["ladder"] == report["ladder"]
    assert figures["matches"] == report["matches"]


def test_the_table_heads_with_every_setting_and_rates_each_bot():
    code, out, err = ladder("--ruleset", "pot", "--players", "2", "--bots", "greedy,random", "--games", "200")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "ladder of 2 bots, ruleset pot, 2 players, 200 games a match, seed 0"
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert rows[0][:2] == ["1", "greedy"]
    assert rows[1][:2] == ["2", "random"]
    assert "ratings: Bradley-Terry" in out


@pytest.mark.subprocess
def test_the_progress_in_a_terminal_counts_the_games_of_every_match():
    with Terminal(
        "ladder", "--ruleset", "pot", "--players", "2", "--bots", "greedy,mcts:20", "--games", "10"
    ) as terminal:
        assert terminal.wait() == 0
    assert "10 of 10 games" in terminal.output.decode()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--bots", "greedy"], "--bots names 1 bots: a ladder has 2 to 8"),
        (["--bots", ",".join(["greedy"] * 9)], "--bots names 9 bots"),
        (["--bots", "greedy,random,greedy"], "--bots names 'greedy' twice"),
        (["--bots", "mcts,mcts:1000"], "--bots names 'mcts:1000' twice"),
        (["--bots", "greedy,clever"], "unknown bot 'clever': choose from random, greedy, mcts"),
        (["--bots", "greedy,mcts:0"], "'mcts:0': mcts:N searches N playouts a move, 1 to 200,000"),
        (["--bots", "greedy:3,random"], "'greedy:3': only mcts takes a strength"),
        (["--games", "1"], "--games is 2 to 1,000,000 per match, not 1"),
        (["--games", "1000001"], "--games is 2 to 1,000,000 per match, not 1,000,001"),
        (["--jobs", "65"], "--jobs is 1 to 64, not 65"),
        (["--players", "7"], "--ruleset poison is played by 3 to 6 players, not 7"),
        (["--ruleset", "pot", "--rounds", "2"], "--rounds is not an option of --ruleset pot"),
    ],
)
def test_bad_input_is_refused_in_one_line(args, says):
    assert_one_line_refusal(poison_here("ladder", *args), "ladder", says)


def test_the_ladder_help_says_95_percent_once() -> None:
    # argparse does not %-format a description: a '%%' there is printed as it is.
    helped = poison_here("ladder", "--help")
    assert helped.returncode == 0
    text = " ".join(helped.stdout.split())
    assert "95% confidence interval" in text
    assert "%%" not in text
