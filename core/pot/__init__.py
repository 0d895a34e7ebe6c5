"""The pot game (rules.md, "The pot game"): the second ruleset, built like Poison's core.

`core.pot.engine` is the compiled face of the C rules in `core/pot/rules.pyx`;
`core.pot.reference` is the same game in plain Python, the oracle the tests compare it
with. Both return the tuples of `core.results` (PotMove, PotDeal, PotPlayed, PotResult,
PotView) and raise the errors of `core.errors`. This package imports nothing heavy: the
registry (`core.rulesets`) imports the two modules it needs.
"""
