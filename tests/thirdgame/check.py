"""High card's engine held to core.protocol.Engine by mypy (pyproject.toml's files list it)."""

from core.protocol import Engine
from tests.thirdgame import engine

ENGINE: Engine = engine
