"""Poison over HTTP and in the terminal, one folder: its bodies and views (schemas.py), its
options, moves, views and score sheet as the service makes them (rules.py), and what the
terminal shows of it (screen.py). Nothing is imported here, so the terminal's screen loads
without the HTTP service's modules."""
