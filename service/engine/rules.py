"""Rule settings (RULES.md), loaded from YAML variant files and validated.

The settings are frozen dataclasses whose type hints *are* the schema: loading
walks the hints, so an unknown key, a wrong type or a value outside a
``Literal`` is rejected with the key's dotted path, e.g.
``capture.mode: must be one of maximum, choose``. House rules are a partial
mapping deep-merged onto a variant and validated the same way.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Literal, TypeVar, cast

import yaml

from .cards import DECK, RANKS, SUITS, is_rank
from .errors import InvalidRules, UnknownVariant


class _FrozenDict(dict[str, int]):
    """A read-only, hashable dict for ``scoring.cards`` so Rules stay hashable."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def _readonly(self, *args: object, **kwargs: object) -> None:
        raise TypeError("rules are immutable")

    __setitem__ = __delitem__ = update = pop = clear = setdefault = _readonly  # type: ignore[assignment]


TEAMS: Final = 2
"""Sides that keep a pile and a score: 2 with two players and with four (partnerships)."""


def team_of(seat: int) -> int:
    """The team a seat plays for: seat 0 against 1; with four, 0+2 against 1+3."""
    return seat % TEAMS


def _bounds(low: int, high: int) -> dict[str, int]:
    """A whole-number setting's range (inclusive), checked on load."""
    return {"min": low, "max": high}


CARD_POINTS_MAX = 100
"""The most points ``scoring.cards`` may give one card."""


@dataclass(frozen=True, slots=True)
class InitialFloor:
    """Which cards may not stay on the starting floor."""

    return_to_deck: tuple[str, ...] = field(default=("J", "7D"), metadata={"max_items": 17})


@dataclass(frozen=True, slots=True)
class Capture:
    """How number cards capture sums."""

    groups: Literal["disjoint", "union"] = "disjoint"
    mode: Literal["maximum", "choose"] = "maximum"
    compulsory: bool = True


@dataclass(frozen=True, slots=True)
class Jack:
    """What a jack does."""

    sweeps: bool = True
    lone_jack_basra: bool = False


@dataclass(frozen=True, slots=True)
class SevenOfDiamonds:
    """Al Komi, the seven of diamonds."""

    special: bool = True
    basra: Literal["any_rank", "sum_at_most_10", "never"] = "any_rank"
    on_floor: Literal["plain", "wild"] = "plain"


@dataclass(frozen=True, slots=True)
class BasraSettings:
    """When a basra counts."""

    last_play_counts: bool = True


@dataclass(frozen=True, slots=True)
class Scoring:
    """Round points."""

    most_cards: int = field(default=30, metadata=_bounds(0, 1000))
    most_cards_tie: Literal["none", "split", "carry_over"] = "none"
    basra: int = field(default=10, metadata=_bounds(0, 1000))
    jack_basra: int = field(default=10, metadata=_bounds(0, 1000))
    cards: Mapping[str, int] = field(default_factory=_FrozenDict)


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete, validated rule set (a variant plus any house rules)."""

    players: Literal[2, 4] = 2
    hand_size: int = field(default=4, metadata=_bounds(1, 12))
    floor_size: int = field(default=4, metadata=_bounds(0, 16))
    initial_floor: InitialFloor = field(default_factory=InitialFloor)
    capture: Capture = field(default_factory=Capture)
    jack: Jack = field(default_factory=Jack)
    seven_of_diamonds: SevenOfDiamonds = field(default_factory=SevenOfDiamonds)
    basra: BasraSettings = field(default_factory=BasraSettings)
    leftover: Literal["last_capturer", "none"] = "last_capturer"
    scoring: Scoring = field(default_factory=Scoring)
    target_score: int = field(default=101, metadata=_bounds(1, 10_000))
    target_tie: Literal["play_on", "draw"] = "play_on"
    max_rounds: int = field(default=0, metadata={**_bounds(0, 50), "kept_at_default": False})
    """The match ends after this many rounds, whatever the scores (the higher total
    wins, equal totals draw), if not at the target before: a duplicate event's tables
    play a fixed number of deals. 0: no limit."""

    @property
    def teams(self) -> int:
        """Number of sides that keep a pile and a score (:data:`TEAMS`)."""
        return TEAMS

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain JSON-able data (lists for tuples); a fresh copy each call."""
        return json.loads(self.to_json())  # type: ignore[no-any-return]

    def to_json(self) -> str:
        """The canonical JSON of the settings (sorted keys, no spaces)."""
        return _json_of(self)

    @property
    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON of the settings: equal rules, equal hash."""
        return _hash_of(self)

    def card_points(self, card_name: str, rank: str) -> int:
        """Points ``scoring.cards`` gives one captured card (card key beats rank key)."""
        table = self.scoring.cards
        if card_name in table:
            return table[card_name]
        return table.get(rank, 0)


def points_by_card(rules: Rules) -> tuple[int, ...]:
    """What ``scoring.cards`` gives each card, indexed by card (use through
    :func:`derived`: one table per rule set)."""
    return tuple(rules.card_points(str(c), c.rank) for c in DECK)


_Derived = TypeVar("_Derived")
_DERIVED: dict[tuple[int, object], tuple[Rules, object]] = {}


def derived(rules: Rules, build: Callable[[Rules], _Derived]) -> _Derived:
    """``build(rules)``, made once per Rules object: the tables play looks things up in
    (a rule set is immutable, and one object is shared by every match that uses it)."""
    key = (id(rules), build)
    entry = _DERIVED.get(key)
    if entry is not None and entry[0] is rules:
        return cast(_Derived, entry[1])
    if len(_DERIVED) > 1024:
        _DERIVED.clear()
    made = build(rules)
    _DERIVED[key] = (rules, made)
    return made


@lru_cache(maxsize=256)
def _json_of(rules: Rules) -> str:
    return json.dumps(_to_plain(rules), sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=256)
def _hash_of(rules: Rules) -> str:
    return hashlib.sha256(rules.to_json().encode()).hexdigest()


def _to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # a setting added later is left out at its default: every rule set that was
        # hashed before it keeps its hash
        return {f.name: _to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.metadata.get("kept_at_default", True) or getattr(value, f.name) != f.default}
    if isinstance(value, tuple):
        return [_to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _to_plain(v) for k, v in value.items()}
    return value


# --- validation -----------------------------------------------------------


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _build(cls: type[Any], data: object, path: str) -> Any:
    if not isinstance(data, Mapping):
        raise InvalidRules(path, f"must be a mapping, not {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    allowed = ", ".join(fields)
    problems = [(_join(path, str(key)[:64]), f"unknown setting (allowed here: {allowed})")
                for key in sorted(str(k) for k in data if k not in fields)]
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        if name in data:
            try:
                kwargs[name] = _convert(hints[name], data[name], _join(path, name), f.metadata)
            except InvalidRules as exc:  # every bad key is reported, not just the first
                problems.extend(exc.problems)
    if problems:
        raise InvalidRules(*problems[0], problems=problems)
    return cls(**kwargs)


def _convert(hint: Any, value: object, path: str, meta: Mapping[str, Any]) -> Any:
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return _build(hint, {} if value is None else value, path)  # type: ignore[arg-type]
    if origin is Literal:
        choices = typing.get_args(hint)
        # bool is an int subclass: never let `true` pass for `2`
        if value in choices and type(value) is type(choices[0]):
            return value
        raise InvalidRules(path, "must be one of " + ", ".join(str(c) for c in choices))
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise InvalidRules(path, "must be true or false")
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRules(path, "must be a whole number")
        if "min" in meta and value < meta["min"]:
            raise InvalidRules(path, f"must be at least {meta['min']}")
        if "max" in meta and value > meta["max"]:
            raise InvalidRules(path, f"must be at most {meta['max']}")
        return value
    if origin is tuple:  # return_to_deck: ranks or cards
        if not isinstance(value, list | tuple):
            raise InvalidRules(path, "must be a list of ranks (J) or cards (7D)")
        if len(value) > meta["max_items"]:
            raise InvalidRules(path, f"must list at most {meta['max_items']} ranks or cards")
        return tuple(_rank_or_card(v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin is Mapping:  # scoring.cards
        if not isinstance(value, Mapping):
            raise InvalidRules(path, "must be a mapping of rank or card to points")
        if len(value) > len(RANKS) + 52:
            raise InvalidRules(path, "must name each rank or card at most once")
        table: dict[str, int] = {}
        for k, v in value.items():
            key = _rank_or_card(k, _join(path, str(k)[:8]))
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidRules(_join(path, key), "must be a whole number of points")
            if not 0 <= v <= CARD_POINTS_MAX:
                raise InvalidRules(_join(path, key), f"must be 0 to {CARD_POINTS_MAX} points")
            table[key] = v
        return _FrozenDict(table)
    raise TypeError(f"no loader for {hint!r}")  # pragma: no cover - a bug in this module


def _rank_or_card(value: object, path: str) -> str:
    text = str(value).strip().upper() if isinstance(value, str | int) else ""
    if text == "1":
        text = "A"
    if text and (is_rank(text) or (text[:-1] in RANKS and text[-1:] in SUITS)):
        return text
    raise InvalidRules(path, f"{value!r} is neither a rank (A 2-10 J Q K) nor a card (7D)")


def _check_whole(rules: Rules) -> Rules:
    dealt = rules.players * rules.hand_size + rules.floor_size
    if dealt > 52:
        raise InvalidRules(
            "hand_size", f"players x hand_size + floor_size is {dealt}, more than 52 cards"
        )
    return rules


def rules_from_mapping(data: Mapping[str, Any]) -> Rules:
    """Validate a full settings mapping (missing keys take RULES.md defaults)."""
    return _check_whole(_build(Rules, data, ""))


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` merged key by key onto ``base``; nested mappings merge too."""
    merged = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def with_house_rules(rules: Rules, overrides: Mapping[str, Any] | None) -> Rules:
    """``rules`` with a partial override deep-merged on, validated as a whole."""
    if not overrides:
        return rules
    if not isinstance(overrides, Mapping):
        raise InvalidRules("rules", "must be a mapping of settings")
    merged = deep_merge(rules.to_dict(), overrides)
    # scoring.cards is replaced, not merged, when a house rule names it
    scoring = overrides.get("scoring")
    if isinstance(scoring, Mapping) and "cards" in scoring:
        merged["scoring"]["cards"] = scoring["cards"]
    return rules_from_mapping(merged)


# --- variant files --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Variant:
    """A named rule set from ``variants/NAME.yaml``."""

    name: str
    description: str
    rules: Rules


def variants_dir() -> Path:
    """Where the variant files live: ``$BASRA_VARIANTS_DIR`` or the repo's ``variants/``."""
    env = os.environ.get("BASRA_VARIANTS_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "variants"


def _read_yaml(path: Path) -> dict[str, Any]:
    return _yaml_mapping(path.read_text(encoding="utf-8"), path.name)


def _yaml_mapping(text: str, filename: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidRules("", f"{filename} is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InvalidRules("", f"{filename} must hold a mapping of settings")
    return data


def parse_variant(name: str, data: Mapping[str, Any], directory: Path | None = None) -> Variant:
    """Build a variant from a file's mapping; ``extends: OTHER`` starts from OTHER."""
    data = dict(data)
    description = data.pop("description", "")
    if not isinstance(description, str):
        raise InvalidRules("description", "must be a string")
    parent = data.pop("extends", None)
    if parent is not None:
        if not isinstance(parent, str):
            raise InvalidRules("extends", "must be a variant name")
        base = load_variant(parent, directory).rules
        rules = with_house_rules(base, data)
    else:
        rules = rules_from_mapping(data)
    return Variant(name=name, description=description, rules=rules)


_LOADED: dict[tuple[Path, str, str], tuple[Variant, str | None, Rules | None]] = {}
"""(directory, name, file text) -> the variant, and the variant it extends with the
rules it had then."""
_LOADED_KEPT = 64


def load_variant(name: str, directory: Path | None = None) -> Variant:
    """Load and validate ``NAME.yaml`` from the variants directory.

    The file is read every time, but parsed and validated only when its text, or the
    variant it extends, changed since: about 2 ms of YAML a new match no longer pays."""
    directory = directory or variants_dir()
    if not name.replace("-", "").replace("_", "").isalnum():
        raise UnknownVariant(f"unknown variant {name!r}")
    path = directory / f"{name}.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        known = ", ".join(variant_names(directory))
        raise UnknownVariant(f"unknown variant {name!r} (known: {known})") from None
    key = (directory, name, text)
    loaded = _LOADED.get(key)
    if loaded is not None:
        variant, parent, base = loaded
        if parent is None or load_variant(parent, directory).rules is base:
            return variant
    data = _yaml_mapping(text, path.name)
    variant = parse_variant(name, data, directory)
    parent = data.get("extends")
    parent = parent if isinstance(parent, str) else None  # parse_variant checked it
    base = load_variant(parent, directory).rules if parent else None
    if len(_LOADED) >= _LOADED_KEPT:
        _LOADED.clear()
    _LOADED[key] = (variant, parent, base)
    return variant


def load_rules_file(path: str | Path) -> Rules:
    """Load a house-rule file: a variant file, usually ``extends:`` a shipped one."""
    path = Path(path)
    return parse_variant(path.stem, _read_yaml(path)).rules


def variant_names(directory: Path | None = None) -> list[str]:
    """The names of every shipped variant, sorted."""
    directory = directory or variants_dir()
    return sorted(p.stem for p in directory.glob("*.yaml"))


def all_variants(directory: Path | None = None) -> list[Variant]:
    """Every shipped variant, loaded and validated."""
    return [load_variant(n, directory) for n in variant_names(directory)]
