"""What each move of the pot game must record, said from the plain reference's report alone
(core.pot.reference), never from events/pot/rules.py: the public form of the move's events,
every card shown, in the order things happened. The event layer's log and the HTTP API's
answers are both checked against it, so a mapping that drops, reorders or misfills an event
fails in either."""

from __future__ import annotations

from typing import Any

Public = dict[str, Any]  # {"type": ..., "data": ...}, as a public event names its fields


def ended(result: Any) -> Public:
    """The event of a pot that ended, closed or exploded (a PotResult of the reference)."""
    data = {"seat": result.seat, "cards": list(result.cards), "toxicity": result.toxicity}
    if result.outcome == "closed":
        return {"type": "pot_closed", "data": {**data, "points": result.points}}
    return {"type": "pot_exploded", "data": data}


def move_events(done: Any, oracle: Any) -> list[Public]:
    """The events of the move `done` that the reference game `oracle` has just made."""
    events: list[Public] = [
        {
            "type": "card_played",
            "data": {"seat": done.seat, "card": done.card, "close": done.close, "toxicity": done.toxicity},
        }
    ]
    if done.ended is not None:
        events.append(ended(done.ended))
    if done.started is not None:
        events.append({"type": "pot_started", "data": {"card": done.started}})
    if done.drawn:
        events.append(
            {"type": "cards_drawn", "data": {"seat": done.seat, "count": len(done.drawn), "cards": list(done.drawn)}}
        )
    if done.final is not None:
        events.append(ended(done.final))
    if done.game_over:
        events.append(
            {"type": "game_finished", "data": {"totals": list(oracle.totals), "winners": list(oracle.winners)}}
        )
    return events
