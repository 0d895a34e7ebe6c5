"""The golden playthroughs: both implementations reproduce every file byte for byte, a
mismatch names its first differing line, and the generator never overwrites a changed file
silently."""

import pytest

from tests.core.golden import first_difference
from tests.core.playthrough import GAMES, HERE, file_name, main, render


@pytest.mark.parametrize("spec", GAMES, ids=[file_name(*spec) for spec in GAMES])
def test_each_golden_game_is_played_exactly_as_recorded(rules, spec):
    recorded = (HERE / file_name(*spec)).read_text()
    difference = first_difference(recorded, render(rules, *spec))
    assert difference is None, f"{file_name(*spec)} differs at {difference}"


def test_every_file_in_the_playthrough_folder_is_a_game_that_is_checked():
    assert sorted(path.name for path in HERE.glob("*.txt")) == sorted(file_name(*spec) for spec in GAMES)


def test_the_golden_games_cover_three_to_six_players_both_cauldron_rules_and_overflows():
    assert {spec[0] for spec in GAMES} == {3, 4, 5, 6}
    assert {spec[2] for spec in GAMES} == {"dynamic", "fixed"}
    text = "".join((HERE / file_name(*spec)).read_text() for spec in GAMES)
    for event in ("overflow: seat", "set aside:", "discards red", "scored:", "winners:"):
        assert event in text


def test_the_generator_refuses_to_overwrite_a_file_that_differs_unless_accepted(tmp_path, capsys):
    assert main(["--dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("wrote ") == len(GAMES)
    path = tmp_path / file_name(*GAMES[0])
    good = path.read_text()
    lines = good.splitlines(keepends=True)
    lines[6] = "  hand 2: R1\n"
    path.write_text("".join(lines))
    assert main(["--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"REFUSED {path} differs at line 7:" in out
    assert "'  hand 2: R1\\n'" in out
    assert out.count("unchanged ") == len(GAMES) - 1
    assert path.read_text() != good  # refused: the changed file is left as it was
    assert main(["--dir", str(tmp_path), "--accept"]) == 0
    assert path.read_text() == good
    assert main(["--dir", str(tmp_path)]) == 0


def test_the_first_difference_names_the_line():
    assert first_difference("a\nb\nc\n", "a\nb\nc\n") is None
    assert first_difference("a\nb\nc\n", "a\nx\nc\n") == "line 2: recorded 'b\\n', now 'x\\n'"
    assert first_difference("a\nb\n", "a\nb\nc\n") == "line 3: one rendering ends there (2 recorded lines, 3 now)"
    assert first_difference("a\nb\n", "a\nb") == "line 2: recorded 'b\\n', now 'b'"
