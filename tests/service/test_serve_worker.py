"""A `poison serve` worker's process set-up for serving: the application the server loads
(service.commands.serve.worker_app) comes with the collector settled, so that a full
collection does not walk the modules and the application on every pass (the load
benchmark's tail: benchmarks/probes.py). Checked in a process of its own: freezing is for
good, and this test process must keep its own collector."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from service.commands.serve import GC_THRESHOLDS

pytestmark = pytest.mark.subprocess

LOAD_A_WORKER = """
import gc, json
from service.commands.serve import worker_app
before = {"frozen": gc.get_freeze_count(), "thresholds": gc.get_threshold()}
app = worker_app()
after = {"frozen": gc.get_freeze_count(), "thresholds": gc.get_threshold(), "young": gc.get_count()[0]}
print(json.dumps({"before": before, "after": after, "app": type(app).__name__}))
"""


def test_a_worker_s_application_comes_with_its_start_up_objects_frozen_and_the_collector_set_for_serving() -> None:
    run = subprocess.run(
        [sys.executable, "-c", LOAD_A_WORKER], capture_output=True, text=True, timeout=60, env={"PATH": ""}
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["app"] == "Litestar"
    assert seen["before"]["frozen"] == 0
    assert seen["after"]["frozen"] > 10_000  # the modules, the application, its OpenAPI document
    assert tuple(seen["before"]["thresholds"]) != GC_THRESHOLDS
    assert tuple(seen["after"]["thresholds"]) == GC_THRESHOLDS
    assert seen["after"]["young"] < 100  # collected just before freezing
