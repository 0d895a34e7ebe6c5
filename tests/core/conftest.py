"""Every rule test runs twice: against the compiled engine and against the reference."""

from types import ModuleType

import pytest

from core.poison import engine, reference


@pytest.fixture(params=[engine, reference], ids=["engine", "reference"])
def rules(request: pytest.FixtureRequest) -> ModuleType:
    return request.param
