"""Leaks are reported against the module that left them.

An unclosed socket or file warns (ResourceWarning, an error here: pyproject.toml's
`filterwarnings`) only when the garbage collector frees it, which is at whatever later test
the collector happens to run in: a test elsewhere then fails at random. Collecting at the
end of each module makes the report land where the leak was made, every run. A collection
a module (not a test) keeps the cost small.
"""

from __future__ import annotations

import gc

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if nextitem is None or nextitem.path != item.path:
        gc.collect()
