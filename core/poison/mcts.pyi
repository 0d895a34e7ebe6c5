"""Poison's table for the search bot (core/poison/mcts.pyx): C functions only, reached
through `core.poison.engine` (`Game.choose("mcts", ...)`, `Game.search`, `simulate`). Nothing
here is for Python."""
