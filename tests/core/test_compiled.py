"""The compiled core is what it claims to be: C rule functions, a typed face, a demo."""

import html as html_text
import re
import subprocess
import sys
from pathlib import Path

import pytest

import core
from core.poison import engine

ROOT = Path(__file__).resolve().parents[2]


# Every module of C functions: each game's rules and search table, and the search itself.
C_MODULES = (
    "core/poison/rules.pyx",
    "core/pot/rules.pyx",
    "core/poison/mcts.pyx",
    "core/pot/mcts.pyx",
    "core/search.pyx",
)


def annotation_scores(source: Path, folder: Path) -> list[tuple[int, int]]:
    """Cython's annotation of `source` (written in `folder`): each line's number and score,
    the score counting the line's Python interaction."""
    subprocess.run(
        [sys.executable, "-m", "cython", "-3", "-a", "-I", str(ROOT), str(source), "-o", str(folder / "out.c")],
        check=True,
        capture_output=True,
    )
    html = (folder / "out.html").read_text()
    lines = re.findall(r'<pre class="cython line score-(\d+)"[^>]*>(.*?)</pre>', html, re.S)
    return [
        (int(html_text.unescape(re.sub(r"<[^>]+>", "", text)).lstrip("+").split(":")[0]), int(score))
        for score, text in lines
    ]


@pytest.mark.parametrize("module", C_MODULES)
def test_the_c_functions_touch_no_python_object(tmp_path, module):
    # Only the module's first line (its initialisation) may score.
    source = ROOT / module
    numbered = annotation_scores(source, tmp_path)
    assert len(numbered) == len(source.read_text().splitlines())
    assert [n for n, score in numbered if score > 0] == [1]


def test_the_engine_is_an_extension_module_with_a_stub():
    assert Path(engine.__file__).suffix in {".so", ".pyd"}
    assert (ROOT / "core" / "poison" / "engine.pyi").exists()
    assert (ROOT / "core" / "poison" / "py.typed").exists()
    stubbed = set(re.findall(r"^(?:def|class) (\w+)", (ROOT / "core" / "poison" / "engine.pyi").read_text(), re.M))
    assert stubbed == {"Game", "derive_seed", "seeded_deal", "score_round", "replay", "simulate"}
    assert stubbed <= set(core.__all__)


def test_the_demo_prints_a_game_round_by_round():
    shown = subprocess.run(
        [sys.executable, "-m", "core", "--players", "5", "--seed", "9"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    game = engine.Game(5, seed=9)
    assert "5 players, 5 rounds" in shown.stdout
    assert sum(line[:5].strip().isdigit() for line in shown.stdout.splitlines()) == 5
    assert "winners: seat" in shown.stdout
    assert game.status == "active"


def test_the_demo_refuses_bad_options_on_stderr():
    shown = subprocess.run([sys.executable, "-m", "core", "--players", "7"], capture_output=True, text=True, cwd=ROOT)
    assert shown.returncode == 2
    assert "3 to 6 players" in shown.stderr
    assert shown.stdout == ""


def test_the_pot_engine_is_an_extension_module_with_a_stub():
    from core.pot import engine as pot_engine

    assert Path(pot_engine.__file__).suffix in {".so", ".pyd"}
    assert (ROOT / "core" / "pot" / "engine.pyi").exists()
    assert (ROOT / "core" / "pot" / "py.typed").exists()
    stubbed = set(re.findall(r"^(?:def|class) (\w+)", (ROOT / "core" / "pot" / "engine.pyi").read_text(), re.M))
    assert stubbed == {"Game", "seeded_deal", "replay", "simulate"}
    assert all(hasattr(pot_engine, name) for name in stubbed)


def test_the_pot_reference_declares_the_same_numbers_as_the_compiled_rules():
    from core.pot import engine as pot_engine
    from core.pot import reference as pot_reference

    names = ("CARD_CODES", "BOTS", "STATUSES", "PLAYER_BOUNDS", "DECK_SIZE", "HAND_SIZE", "EXPLODE_LIMIT")
    assert {name: getattr(pot_engine, name) for name in names} == {name: getattr(pot_reference, name) for name in names}
    assert (pot_engine.PLAYER_BOUNDS, pot_engine.DECK_SIZE) == ((2, 6), 56)
    assert (pot_engine.HAND_SIZE, pot_engine.EXPLODE_LIMIT) == (4, 14)
    assert pot_engine.CARD_CODES == ("T0", "T1", "T2", "T3", "T4", "T5", "T6")


def test_simulates_game_loop_touches_no_python_object(tmp_path):
    # core/face.pyx is a Python face, but its play_games (every game's simulate) is a C loop.
    source = ROOT / "core" / "face.pyx"
    numbered = annotation_scores(source, tmp_path)
    code = source.read_text().splitlines()
    first = next(n for n, line in enumerate(code, 1) if line.startswith("cdef void play_games("))
    last = next(n for n, line in enumerate(code, 1) if line.startswith("cdef class _Share"))
    assert last - first > 30
    assert [n for n, score in numbered if first <= n < last and score > 0] == []
