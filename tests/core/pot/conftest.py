"""Every pot-game test that takes `pot` runs twice: against the compiled engine and the reference."""

from types import ModuleType

import pytest

from core.pot import engine, reference


@pytest.fixture(params=[engine, reference], ids=["engine", "reference"])
def pot(request: pytest.FixtureRequest) -> ModuleType:
    return request.param
