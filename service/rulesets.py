"""The registry of the HTTP service: each ruleset's requests and answers, by name, and the
unions of every ruleset's bodies, views and scores that the API's answers are made of. Made
once, at import, from the core's registry: each ruleset's entry says where its service is
(core.rulesets.FACETS: `service/<game>/rules.py`'s SERVICE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from core.rulesets import facets_of, get_ruleset
from events.play import LoggedGame
from service.ruleset import ServiceRules

SERVICE_RULES: dict[str, ServiceRules] = facets_of("service")

# Types made from the registry at run time; a type checker reads each as any ruleset's.
if TYPE_CHECKING:
    CreateGame = Any
    AnyGameView = Any
    AnyScores = Any
else:
    #: A new game's body, of any ruleset (told apart by `ruleset`).
    CreateGame = Union[tuple(rules.create_body for rules in SERVICE_RULES.values())]  # noqa: UP007 (made at run time)
    #: A game's view, of any ruleset (told apart by `ruleset`).
    AnyGameView = Union[tuple(rules.view_type for rules in SERVICE_RULES.values())]  # noqa: UP007
    #: A game's score sheet, of any ruleset (told apart by `ruleset`).
    AnyScores = Union[tuple(rules.scores_type for rules in SERVICE_RULES.values())]  # noqa: UP007


def service_rules(name: object) -> ServiceRules:
    """The service's side of the ruleset called `name` (core.RuleError `unknown_ruleset`
    naming those that exist, if none)."""
    return SERVICE_RULES[get_ruleset(name).name]


def service_rules_of(logged: LoggedGame) -> ServiceRules:
    return SERVICE_RULES[logged.rules.name]
