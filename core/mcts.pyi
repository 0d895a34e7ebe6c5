"""Poison's search bot (core/mcts.pyx): C functions only, reached through `core.engine`
(`Game.choose("mcts", ...)`, `Game.search`, `simulate`). Nothing here is for Python."""
