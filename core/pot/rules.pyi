"""core.pot.rules holds the pot game's rules as C functions (declared in core/pot/rules.pxd)
and exports nothing to Python: its Python face is core.pot.engine."""
