"""The golden playthroughs: both implementations reproduce every file byte for byte."""

import pytest

from tests.core.playthrough import GAMES, HERE, file_name, render


@pytest.mark.parametrize("spec", GAMES, ids=[file_name(*spec) for spec in GAMES])
def test_each_golden_game_is_played_exactly_as_recorded(rules, spec):
    recorded = (HERE / file_name(*spec)).read_text()
    assert render(rules, *spec) == recorded


def test_every_file_in_the_playthrough_folder_is_a_game_that_is_checked():
    assert sorted(path.name for path in HERE.glob("*.txt")) == sorted(file_name(*spec) for spec in GAMES)
