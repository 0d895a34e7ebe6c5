"""The registry of the event layer: each ruleset's events, found by the name a game was
created with, and the decoding of stored events whatever their ruleset. It is made once, at
import, from the core's registry: each ruleset's entry says where its events are
(core.rulesets.FACETS: `events/<game>/rules.py`'s EVENTS).

Nothing above this module branches on a ruleset's name: it asks `rules_of(created)`.
"""

from __future__ import annotations

from core.errors import quoted
from core.rulesets import DEFAULT_RULESET, facets_of, get_ruleset
from events.codec import Codec, Event, MalformedEvent
from events.ruleset import EventRules

EVENT_RULES: dict[str, EventRules] = facets_of("events")
_CODECS_BY_PREFIX: dict[str, Codec] = {rules.codec.prefix: rules.codec for rules in EVENT_RULES.values()}


def rules_for(name: str) -> EventRules:
    """The events of the ruleset called `name` (core.RuleError `unknown_ruleset` if none)."""
    return EVENT_RULES[get_ruleset(name).name]


def rules_of(created: Event) -> EventRules:
    """The events of the ruleset a game_created event names."""
    return EVENT_RULES[getattr(created, "ruleset", DEFAULT_RULESET)]


def codec_of_log(first_type: str, first_data: dict[str, object]) -> Codec:
    """The codec of a public log, told by its first event (game_created names its ruleset;
    a log whose first event names none is Poison's, as every log before the pot game)."""
    name = first_data.get("ruleset", DEFAULT_RULESET) if first_type == "game_created" else DEFAULT_RULESET
    rules = EVENT_RULES.get(name) if isinstance(name, str) else None
    if rules is None:
        raise MalformedEvent(
            f"game_created names the ruleset {quoted(name)}, which is none of {', '.join(EVENT_RULES)}"
        )
    return rules.codec


def decode_stored(stored_type: str, schema: int, payload: bytes) -> Event:
    """A stored event, whatever its ruleset (its stored type names it: `pot:card_played`)."""
    prefix, _, kind = stored_type.rpartition(":")
    codec = _CODECS_BY_PREFIX.get(prefix + ":" if prefix else "")
    if codec is None:
        raise MalformedEvent(f"unknown event type {quoted(stored_type)}")
    return codec.decode_stored(kind, schema, payload)
