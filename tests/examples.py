"""How many examples a property test draws: its everyday number, scaled for a thorough run.

The test command keeps to its time budget with everyday numbers; `make thorough` sets
POISON_EXAMPLES_SCALE (10 there) to draw that many times more of every property written with
`examples(n)`, for a run before a release or after a change to the rules.
"""

import os

#: The environment variable that scales every property's examples, and its everyday value.
SCALE_VARIABLE, EVERYDAY = "POISON_EXAMPLES_SCALE", "1"


def scale() -> float:
    text = os.environ.get(SCALE_VARIABLE, EVERYDAY)
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 1000:
        raise ValueError(f"{SCALE_VARIABLE} must be a number above 0 and at most 1000, not {text!r}")
    return value


def examples(everyday: int) -> int:
    """The examples of a property whose everyday number is `everyday`."""
    return max(1, round(everyday * scale()))
