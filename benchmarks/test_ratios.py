"""The report of a benchmark run's ratios (benchmarks/ratios.py), on results written here:
it passes the core's bars and the store's, and fails when the fsynced append is more than
its bar over the fsynced bare-socket SET of the same run, or when the store was not
measured; and it says what firing a due game costs against a move when the clocks were
measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import ratios


def write_run(path: Path, append: float | None, floor: float = 0.0002) -> Path:
    """A run's results as pytest-benchmark writes them: each barred group's core 100× its
    reference, and the store's append and bare-socket SET with these medians (seconds)."""

    def bench(group: str, name: str, median: float, param: str | None = None) -> dict[str, object]:
        return {"group": group, "name": name, "param": param, "stats": {"median": median}}

    benches = [
        bench(group, f"test_{group}[{case}]", 0.001 if case == "core" else 0.1, case)
        for group in ratios.BARRED
        for case in ("core", "reference")
    ]
    if append is not None:
        benches.append(bench(ratios.STORE_GROUP, f"test_{ratios.APPEND}", append))
        benches.append(bench(ratios.STORE_GROUP, f"test_{ratios.FLOOR}", floor))
    path.write_text(json.dumps({"benchmarks": benches}))
    return path


@pytest.mark.parametrize(
    ("append", "status", "line"),
    [
        (0.0004, 0, "PASS an fsynced append 0.400 ms ≤ 2× the fsynced bare-socket SET 0.200 ms: 2.000×"),
        (0.000401, 1, "FAIL an fsynced append 0.401 ms ≤ 2× the fsynced bare-socket SET 0.200 ms: 2.005×"),
    ],
    ids=["within the bar", "over it"],
)
def test_an_append_within_twice_the_bare_socket_set_passes_and_one_over_fails_both_medians_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], append: float, status: int, line: str
) -> None:
    # Every other bar of the run is met: the store's ratio decides.
    assert ratios.main([str(write_run(tmp_path / "run.json", append=append))]) == status
    assert line in capsys.readouterr().out


def test_the_stores_bar_is_a_flag(tmp_path: Path) -> None:
    assert ratios.main([str(write_run(tmp_path / "run.json", append=0.000401)), "--store-bar", "2.1"]) == 0


def test_a_run_without_the_store_fails_as_not_measured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ratios.main([str(write_run(tmp_path / "run.json", append=None))]) == 1
    assert "FAIL store: the append or the bare-socket SET was not measured" in capsys.readouterr().out


def test_a_run_with_the_clocks_says_what_firing_a_due_game_costs_against_a_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_run(tmp_path / "run.json", append=0.0004)
    run = json.loads(path.read_text())
    run["benchmarks"] += [
        {"group": ratios.CLOCKS_GROUP, "name": f"test_{case}", "param": None, "stats": {"median": median}}
        for case, median in ((ratios.EXPIRE, 0.0009), (ratios.PLAY, 0.0006))
    ]
    path.write_text(json.dumps(run))
    assert ratios.main([str(path)]) == 0
    said = capsys.readouterr().out
    assert "firing a due game (Games.expire) 0.900 ms against a move (Games.play) 0.600 ms: 1.50×" in said
