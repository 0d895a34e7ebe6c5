"""Malformed input to the batch functions is a RuleError, never a crash (issue 18).

tests/core/malformed.py feeds `replay`, `simulate`, `score_round`, `seeded_deal`,
`Game(..., deals=...)` and `Game.deal` every wrong shape (short, long, nested wrong, wrong
types, None, a deal that does not match its round) and prints one outcome per case. It runs
in a subprocess: a segmentation fault of the compiled core fails these tests, naming the
case, instead of killing pytest.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(command: list[str]) -> tuple[dict[str, str], str | None]:
    """Run a case printer; its outcomes by case, and what went wrong with the run (None if
    nothing: exit status 0 and a last line `done`)."""
    shown = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
    lines = shown.stdout.splitlines()
    outcomes = dict(line.split("\t", 1) for line in lines if "\t" in line)
    if shown.returncode != 0 or not lines or lines[-1] != "done":
        last = lines[-1].rstrip("\t") if lines else "(nothing printed)"
        return outcomes, f"exit status {shown.returncode} during {last!r}; stderr: {shown.stderr[-2000:]}"
    return outcomes, None


def printed_by_both(printer: str) -> dict[str, dict[str, str]]:
    """The outcomes the case printer module `printer` prints for each implementation; a run
    that went wrong fails the test, saying how."""
    found = {}
    for implementation in ("engine", "reference"):
        found[implementation], failure = run([sys.executable, "-m", printer, implementation])
        assert failure is None, f"{implementation}: {failure}"
    return found


@pytest.fixture(scope="module")
def outcomes():
    return printed_by_both("tests.core.malformed")


def test_every_malformed_input_is_a_rule_error_in_both_implementations(outcomes):
    for implementation, cases in outcomes.items():
        assert len(cases) > 400
        wrong = {name: outcome for name, outcome in cases.items() if not outcome.startswith(("raised ", "reported "))}
        assert not wrong, f"{implementation}: {wrong}"


def test_engine_and_reference_refuse_malformed_input_alike(outcomes):
    engine, reference = outcomes["engine"], outcomes["reference"]
    assert engine.keys() == reference.keys()
    differ = {name: (engine[name], reference[name]) for name in engine if engine[name] != reference[name]}
    assert not differ


def test_the_cases_cover_every_batch_function_and_kind_of_shape(outcomes):
    names = " ".join(outcomes["engine"])
    for function in ("replay(", "simulate(", "score_round(", "seeded_deal(", "Game(3, deals=", "Game(4).deal("):
        assert function in names
    for shape in ("short", "too many", "None", "nested", "a string", "the deal of the other round", "round 1, deals"):
        assert shape in names
    # A deal refused where its round is due, right after the last recorded move: the case that crashed.
    assert outcomes["engine"]["replay(4, round 1, deals=[good, the deal of the other round])"].startswith(
        "reported invalid_deal at move 50:"
    )


def test_a_crash_fails_the_run_and_names_the_case():
    crash = "print('the case\\t', end='', flush=True); import ctypes; ctypes.string_at(0)"
    outcomes, failure = run([sys.executable, "-c", crash])
    assert failure is not None
    assert "exit status -11 during 'the case'" in failure
    assert outcomes == {"the case": ""}  # started, and never finished
