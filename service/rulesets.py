"""The registry of the HTTP service: each ruleset's requests and answers, by name."""

from __future__ import annotations

from core.rulesets import get_ruleset
from events.play import LoggedGame
from service.poison import PoisonService
from service.pot import PotService
from service.ruleset import ServiceRules

SERVICE_RULES: dict[str, ServiceRules] = {rules.name: rules for rules in (PoisonService(), PotService())}


def service_rules(name: object) -> ServiceRules:
    """The service's side of the ruleset called `name` (core.RuleError `unknown_ruleset`
    naming those that exist, if none)."""
    return SERVICE_RULES[get_ruleset(name).name]


def service_rules_of(logged: LoggedGame) -> ServiceRules:
    return SERVICE_RULES[logged.rules.name]
