"""The pot game's golden playthroughs: both implementations reproduce every file byte for byte,
and the generator never overwrites a changed file silently."""

import pytest

from tests.core.golden import first_difference
from tests.core.pot.playthrough import GAMES, HERE, file_name, main, render


@pytest.mark.parametrize("spec", GAMES, ids=[file_name(*spec) for spec in GAMES])
def test_each_golden_game_is_played_exactly_as_recorded(pot, spec):
    recorded = (HERE / file_name(*spec)).read_text()
    difference = first_difference(recorded, render(pot, *spec))
    assert difference is None, f"{file_name(*spec)} differs at {difference}"


def test_every_file_in_the_playthrough_folder_is_a_game_that_is_checked():
    assert sorted(path.name for path in HERE.glob("*.txt")) == sorted(file_name(*spec) for spec in GAMES)
    assert {spec[0] for spec in GAMES} >= {2, 6}


def test_the_golden_games_close_explode_and_end_with_a_last_pot():
    text = "".join((HERE / file_name(*spec)).read_text() for spec in GAMES)
    for event in ("closed by seat", "exploded by seat", "last pot closed", "(endgame)", "new pot:"):
        assert event in text


def test_the_generator_refuses_to_overwrite_a_file_that_differs_unless_accepted(tmp_path, capsys):
    assert main(["--dir", str(tmp_path)]) == 0
    path = tmp_path / file_name(*GAMES[0])
    good = path.read_text()
    lines = good.splitlines(keepends=True)
    lines[5] = "move 1: seat 0 plays T9\n"
    path.write_text("".join(lines))
    assert main(["--dir", str(tmp_path)]) == 1
    assert "line 6" in capsys.readouterr().out
    assert path.read_text() != good
    assert main(["--dir", str(tmp_path), "--accept"]) == 0
    assert path.read_text() == good
    assert main(["--dir", str(tmp_path)]) == 0


def test_the_first_difference_names_the_line():
    assert first_difference("a\nb\nc\n", "a\nb\nc\n") is None
    assert first_difference("a\nb\nc\n", "a\nx\nc\n") == "line 2: recorded 'b\\n', now 'x\\n'"
    assert first_difference("a\nb\n", "a\nb\nc\n") == "line 3: one rendering ends there (2 recorded lines, 3 now)"
