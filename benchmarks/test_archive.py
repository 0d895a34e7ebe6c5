"""The archive's benchmark, run small as a test of its own workings (make test): it writes,
moves and reads its games, and its memory bar holds (the read bar is its own run's to judge,
on a quiet machine: make archive-bench)."""

from __future__ import annotations

import pytest

from benchmarks import archive


def test_the_archive_benchmark_moves_its_games_and_an_archived_games_keys_are_within_the_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    archive.main(["--games", "300", "--reads", "20", "--batch", "100"])
    out = capsys.readouterr().out
    assert "moved " in out
    assert "PASS an archived game's keys, all told" in out
    assert "archived read, cold" in out
