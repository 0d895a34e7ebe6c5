"""The search bot of every game (core/search.pyx): C functions only, reached through each
game's engine (`Game.choose("mcts", ...)`, `Game.search`, `simulate`). Nothing here is for
Python."""
