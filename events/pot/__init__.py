"""The pot game's events: their types (events.pot.schema) and how its deal and moves become
events (events.pot.rules)."""
