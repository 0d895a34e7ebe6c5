"""Poison's events: their types (events.poison.schema) and how its options, deals and moves
become events (events.poison.rules)."""
