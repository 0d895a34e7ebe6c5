"""Report the roofline and the threads ratios of a benchmark run, and check their bars.

Usage: python -m benchmarks.roofline RESULT.json [--fraction 0.5] [--speedup 1.7]

Reads the JSON that `pytest benchmarks --benchmark-json=RESULT.json` wrote: the `roofline`
and `pot-roofline` groups (benchmarks/test_roofline.py: the core's rate as a fraction of the
plain-C loop's, both measured in that run) and the `threads` and `pot-threads` groups
(benchmarks/test_threads.py: the median of one thread over the median of two, and over
that of two processes splitting the same games, the machine's own speed-up: no bar, and a
run without it fails nothing, but it says what the threads' could be). Exits non-zero when
a fraction or a threads speed-up is below its bar or was not measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.roofline import PROCESSES_CASE

ROOFLINE_GROUPS = ("roofline", "pot-roofline")
THREAD_GROUPS = ("threads", "pot-threads")


def case_of(bench: dict[str, Any]) -> str:
    """A threads group's case: its thread count ("1", "2"), or PROCESSES_CASE."""
    return str(bench["extra_info"].get("case") or bench["param"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("result", type=Path)
    parser.add_argument("--fraction", type=float, default=0.5, help="least core/C-loop fraction")
    parser.add_argument("--speedup", type=float, default=1.7, help="least two-thread/one-thread speed-up")
    args = parser.parse_args(argv)
    benches: list[dict[str, Any]] = json.loads(args.result.read_text())["benchmarks"]
    failed: list[str] = []
    console = Console(width=max(Console().width, 100))

    roofline = Table(title=f"the core against a plain-C loop ({platform.machine()}, {os.cpu_count()} cores)")
    for column in ("group", "core", "plain C", "fraction"):
        roofline.add_column(column, justify="right")
    for group in ROOFLINE_GROUPS:
        info = next((bench["extra_info"] for bench in benches if bench["group"] == group), None)
        if not info or "fraction" not in info:
            failed.append(f"{group}: not measured")
            continue
        unit = info["unit"]
        roofline.add_row(
            group, f"{info['core_rate']:,.0f} {unit}", f"{info['c_rate']:,.0f} {unit}", f"{info['fraction']:.0%}"
        )
        if info["fraction"] < args.fraction:
            failed.append(f"{group}: the core is {info['fraction']:.0%} of the C loop, below {args.fraction:.0%}")
    console.print(roofline)

    threads = Table(title="simulate on one thread and on two; beside them, two processes (the machine's own speed-up)")
    for column in ("group", "1 thread", "2 threads", "speed-up", "2 processes", "their speed-up"):
        threads.add_column(column, justify="right")
    for group in THREAD_GROUPS:
        medians = {case_of(bench): bench["stats"]["median"] for bench in benches if bench["group"] == group}
        if "1" not in medians or "2" not in medians:
            failed.append(f"{group}: not measured")
            continue
        speedup = medians["1"] / medians["2"]
        processes = medians.get(PROCESSES_CASE)
        machine = f"{medians['1'] / processes:.2f}×" if processes else "not measured"
        threads.add_row(
            group,
            f"{medians['1'] * 1e3:,.2f} ms",
            f"{medians['2'] * 1e3:,.2f} ms",
            f"{speedup:.2f}×",
            f"{processes * 1e3:,.2f} ms" if processes else "",
            machine,
        )
        if speedup < args.speedup:
            failed.append(
                f"{group}: two threads are {speedup:.2f}× one, below {args.speedup:g}× "
                f"(two processes doing the same games at once: {machine})"
            )
    console.print(threads)

    for failure in failed:
        console.print(f"[red]FAIL[/red] {failure}")
    if not failed:
        console.print(f"every roofline fraction ≥ {args.fraction:.0%}, every speed-up ≥ {args.speedup:g}×")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
