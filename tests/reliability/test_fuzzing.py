"""API fuzzing from the OpenAPI document: schemathesis generates thousands of requests
(valid and invalid) against a real `poison serve`; no answer may be a 5xx, and every
answer must conform to the document (status codes, content types, bodies).

Schemathesis's own pytest plugin does not work with pytest 9 yet, so its strategies are
driven by a plain hypothesis test, one operation after another.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import checks
from schemathesis.generation import GenerationMode

from tests.reliability.service import Served, serve

EXAMPLES_PER_OPERATION = 200
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


@pytest.fixture(scope="module")
def served_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = serve(workers=1, data_dir=tmp_path_factory.mktemp("fuzz"))
    yield served
    served.stop()


def operations(base: str) -> list:
    schema = schemathesis.openapi.from_url(f"{base}/schema/openapi.json")
    found = [result.ok() for result in schema.get_all_operations()]
    return [op for op in found if not op.path.startswith("/schema") and not op.path.endswith("/stream")]


def test_no_generated_request_gets_a_5xx_or_an_answer_the_document_does_not_describe(served_api):
    ops = operations(served_api.base)
    assert len(ops) >= 9
    calls = 0
    for operation in ops:
        strategy = operation.as_strategy(generation_mode=GenerationMode.POSITIVE) | operation.as_strategy(
            generation_mode=GenerationMode.NEGATIVE
        )

        @settings(
            max_examples=EXAMPLES_PER_OPERATION, deadline=None, suppress_health_check=list(HealthCheck), database=None
        )
        @given(case=strategy)
        def fuzz(case) -> None:
            nonlocal calls
            case.call_and_validate(base_url=served_api.base, checks=CHECKS)
            calls += 1

        fuzz()
    assert calls >= 1000, f"only {calls} requests were generated"
    assert st  # hypothesis strategies stay importable for whoever extends this
