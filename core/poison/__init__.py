"""Poison (rules.md), the first ruleset: its compiled core and its plain-Python reference.

`core.poison.engine` is the compiled face of the C rules in `core/poison/rules.pyx`;
`core.poison.reference` is the same game in plain Python, the oracle the tests compare it
with. Both return the tuples of `core.results` and raise the errors of `core.errors`.
`core` re-exports the engine's public names, so `from core import Game` keeps meaning
Poison's game. This package imports nothing itself: the registry (`core.rulesets`) imports
the modules it needs.
"""
