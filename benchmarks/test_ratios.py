"""The report of a benchmark run's ratios (benchmarks/ratios.py), on results written here:
it passes the core's bars and the store's, and fails when the fsynced append is more than
its bar over the fsynced bare-socket SET of the same run, or when the store was not
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


def test_a_run_within_every_bar_passes_and_prints_the_stores_ratio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ratios.main([str(write_run(tmp_path / "run.json", append=0.0004))]) == 0
    said = capsys.readouterr().out
    assert "PASS an fsynced append 0.400 ms ≤ 2× the fsynced bare-socket SET 0.200 ms: 2.000×" in said


def test_an_append_over_twice_the_bare_socket_set_fails_with_both_medians(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ratios.main([str(write_run(tmp_path / "run.json", append=0.000401))]) == 1
    said = capsys.readouterr().out
    assert "FAIL an fsynced append 0.401 ms ≤ 2× the fsynced bare-socket SET 0.200 ms: 2.005×" in said
    # The bar is a flag.
    assert ratios.main([str(tmp_path / "run.json"), "--store-bar", "2.1"]) == 0


def test_a_run_without_the_store_fails_as_not_measured(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ratios.main([str(write_run(tmp_path / "run.json", append=None))]) == 1
    assert "FAIL store: the append or the bare-socket SET was not measured" in capsys.readouterr().out
