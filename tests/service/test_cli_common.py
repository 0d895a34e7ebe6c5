"""What every `poison` command shares: `--version`, a subcommand's mistakes shown with its
own usage and in words (in this process: `service.cli.main`); and what only a process of its
own shows: the exit status a shell sees, Ctrl-C in a real terminal (a pseudo-terminal read
through a terminal emulator, pyte), output cut short by its reader."""

from __future__ import annotations

import signal
import subprocess
import sys
from importlib.metadata import version

import pytest

from tests.service.command import Terminal, assert_one_line_refusal, poison, poison_here, shown_lines

#: Each command, with what it needs besides flags.
COMMANDS = {"serve": [], "replay": ["game.ndjson"], "archive": [], "simulate": [], "ladder": [], "play": []}


def test_version_is_the_installed_package_version():
    result = poison_here("--version")
    assert result.returncode == 0
    assert result.stdout == f"poison {version('poison')}\n"
    assert "--version" in poison_here("--help").stdout


@pytest.mark.subprocess
def test_a_shell_sees_exit_status_2_for_a_refusal_and_for_a_usage_error():
    # In this process, main() returns a refusal's status and argparse raises SystemExit:
    # here, both as the exit status of a process of its own.
    assert_one_line_refusal(poison("simulate", "--games", "0"), "simulate", "--games is 1 to 1,000,000,000, not 0")
    usage = poison("simulate", "--bad-flag")
    assert usage.returncode == 2
    assert usage.stderr.endswith("poison simulate: error: unrecognized arguments: --bad-flag\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_flag_shows_the_usage_of_the_command_it_was_given_to(command):
    result = poison_here(command, *COMMANDS[command], "--bad-flag")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"usage: poison {command} [-h]")
    assert result.stderr.endswith(f"poison {command}: error: unrecognized arguments: --bad-flag\n")


def test_an_unknown_flag_before_the_command_is_the_top_level_s_mistake():
    result = poison_here("--bad-flag", "simulate")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: poison [-h] [--version] COMMAND")
    assert result.stderr.endswith("poison: error: unrecognized arguments: --bad-flag\n")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["simulate", "--games", "many"], "argument --games: a whole number, not 'many'"),
        (["simulate", "--players", "4.5"], "argument --players: a whole number, not '4.5'"),
        (["simulate", "--rounds", "two"], "argument --rounds: a whole number, not 'two'"),
        (["simulate", "--games", "0"], "--games is 1 to 1,000,000,000, not 0"),
        (["simulate", "--seed", "x1"], "a seed is a whole number from 0 to "),
        (["play", "--seed", "-3"], "a seed is a whole number from 0 to "),
        (["simulate", "--bots", "[/]"], "unknown bot '[/]': choose from "),
    ],
)
def test_bad_values_are_refused_in_words_without_python_terms(args, says):
    result = poison_here(*args)
    assert result.returncode == 2
    assert says in result.stderr
    assert len(result.stderr.strip().splitlines()[-1]) > 0
    for python in ("invalid int value", "ValueError", "Traceback", "\\'"):
        assert python not in result.stderr


@pytest.mark.subprocess
def test_ctrl_c_in_simulate_puts_the_progress_bar_away_and_leaves_one_line():
    with Terminal("simulate", "--ruleset", "pot", "--players", "2", "--games", "1000000000") as terminal:
        terminal.read_until(b"simulating")  # the progress bar is up: the games are being played
        terminal.process.send_signal(signal.SIGINT)
        assert terminal.wait() == 130
    screen = terminal.screen()
    assert shown_lines(screen) == ["poison simulate: interrupted"]
    assert not screen.cursor.hidden  # the bar had hidden it: given back
    assert b"Traceback" not in terminal.output
    assert b"KeyboardInterrupt" not in terminal.output


@pytest.mark.subprocess
def test_output_cut_short_by_its_reader_ends_quietly():
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "simulate", "--games", "100", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader is gone before anything is written (`| head -0`)
    assert process.wait(60) == 1
    assert process.stderr.read() == b""
    process.stderr.close()
