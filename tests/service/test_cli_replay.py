"""`poison replay` takes a log as `POST /v1/replays` does (NDJSON or JSON `{"events": [...]}`),
from a file or from standard input, and shows every name as it was written, of both games.
Run in this process (`service.cli.main`), but with worker processes (--jobs above 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.codec import Player, encode_public, to_public
from events.play import LoggedGame, create_game, play_move
from tests.service.command import poison
from tests.service.command import poison_read as poison_here

#: Names the API accepts that a terminal or rich would otherwise read: markup, a closing tag
#: alone, an emoji code, a trailing backslash, an escape sequence, a line break, a
#: right-to-left override.
HOSTILE = ("[/]", "[bold]eve", ":smile:", "zed\\", "a\x1b[31mred", "two\nlines", "\u202etxet")
#: How each is shown: exactly as written, the characters a terminal would obey written out.
SHOWN = ("[/]", "[bold]eve", ":smile:", "zed\\", "a\\x1b[31mred", "two\\nlines", "\\u202etxet")


def finished_game(ruleset: str, names: tuple[str, ...], bots: tuple[str | None, ...], game_id: str, **options):
    players = tuple(Player(seat=s, name=n, bot=b) for s, (n, b) in enumerate(zip(names, bots, strict=True)))
    log, logged = create_game(ruleset, game_id, players, seed=5, options=options)
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, logged.game.legal_moves()[0])
        log += caused
    return log, logged


def ndjson(log: list) -> bytes:
    return b"".join(encode_public(to_public(version, event)) + b"\n" for version, event in enumerate(log, 1))


def table_rows(stdout: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")]


@pytest.fixture(scope="module")
def hostile_poison(tmp_path_factory) -> tuple[Path, LoggedGame]:
    names = (HOSTILE[0], "ada", *HOSTILE[2:4])
    log, logged = finished_game("poison", names, (None, "greedy", "random", None), "g[/]\x1b[2J", rounds=1)
    path = tmp_path_factory.mktemp("hostile") / "poison.ndjson"
    path.write_bytes(ndjson(log))
    return path, logged


def test_replay_shows_every_name_of_a_poison_game_exactly_as_written(hostile_poison):
    path, logged = hostile_poison
    result = poison_here("replay", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b" not in out
    shown = ["[/]", "ada [greedy]", ":smile: [random]", "zed\\"]
    assert out.startswith("game g[/]\\x1b[2J: 4 players, 1 ")
    totals = {row[1]: row[2] for row in table_rows(out) if row[0] in {"total", ""} and not row[3]}
    assert totals == {str(seat): name for seat, name in enumerate(shown)}
    winners = ", ".join(shown[seat] for seat in logged.game.winners)
    assert f"won by {winners}\n" in out


def test_replay_shows_control_characters_in_names_written_out_never_obeyed(tmp_path):
    names = HOSTILE[4:]
    log, logged = finished_game("pot", names, (None, None, None), "pot-g")
    path = tmp_path / "pot.ndjson"
    path.write_bytes(ndjson(log))
    result = poison_here("replay", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for control in ("\x1b", "\u202e"):
        assert control not in out
    totals = [row for row in table_rows(out) if not row[0].isdigit()]
    assert [row[2] for row in totals] == list(SHOWN[4:])
    winners = ", ".join(SHOWN[4 + seat] for seat in logged.game.winners)
    assert f"won by {winners}\n" in out


def test_replay_of_the_json_form_and_of_standard_input_equals_the_ndjson_file(hostile_poison, tmp_path):
    path, _ = hostile_poison
    from_file = poison_here("replay", str(path))
    assert from_file.returncode == 0, from_file.stderr
    wrapped = json.dumps({"events": [json.loads(line) for line in path.read_bytes().splitlines()]}).encode()
    as_json = tmp_path / "game.json"
    as_json.write_bytes(wrapped)
    for result in (
        poison_here("replay", str(as_json)),
        poison_here("replay", "-", stdin=path.read_bytes()),
        poison_here("replay", "-", stdin=b"  \n" + wrapped),
        poison_here("replay", "-", "--version", "12", stdin=wrapped),
    ):
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
    outputs = [poison_here("replay", str(as_json)).stdout, poison_here("replay", "-", stdin=path.read_bytes()).stdout]
    assert outputs == [from_file.stdout, from_file.stdout]
    partial = poison_here("replay", "-", "--version", "12", stdin=wrapped)
    assert partial.stdout == poison_here("replay", str(path), "--version", "12").stdout
    assert "valid up to event 12" in partial.stdout


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (b'{"events": 3}', 'invalid log: standard input is JSON but not a log {"events": [...]}: '),
        (b'{"events": [{"version": 1}]}', "invalid log: event 1: entry 1 is not an event: "),
        (b"", "invalid log: event 1: the log is empty"),
        (b"not json at all\n", "invalid log: event 1: line 1 is not an event: "),
    ],
)
def test_replay_of_standard_input_that_is_no_log_says_why_in_one_line(given, says):
    result = poison_here("replay", "-", stdin=given)
    assert result.returncode == 1
    assert result.stdout == ""
    error = result.stderr
    assert error.startswith(f"poison replay: {says}")
    assert len(error.splitlines()) == 1
    assert "Traceback" not in error


def test_replay_of_a_missing_stored_game_names_it_visibly(redis_url, namespace):
    result = poison_here("replay", "--game", "no\x1bsuch", "--redis-url", redis_url)
    assert result.returncode == 1
    assert result.stderr == "poison replay: no game 'no\\x1bsuch' in the store\n"


def test_replay_refuses_a_url_of_no_known_scheme_in_one_line():
    result = poison_here("replay", "--game", "g1", "--redis-url", "http://127.0.0.1:6379")
    assert result.returncode == 2
    error = result.stderr
    assert error.startswith("poison replay: ")
    assert "redis://" in error
    assert len(error.splitlines()) == 1


def test_replay_of_a_stored_game_in_a_store_that_is_not_there_creates_none(tmp_path):
    absent = tmp_path / "no-store-here"
    result = poison_here("replay", "--game", "g1", "--data-dir", str(absent))
    assert result.returncode == 1
    assert result.stderr == (
        f"poison replay: no store in {absent}: name the one holding the game with --data-dir or --redis-url\n"
    )
    assert not absent.exists()


@pytest.fixture(scope="module")
def log_directory(tmp_path_factory) -> Path:
    """Five logs: three valid (both games), one with an event twice, one not a log at all."""
    folder = tmp_path_factory.mktemp("logs")
    for number, ruleset in enumerate(("poison", "pot", "poison")):
        log, _ = finished_game(
            ruleset,
            ("ann", "bob", "cy"),
            (None, None, None),
            f"g{number}",
            **({} if ruleset == "pot" else {"rounds": 1}),
        )
        (folder / f"{number}-{ruleset}.ndjson").write_bytes(ndjson(log))
    log, _ = finished_game("poison", ("ann", "bob", "cy"), (None, None, None), "bad", rounds=1)
    lines = ndjson(log).splitlines(keepends=True)
    (folder / "3-repeated.ndjson").write_bytes(b"".join([*lines[:4], lines[3], *lines[4:]]))  # an event twice
    (folder / "4-nothing.json").write_bytes(b'{"no": "events"}')
    (folder / "notes.txt").write_bytes(b"not a log, and not named like one")
    return folder


def verdict_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if ": valid" in line or ": invalid" in line]


#: --jobs above 1 checks logs in worker processes, forked from the process that runs the
#: command: in a process of its own, never forked from the test runner (its threads).
IN_WORKERS = pytest.mark.subprocess


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=IN_WORKERS)])
def test_replay_of_a_directory_checks_every_log_in_it_one_line_each(log_directory, jobs):
    result = (poison_here if jobs == "1" else poison)("replay", str(log_directory), "--jobs", jobs)
    assert result.returncode == 1, result.stderr  # two of the five are invalid
    lines = verdict_lines(result.stdout)
    assert [line.split(": ")[0] for line in lines] == [
        str(log_directory / name)
        for name in ("0-poison.ndjson", "1-pot.ndjson", "2-poison.ndjson", "3-repeated.ndjson", "4-nothing.json")
    ]
    assert [line.split(": ")[1] for line in lines] == ["valid"] * 3 + ["invalid"] * 2
    assert lines[3].startswith(f"{log_directory / '3-repeated.ndjson'}: invalid: event ")
    not_an_event = "event 1: line 1 is not an event: no is not a field: it has only version, type and data"
    assert lines[4] == f"{log_directory / '4-nothing.json'}: invalid: {not_an_event}"
    assert "3 of 5 logs valid" in result.stdout


@IN_WORKERS
def test_replay_of_several_valid_files_exits_0_and_names_each(log_directory):
    files = [str(log_directory / name) for name in ("2-poison.ndjson", "1-pot.ndjson")]
    result = poison("replay", *files, "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert verdict_lines(result.stdout) == [f"{files[0]}: valid", f"{files[1]}: valid"]


def test_replay_of_several_logs_with_one_missing_names_it_invalid_and_checks_the_rest(log_directory, tmp_path):
    missing = str(tmp_path / "gone.ndjson")
    result = poison_here("replay", str(log_directory / "0-poison.ndjson"), missing)
    assert result.returncode == 1
    lines = verdict_lines(result.stdout)
    assert lines[0].endswith(": valid")
    assert lines[1].startswith(f"{missing}: invalid: cannot read")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--jobs", "0"), "--jobs is 1 to 64, not 0"),
        (("-", "--jobs", "2"), "standard input (-) is one log"),
        (("--version", "3"), "--version stops one log"),
    ],
)
def test_replay_of_several_logs_refuses_what_only_one_log_can_take(log_directory, args, said):
    result = poison_here("replay", str(log_directory), *args)
    assert result.returncode == 2
    assert said in result.stderr
    assert result.stdout == ""


def test_replay_of_a_directory_without_logs_says_so(tmp_path):
    (tmp_path / "notes.txt").write_text("no log here")
    result = poison_here("replay", str(tmp_path))
    assert result.returncode == 1
    assert f"no logs (*.ndjson, *.json) in {tmp_path}" in result.stderr


@pytest.mark.parametrize("ruleset", ["poison", "pot"])
def test_replay_of_a_game_whose_seat_was_left_open_names_the_seat_as_joined(tmp_path: Path, ruleset: str) -> None:
    # An open seat's game_created entry has no name; the name the table shows is the one
    # its seat_joined gave (this once crashed the command with a traceback).
    from events.play import join, rematch_created

    options = {"rounds": 1} if ruleset == "poison" else {}
    players = (Player(seat=0, name="ann"), Player(seat=1, name=None), Player(seat=2, name="cy", bot="greedy"))
    log, logged = create_game(ruleset, "lobby", players, seed=8, options=options)
    caused, logged = join(logged, 1, "late bob")
    log += caused
    while not logged.finished:
        caused, logged = play_move(logged, logged.game.turn, logged.game.legal_moves()[0])
        log += caused
    caused, logged = rematch_created(logged, "next")
    log += caused
    path = tmp_path / "lobby.ndjson"
    path.write_bytes(ndjson(log))
    result = poison_here("replay", str(path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name in ("late bob", "ann", "cy [greedy]"):
        assert name in out
    assert "(open)" not in out
    assert f"valid up to event {len(log)}" in out
