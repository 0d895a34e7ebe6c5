"""core.poison.rules holds the rules as C functions (declared in rules.pxd) and exports nothing to
Python: its Python face is core.poison.engine."""
