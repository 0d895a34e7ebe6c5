"""The pot game's table for the search bot (core/pot/mcts.pyx): C functions only,
reached through `core.pot.engine` (`Game.choose("mcts", ...)`, `Game.search`, `simulate`).
Nothing here is for Python."""
