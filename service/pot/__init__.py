"""The pot game over HTTP and in the terminal, laid out as Poison's folder (service/poison/):
schemas.py, rules.py, screen.py."""
