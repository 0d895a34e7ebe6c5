"""High card, a third game that lives in the tests alone: it proves that a game is one folder
per layer and one registry entry (docs/architecture.md, "Adding a game"). Each layer's facet
is one module here (engine.py, events.py, service.py, screen.py); plugin.py registers it, and
the generic suites run over it when pytest loads that plugin (test_generic_suites.py)."""
