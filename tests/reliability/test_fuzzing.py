"""API fuzzing from the OpenAPI document: schemathesis, every check (`--checks all`) and every
phase (examples, coverage, fuzzing, stateful), against a real `poison serve`. No answer may be
a 5xx, and every answer must be the one the document describes (status, content type, body,
headers, `Allow` on 405, SSE events); valid requests must be taken and invalid ones refused.

The live stream's GET is left out (on an active game it never ends by design: each call would
wait for the request timeout); its HEAD, which ends at once, is in. The GET is found in the
served document by its path, not by a name written here (operation ids change), and the run
must have tested every other operation. The configuration and the
hooks (tests/reliability/schemathesis.toml, fuzz_hooks.py) say where JSON Schema cannot state
a bound, and why. The bounded run here is part of the test command; the long one is `make
fuzz` (`python -m tests.reliability.test_fuzzing --examples 250`), figures in docs/reliability.md.
"""

from __future__ import annotations

import argparse
import glob
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.reliability.service import Served, serve

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).with_name("schemathesis.toml")
LIVE_STREAM = "/v1/games/{game_id}/events/stream"
EXAMPLES = 20  # per operation and phase: 19 s here, well under a minute
PHASES = ("examples", "coverage", "fuzzing", "stateful")


def live_stream_get(base: str) -> str:
    """The operation id of the live stream's GET in the served document."""
    document = httpx.get(f"{base}/schema/openapi.json", timeout=30).raise_for_status().json()
    return document["paths"][LIVE_STREAM]["get"]["operationId"]


def fuzz(base: str, examples: int, report_dir: Path, seed: int = 1) -> dict[str, Any]:
    """One schemathesis run; its JSON report, with the HTTP requests it made and their statuses."""
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(CONFIG),
        "run",
        f"{base}/schema/openapi.json",
        "--checks",
        "all",
        "--phases",
        ",".join(PHASES),
        "--exclude-operation-id",
        live_stream_get(base),
        "--max-examples",
        str(examples),
        "--seed",
        str(seed),
        "--workers",
        "1",
        "--request-timeout",
        "20",
        "--no-color",
        "--report",
        "json,vcr",
        "--report-dir",
        str(report_dir),
    ]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    report = json.loads(Path(glob.glob(str(report_dir / "json-*.json"))[0]).read_text())
    cassette = Path(glob.glob(str(report_dir / "vcr-*.yaml"))[0]).read_text()
    report["requests"] = cassette.count("\n- id: ")
    report["statuses"] = [int(line.split("'")[1]) for line in cassette.splitlines() if line.startswith("      code: ")]
    report["server_errors"] = sum(status >= 500 for status in report["statuses"])
    report["output"] = run.stdout[-6000:]
    return report


def check(report: dict[str, Any], minimum_requests: int) -> None:
    assert report["complete"], report["output"]
    # Every request's status was read from the cassette: 0 5xx means none, not none seen.
    assert len(report["statuses"]) == report["requests"], (len(report["statuses"]), report["requests"])
    assert report["failures"] == [], report["output"]
    assert report["errors"] == [], report["output"]
    assert report["server_errors"] == 0, report["output"]
    assert report["test_cases"]["with_failures"] == 0, report["output"]
    assert {name: phase["status"] for name, phase in report["phases"].items()} == dict.fromkeys(PHASES, "success")
    # Every operation of the document but the stream's GET (so the filter took exactly one),
    # each tested, none skipped or errored.
    operations = report["operations"]
    assert operations["selected"] == operations["tested"] == operations["total"] - 1, operations
    assert (operations["errored"], operations["skipped"]) == (0, 0), operations
    assert report["requests"] >= minimum_requests, report["requests"]


@pytest.fixture(scope="module")
def served_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = serve(workers=1, data_dir=tmp_path_factory.mktemp("fuzz"))
    yield served
    served.stop()


def test_no_generated_request_gets_a_5xx_or_an_answer_the_document_does_not_describe(
    served_api: Served, tmp_path: Path
) -> None:
    check(fuzz(served_api.base, EXAMPLES, tmp_path), minimum_requests=300)


def main() -> None:
    """`make fuzz`: the long run, on its own `poison serve`; prints the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=250)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minimum", type=int, default=5000, help="fewest requests the run must make")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        served = serve(workers=1, data_dir=Path(directory) / "data")
        try:
            report = fuzz(served.base, arguments.examples, Path(directory) / "report", arguments.seed)
        finally:
            served.stop()
    print(report["output"])
    print(
        f"requests: {report['requests']}, test cases: {report['test_cases']['generated']}, "
        f"failures: {len(report['failures'])}, errors: {len(report['errors'])}, 5xx: {report['server_errors']}, "
        f"time: {report['running_time']:.0f} s"
    )
    check(report, arguments.minimum)


if __name__ == "__main__":
    main()
