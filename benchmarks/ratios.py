"""Ratios of a benchmark run: how many times faster the core is than the reference.

Usage: python -m benchmarks.ratios RESULT.json [--bar 50] [--store-bar 2]

Reads the JSON that `pytest benchmarks --benchmark-json=RESULT.json` wrote, prints each
group's core and reference medians, their ratio and the rate (games/s, moves/s), and exits
non-zero when a barred group (Poison's `simulate` and `replay`, the pot game's
`pot-simulate` and `pot-replay`) is below the bar or was not measured. It also holds the
store's append to its floor measured in the same run (group `store`, issue 28): an fsynced
append of one move's events at most `--store-bar` (2) times one fsynced SET of those bytes
over a bare socket, printed with the two medians and PASS or FAIL; a run without the group
fails it as not measured. The clocks' group (benchmarks/test_clocks.py), when measured, is
said as a ratio without a bar: a due game fired against a plain move of the same game.
Medians, not means: on a shared, noisy machine the median resists the stray slow round.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

#: The work one call of each group does, to turn seconds into rates.
WORK = {
    "simulate": (100, "games/s"),
    "replay": (200, "moves/s"),
    "play": (1, "moves/s"),
    "pot-simulate": (100, "games/s"),
    "pot-replay": (1, "games/s"),  # one recorded four-player game a call (about 50 moves)
}
BARRED = ("simulate", "replay", "pot-simulate", "pot-replay")
#: The store's barred pair, as benchmarks/test_store.py names its cases: an append and its floor.
STORE_GROUP, APPEND, FLOOR = "store", "append_one_move", "an_fsynced_write_through_a_bare_socket"
#: The clocks' pair, as benchmarks/test_clocks.py names its cases: a due game fired, and a move.
CLOCKS_GROUP, EXPIRE, PLAY = "clocks", "expire_a_due_game", "play_a_move"


def store_bar(groups: dict[str, dict[str, float]], bar: float) -> tuple[str, bool]:
    """The store's bar over a run's medians: what it measured, and whether that meets it."""
    cases = groups.get(STORE_GROUP, {})
    if APPEND not in cases or FLOOR not in cases:
        return f"{STORE_GROUP}: the append or the bare-socket SET was not measured", False
    append, floor = cases[APPEND], cases[FLOOR]
    said = (
        f"an fsynced append {append * 1e3:.3f} ms ≤ {bar:g}× the fsynced bare-socket SET "
        f"{floor * 1e3:.3f} ms: {append / floor:.3f}×"
    )
    return said, append / floor <= bar


def firing_ratio(groups: dict[str, dict[str, float]]) -> str | None:
    """What firing a due game costs against a plain move of the same game, in this run (no
    bar: said for the record); None when the group was not measured."""
    cases = groups.get(CLOCKS_GROUP, {})
    if EXPIRE not in cases or PLAY not in cases:
        return None
    expire, play = cases[EXPIRE], cases[PLAY]
    return (
        f"firing a due game (Games.expire) {expire * 1e3:.3f} ms against a move (Games.play) "
        f"{play * 1e3:.3f} ms: {expire / play:.2f}×"
    )


def medians(path: Path) -> dict[str, dict[str, float]]:
    data = json.loads(path.read_text())
    groups: dict[str, dict[str, float]] = {}
    for bench in data["benchmarks"]:
        case = bench["param"] or bench["name"].removeprefix("test_")
        groups.setdefault(bench["group"], {})[case] = bench["stats"]["median"]
    return groups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", type=Path)
    parser.add_argument("--bar", type=float, default=50.0, help="least core/reference ratio")
    parser.add_argument(
        "--store-bar", type=float, default=2.0, help="most fsynced append over the fsynced bare-socket SET"
    )
    args = parser.parse_args(argv)
    groups = medians(args.result)
    table = Table(title=f"core vs reference ({platform.machine()}, Python {platform.python_version()})")
    for column in ("group", "core median", "reference median", "ratio", "core rate", "reference rate"):
        table.add_column(column, justify="right")
    failed = []
    others: list[tuple[str, str, float]] = []
    for group, cases in sorted(groups.items()):
        core, ref = cases.get("core"), cases.get("reference")
        if core is None and ref is None:
            others.extend((group, case, median) for case, median in sorted(cases.items()))
            continue
        if core is None or ref is None:
            failed.append(f"{group}: the core or the reference case is missing")
            continue
        ratio = ref / core
        work, unit = WORK.get(group, (1, "calls/s"))
        table.add_row(
            group,
            f"{core * 1e6:,.1f} µs",
            f"{ref * 1e6:,.1f} µs",
            f"{ratio:,.0f}×",
            f"{work / core:,.0f} {unit}",
            f"{work / ref:,.0f} {unit}",
        )
        if group in BARRED and ratio < args.bar:
            failed.append(f"{group}: core is {ratio:.1f}× the reference, below the bar of {args.bar:g}×")
    missing = [group for group in BARRED if group not in groups]
    failed += [f"{group}: not measured" for group in missing]
    console = Console(width=max(Console().width, 110))
    console.print(table)
    if others:
        plain = Table(title="other groups")
        for column in ("group", "case", "median", "per second"):
            plain.add_column(column, justify="right")
        for group, case, median in others:
            plain.add_row(group, case, f"{median * 1e6:,.1f} µs", f"{1 / median:,.0f}")
        console.print(plain)
    firing = firing_ratio(groups)
    if firing is not None:
        console.print(firing)
    store, met = store_bar(groups, args.store_bar)
    if met:
        console.print(f"PASS {store}")
    else:
        failed.append(store)
    for failure in failed:
        console.print(f"[red]FAIL[/red] {failure}")
    if not failed:
        console.print(
            f"every barred group is at least {args.bar:g}× faster in the core; the store's append within its bar"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
