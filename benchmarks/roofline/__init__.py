"""The roofline: minimal plain-C random-play loops of each game, the speed of light here.

poison.c and pot.c play random games with nothing but the rules (no API, no checks of
input, no bookkeeping beyond the scores). `compile_loop` builds one with the system `cc -O2`
(at benchmark time, so it is this machine's compiler and processor that set the bar) and
`loop_rate` runs it and reads the rate it timed itself. benchmarks/test_roofline.py puts
the core's `simulate` against them in one run; `python -m benchmarks.roofline RESULT.json`
reports the fractions and the threads ratios and checks their bars.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
from pathlib import Path

#: The directory of the C sources.
SOURCES = Path(__file__).parent
#: A threads group's case that splits its games between two processes, as it marks itself in
#: the run's JSON (`extra_info["case"]`); the other cases are the thread counts, "1" and "2".
PROCESSES_CASE = "processes"


def compile_loop(name: str, into: Path) -> Path:
    """Compile SOURCES/<name>.c with `cc -O2` into the directory `into`; the executable."""
    compiler = shutil.which("cc")
    if compiler is None:
        raise RuntimeError("the roofline needs a C compiler: no `cc` on the PATH")
    executable = into / name
    subprocess.run([compiler, "-O2", "-Wall", "-Werror", "-o", str(executable), str(SOURCES / f"{name}.c")], check=True)
    return executable


def loop_rate(executable: Path, count: int, *, seed: int = 1, runs: int = 5) -> float:
    """The median of `runs` runs' rates (rounds or games per second) of `count` each. Each
    run checks its own cards (it exits 1 if a round loses one) and reports its count back."""
    rates = []
    for run in range(runs):
        done = subprocess.run(
            [str(executable), str(count), str(seed + run)], check=True, capture_output=True, text=True
        )
        played, seconds, _checksum = done.stdout.split()
        if int(played) != count or float(seconds) <= 0:
            raise RuntimeError(f"{executable.name} reported {done.stdout.strip()!r} for {count}")
        rates.append(count / float(seconds))
    return statistics.median(rates)
