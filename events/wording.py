"""msgspec's refusals in a person's words, the same in the API and on the command line.

msgspec explains a value it refuses in its own terms ("Expected `str` matching regex
'^...$' - at `$.card`", "Object missing required field `players`"); whoever sent the value
needs to read what is wrong with it. `plain()` rewrites every kind of message msgspec gives
(a missing or unknown field, a wrong type, a bound, a length, a pattern, a choice, JSON that
is no JSON), naming the field by its path (`players[0].name`) and showing the value that was
sent when it is known (as JSON shows it: never a Python repr). Given the type being decoded,
it also says what would have been right: the fields of an object, the choices, both bounds.
A card pattern is told as the card codes of the rulesets it admits (core.rulesets), never
as a regular expression. Both the service (request bodies, settings) and the event layer
(an event that is no event) word their refusals here.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import msgspec.inspect as types

from core.errors import cards_listed, clipped, quoted
from core.rulesets import RULESETS

#: "Nothing was sent there", as opposed to null.
NOTHING: Any = msgspec.UNSET

Segment = str | int | None  # a field, an index, or an entry of a mapping (msgspec says `[...]`)

_AT = re.compile(r"^(?P<message>.*?)(?: - at `(?P<path>[^`]*)`(?: in `(?P<within>[^`]*)`)?)?$", re.DOTALL)
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]")
_MISSING = re.compile(r"Object missing required field `(?P<field>[^`]+)`")
_UNKNOWN = re.compile(r"Object contains unknown field `(?P<field>[^`]+)`")
_TYPE = re.compile(r"Expected `(?P<wanted>[^`]+)`, got `(?P<got>[^`]+)`")
_BOUND = re.compile(r"Expected `(?:int|float)` (?P<op>>=|<=|>|<) (?P<bound>\S+)")
_MULTIPLE = re.compile(r"Expected `int` that's a multiple of (?P<step>\d+)")
_LENGTH = re.compile(r"Expected `(?P<kind>str|array|object|bytes)` of length (?P<op>>=|<=) (?P<bound>\d+)")
_PATTERN = re.compile(r"Expected `str` matching regex (?P<pattern>.+)")
_ENUM = re.compile(r"Invalid (?:enum )?value (?P<value>.+)")
_OUT_OF_RANGE = re.compile(r"(?:Integer value|Number) out of range")
_EXPECTED = re.compile(r"Expected `(?P<wanted>[^`]+)`(?P<rest>.*)")
_MALFORMED = re.compile(r"(?:JSON|MessagePack data) is malformed: (?P<why>.+?) \(byte (?P<at>\d+)\)")

#: msgspec's names of JSON's kinds of value, as a person says them.
_KINDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "null": "null",
    "array": "a list",
    "object": "an object",
    "bytes": "bytes",
}
_UNITS = {"str": "characters", "bytes": "bytes", "array": "entries", "object": "fields"}
_COMPARED = {">=": "at least", "<=": "at most", ">": "more than", "<": "less than"}


def plain(
    error: BaseException | str,
    document: Any = NOTHING,
    *,
    kind: Any = None,
    path: str | None = None,
    whole: str = "the body",
    label: Callable[[str], str] | None = None,
    field_type: Any = None,
) -> str:
    """What is wrong, in words. `document` is what was decoded, as plain data (to show the
    value at fault); `kind` the type it was decoded as (to say what is right), or
    `field_type` the type of the field at fault; `path` the field when the message names
    none (Litestar strips it: `players[0].name`); `whole` what the document is called ("the
    body"); `label` how a field is called (a setting: its variable)."""
    found = _AT.match(str(error))
    assert found is not None  # the pattern matches any text
    message = found["message"].strip()
    where = _segments(found["path"] if found["path"] is not None else (path or ""))
    if found["within"] is not None:  # a mapping's key: `key` in `$.data`
        where = [*_segments(found["within"]), None]
    name = _Namer(whole, label)
    value = _value_at(document, where)
    info = _type_at(_info(kind), where, document) if field_type is None else _info(field_type)
    return _worded(message, where, value, info, name, document)


class _Namer:
    def __init__(self, whole: str, label: Callable[[str], str] | None) -> None:
        self.whole = whole
        self.label = label

    def __call__(self, where: Sequence[Segment]) -> str:
        if not where:
            return self.whole
        text = ""
        for segment in where:
            if segment is None:
                text += "[...]"
            elif isinstance(segment, int):
                text += f"[{segment}]"
            else:  # a field's name as it was sent, which may be anything
                text += f".{clipped(segment)}" if text else clipped(segment)
        return self.label(text) if self.label is not None else text


def _worded(message: str, where: list[Segment], value: Any, info: Any, name: _Namer, document: Any) -> str:
    field = name(where)
    if match := _MISSING.fullmatch(message):
        return f"{name([*where, match['field']])} is missing"
    if match := _UNKNOWN.fullmatch(message):
        fields = _fields(info, _value_at(document, where))
        has = f": {field} has only {_either(fields, 'and')}" if fields else ""
        return f"{name([*where, match['field']])} is not a field{has}"
    if match := _PATTERN.fullmatch(message):
        return _not_matching(field, value, match["pattern"])
    if match := _ENUM.fullmatch(message):
        choices = _choices(info)
        sent = _shown(value) if value is not NOTHING else clipped(match["value"])
        if not choices:
            return f"{field}: {sent} is not allowed here"
        if cards := _card_games(choices):  # the events' cards: one of a game's card codes
            return _not_a_card(f"{field}: {sent}", cards)
        return f"{field}: {sent} is not one of {', '.join(_shown(choice) for choice in choices)}"
    wanted = _wanted(info)
    if match := _TYPE.fullmatch(message):
        right = wanted or _kinds(match["wanted"])
        sent = _shown(value) if value is not NOTHING else _kinds(match["got"])
        return f"{field} must be {right}, not {sent}"
    if match := _BOUND.fullmatch(message):
        bounded = any(_range(member, whole=True).strip() for member in _members(info) if hasattr(member, "ge"))
        right = wanted if bounded else f"{_COMPARED[match['op']]} {_number(match['bound'])}"
        return f"{field} must be {right}{_not(value)}"
    if match := _LENGTH.fullmatch(message):
        unit = _UNITS[match["kind"]]
        count = f", not {len(value)}" if isinstance(value, (str, list, dict)) else ""
        span = _span(info) or f"{_COMPARED[match['op']]} {_number(match['bound'])}"
        return f"{field} must have {span} {unit}{count}"
    if match := _MULTIPLE.fullmatch(message):
        return f"{field} must be a multiple of {match['step']}{_not(value)}"
    if _OUT_OF_RANGE.fullmatch(message):
        return f"{field} must be {wanted or 'a smaller number'}{_not(value)}"
    if match := _MALFORMED.fullmatch(message):
        form = "JSON" if message.startswith("JSON") else "MessagePack"
        return f"{name.whole} is not valid {form}: {match['why']} at byte {match['at']}"
    if message == "Input data was truncated":
        return f"{name.whole} is not valid JSON: it ends before its last value does"
    if message == "Invalid UTF-8 encoded string":
        return f"{field} is not valid UTF-8"
    if match := _EXPECTED.fullmatch(message):
        return f"{field} must be {wanted or _kinds(match['wanted'])}{match['rest'].rstrip()}{_not(value)}"
    if not where and "`" not in message:
        return message  # our own words, raised while a value was built (a Struct's __post_init__)
    return f"{field}: {message.replace('`', '')}"


def as_typed(text: object) -> Any:
    """A text that stands for a value (a query parameter, an environment variable) as the
    value it reads as, to show it: `0` a number, `true` true, `maybe` a string."""
    if not isinstance(text, str):
        return text
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text
    return value if isinstance(value, (int, float, bool)) else text


def what(kind: Any) -> str:
    """What a value of this type is, in words: "a whole number from 1 to 64", "true or
    false", "one of 'dynamic', 'fixed'" ("" for a type without a simple description)."""
    return _wanted(_info(kind))


# ---- what was sent ------------------------------------------------------------------------


def _segments(path: str) -> list[Segment]:
    """`$.players[0].name` (msgspec) or `players[0].name` (Litestar) -> ["players", 0, "name"];
    `[...]`, an entry of a mapping, is None."""
    text = path[1:] if path.startswith("$") else (f".{path}" if path else "")
    found: list[Segment] = []
    for match in _SEGMENT.finditer(text):
        found.append(match[1] if match[1] is not None else int(match[2]) if match[2] is not None else None)
    return found


def _value_at(document: Any, where: Sequence[Segment]) -> Any:
    value = document
    for segment in where:
        holds = isinstance(value, dict) and segment in value
        if isinstance(segment, int) and isinstance(value, list):
            holds = 0 <= segment < len(value)
        if segment is None or not holds:
            return NOTHING
        value = value[segment]
    return value


def _shown(value: Any) -> str:
    """A value as JSON shows it (strings quoted as the core quotes them), briefly."""
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, bool) or value is None:
        return msgspec.json.encode(value).decode()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "that value"


def _not(value: Any) -> str:
    return "" if value is NOTHING else f", not {_shown(value)}"


def _number(text: str) -> str:
    try:
        number = float(text) if any(mark in text for mark in ".eE") else int(text)
    except ValueError:
        return text
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    return f"{number:,}" if abs(number) >= 10_000 else str(number)


def _kinds(names: str) -> str:
    """msgspec's `int | null` -> "a whole number or null"."""
    return _either([_KINDS.get(name.strip(), name.strip()) for name in names.split("|")], "or")


def _either(words: Sequence[str], joint: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {joint} {words[-1]}"


def _not_matching(field: str, value: Any, pattern_repr: str) -> str:
    try:
        pattern = ast.literal_eval(pattern_repr)
    except (ValueError, SyntaxError):
        pattern = pattern_repr
    cards = [ruleset for ruleset in RULESETS.values() if ruleset.card_pattern in str(pattern)]
    sent = f"{field}: {_shown(value)}" if value is not NOTHING else field
    if not cards:
        return f"{sent} is not in the form {field} takes"
    return _not_a_card(sent, cards)


def _card_games(choices: Sequence[Any]) -> list[Any]:
    """The rulesets whose card codes are exactly these choices (an enum of cards)."""
    return [ruleset for ruleset in RULESETS.values() if set(ruleset.card_codes) == set(choices)]


def _not_a_card(sent: str, cards: Sequence[Any]) -> str:
    if len(cards) == 1:
        return f"{sent} is not a card code: the cards are {cards_listed(cards[0].card_codes)}"
    games = [f"{cards_listed(ruleset.card_codes)} ({_game(ruleset.title)})" for ruleset in cards]
    return f"{sent} is not a card code: the cards are {_either(games, 'or')}"


def _game(title: str) -> str:
    """A game's title inside a sentence: "the pot game", "Poison"."""
    return title[0].lower() + title[1:] if title.startswith("The ") else title


# ---- what would have been right -----------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _info_of(kind: Any) -> Any:
    return types.type_info(kind)


def _info(kind: Any) -> Any:
    if kind is None:
        return None
    try:
        return _info_of(kind)
    except (TypeError, ValueError):  # unhashable, or not a type msgspec knows
        return None


def _bare(info: Any) -> Any:
    while isinstance(info, types.Metadata):
        info = info.type
    return info


def _members(info: Any) -> list[Any]:
    info = _bare(info)
    return [_bare(member) for member in info.types] if isinstance(info, types.UnionType) else [info]


def _struct(info: Any, value: Any) -> types.StructType | None:
    """The object type `value` is decoded as (in a union tagged by a field, by its tag)."""
    structs = [member for member in _members(info) if isinstance(member, types.StructType)]
    if len(structs) > 1 and isinstance(value, dict):
        for struct in structs:
            if struct.tag_field is not None and value.get(struct.tag_field) == struct.tag:
                return struct
        return None
    return structs[0] if len(structs) == 1 else None


def _type_at(info: Any, where: Sequence[Segment], document: Any) -> Any:
    value = document
    for segment in where:
        if info is None:
            return None
        if isinstance(segment, str):
            struct = _struct(info, value)
            tags = [m.tag for m in _members(info) if isinstance(m, types.StructType) and m.tag_field == segment]
            if tags:  # the field that tells a union's objects apart (`ruleset`): one of their tags
                info = types.LiteralType(values=tuple(tags) if struct is None else (struct.tag,))
            elif struct is not None:
                info = next((field.type for field in struct.fields if field.encode_name == segment), None)
            else:
                mapping = next((m for m in _members(info) if isinstance(m, types.DictType)), None)
                info = mapping.value_type if mapping is not None else None
        else:
            sequence = next((m for m in _members(info) if hasattr(m, "item_type")), None)
            info = sequence.item_type if sequence is not None else None
        value = _value_at(value, [segment]) if segment is not None else NOTHING
    return info


def _fields(info: Any, value: Any) -> list[str]:
    struct = _struct(info, value)
    if struct is None:
        return []
    names = [field.encode_name for field in struct.fields]
    return [*([struct.tag_field] if struct.tag_field else []), *names]


def _choices(info: Any) -> list[Any]:
    for member in _members(info):
        if isinstance(member, types.LiteralType):
            return list(member.values)
    tags = [member.tag for member in _members(info) if isinstance(member, types.StructType) and member.tag]
    return tags


def _span(info: Any) -> str:
    """A length's bounds: "3 to 6", "at least 1", "at most 32" ("" when unknown)."""
    for member in _members(info):
        low, high = getattr(member, "min_length", None), getattr(member, "max_length", None)
        if low is not None and high is not None:
            return f"{low} to {high}"
        if low is not None:
            return f"at least {low}"
        if high is not None:
            return f"at most {high}"
    return ""


def _wanted(info: Any) -> str:
    """What a value of this type is, in words ("" when unknown)."""
    if info is None:
        return ""
    words = list(dict.fromkeys(word for word in (_one(member) for member in _members(info)) if word))
    return _either(words, "or") if words else ""


def _one(info: Any) -> str:
    if isinstance(info, types.IntType):
        return "a whole number" + _range(info, whole=True)
    if isinstance(info, types.FloatType):
        return "a number" + _range(info, whole=False)
    if isinstance(info, types.BoolType):
        return "true or false"
    if isinstance(info, types.NoneType):
        return "null"
    if isinstance(info, types.LiteralType):
        if _card_games(info.values):
            return "a card code"
        return "one of " + ", ".join(_shown(value) for value in info.values)
    if isinstance(info, types.StrType):
        if info.pattern is not None and any(r.card_pattern in info.pattern for r in RULESETS.values()):
            return "a card code"
        span = _span(info)
        if span == "at least 1":
            return "a non-empty string"
        return f"a string of {span} characters" if span else "a string"
    if isinstance(info, (types.ListType, types.VarTupleType, types.TupleType, types.SetType, types.FrozenSetType)):
        span = _span(info)
        return f"a list of {span} entries" if span else "a list"
    if isinstance(info, (types.StructType, types.DictType, types.TypedDictType, types.DataclassType)):
        return "an object"
    return ""


def _range(info: Any, *, whole: bool) -> str:
    low = info.ge if info.ge is not None else info.gt
    high = info.le if info.le is not None else info.lt
    shown_low = _number(str(low)) if low is not None else ""
    shown_high = _number(str(high)) if high is not None else ""
    if info.ge is not None and info.le is not None:
        return f" from {shown_low} to {shown_high}"
    parts = []
    if low is not None:
        parts.append(f"{'at least' if info.ge is not None else 'above'} {shown_low}")
    if high is not None:
        parts.append(f"{'at most' if info.le is not None else 'below'} {shown_high}")
    if not parts:
        return ""
    return (" of " if parts[0].startswith("at") and len(parts) == 1 else " ") + " and ".join(parts)
