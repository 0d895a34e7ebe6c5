"""The golden playthroughs of every game: both implementations reproduce every file byte for
byte, a mismatch names its first differing line, and the generator never overwrites a
changed file silently."""

import pytest

from tests.core import playthrough
from tests.core.golden import Playthroughs, first_difference
from tests.core.pot import playthrough as pot_playthrough

GOLDEN = [playthrough.PLAYTHROUGHS, pot_playthrough.PLAYTHROUGHS]
EVERY_GAME = pytest.mark.parametrize("golden", GOLDEN, ids=[golden.ruleset.name for golden in GOLDEN])


@pytest.mark.parametrize(
    ("golden", "side", "spec"),
    [
        pytest.param(golden, side, spec, id=f"{golden.ruleset.name}-{side}-{golden.name(spec)}")
        for golden in GOLDEN
        for side in ("engine", "reference")
        for spec in golden.games
    ],
)
def test_each_golden_game_is_played_exactly_as_recorded(golden: Playthroughs, side: str, spec):
    recorded = (golden.folder / golden.name(spec)).read_text()
    difference = first_difference(recorded, golden.render(getattr(golden.ruleset, side), *spec))
    assert difference is None, f"{golden.name(spec)} differs at {difference}"


@EVERY_GAME
def test_every_file_in_the_playthrough_folder_is_a_game_that_is_checked(golden: Playthroughs):
    assert sorted(path.name for path in golden.folder.glob("*.txt")) == sorted(map(golden.name, golden.games))


def test_the_golden_games_of_poison_cover_three_to_six_players_both_cauldron_rules_and_overflows():
    games = playthrough.GAMES
    assert {spec[0] for spec in games} == {3, 4, 5, 6}
    assert {spec[2] for spec in games} == {"dynamic", "fixed"}
    text = "".join((playthrough.HERE / playthrough.file_name(*spec)).read_text() for spec in games)
    for event in ("overflow: seat", "set aside:", "discards red", "scored:", "winners:"):
        assert event in text


def test_the_golden_games_of_the_pot_game_cover_two_and_six_players_close_explode_and_end_with_a_last_pot():
    games = pot_playthrough.GAMES
    assert {spec[0] for spec in games} >= {2, 6}
    text = "".join((pot_playthrough.HERE / pot_playthrough.file_name(*spec)).read_text() for spec in games)
    for event in ("closed by seat", "exploded by seat", "last pot closed", "(endgame)", "new pot:"):
        assert event in text


@EVERY_GAME
def test_the_generator_refuses_to_overwrite_a_file_that_differs_unless_accepted(golden: Playthroughs, tmp_path, capsys):
    folder = ["--dir", str(tmp_path)]
    assert golden.main(folder) == 0
    assert capsys.readouterr().out.count("wrote ") == len(golden.games)
    path = tmp_path / golden.name(golden.games[0])
    good = path.read_text()
    lines = good.splitlines(keepends=True)
    lines[6] = "a line the rules never wrote\n"
    path.write_text("".join(lines))
    assert golden.main(folder) == 1
    out = capsys.readouterr().out
    assert f"REFUSED {path} differs at line 7:" in out
    assert "recorded 'a line the rules never wrote\\n'" in out
    assert out.count("unchanged ") == len(golden.games) - 1
    assert path.read_text() != good  # refused: the changed file is left as it was
    assert golden.main([*folder, "--accept"]) == 0
    assert path.read_text() == good
    assert golden.main(folder) == 0


def test_the_first_difference_names_the_line():
    assert first_difference("a\nb\nc\n", "a\nb\nc\n") is None
    assert first_difference("a\nb\nc\n", "a\nx\nc\n") == "line 2: recorded 'b\\n', now 'x\\n'"
    assert first_difference("a\nb\n", "a\nb\nc\n") == "line 3: one rendering ends there (2 recorded lines, 3 now)"
    assert first_difference("a\nb\n", "a\nb") == "line 2: recorded 'b\\n', now 'b'"
