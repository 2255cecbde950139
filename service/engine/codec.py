"""State <-> plain JSON data, for snapshots. Pure: no storage code here.

The rules are kept apart from the snapshot (they never change during a
match). Decoding validates them once per distinct rule set: the decoded Rules
object is shared, so capture caches stay warm across requests.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any, cast

from .captures import BasraKind
from .cards import Card, format_cards, parse_card, parse_cards
from .game import Move, Play, RoundResult, State
from .rules import Rules, rules_from_mapping

_RULES_CACHE: OrderedDict[str, Rules] = OrderedDict()


def rules_from_json(data: dict[str, Any], key: str | None = None) -> Rules:
    """Validated Rules from their dict, memoised by ``key`` (their content hash) or, without
    one, by their canonical JSON."""
    key = key or json.dumps(data, sort_keys=True, separators=(",", ":"))
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = rules_from_mapping(data)
        _RULES_CACHE[key] = rules
        if len(_RULES_CACHE) > 256:
            _RULES_CACHE.popitem(last=False)
    return rules


def _cards(cards: tuple[Card, ...]) -> list[str]:
    return format_cards(cards)


def play_to_dict(play: Play) -> dict[str, Any]:
    """A play as JSON data."""
    return {
        "round": play.round,
        "seat": play.seat,
        "card": str(play.card),
        "captured": _cards(play.captured),
        "basra": play.basra,
    }


def play_from_dict(data: dict[str, Any]) -> Play:
    """The inverse of :func:`play_to_dict`."""
    return play_from_parts(
        data["round"], data["seat"], data["card"], data["captured"], data["basra"]
    )


def play_from_parts(
    round_number: int, seat: int, card: str, captured: list[str], basra: str | None
) -> Play:
    """A play from its stored parts (cards in RULES.md notation)."""
    if basra not in (None, "basra", "jack_basra"):
        raise ValueError(f"not a kind of basra: {basra!r}")
    kind = cast("BasraKind | None", basra)
    return Play(round_number, seat, parse_card(card), parse_cards(captured), kind)


def result_to_dict(r: RoundResult) -> dict[str, Any]:
    """A round's score sheet as JSON data."""
    return {
        "round": r.round,
        "cards": list(r.cards),
        "basras": list(r.basras),
        "jack_basras": list(r.jack_basras),
        "card_points": list(r.card_points),
        "points": list(r.points),
        "carried": r.carried,
    }


def result_from_dict(d: dict[str, Any]) -> RoundResult:
    """The inverse of :func:`result_to_dict`."""
    return RoundResult(
        d["round"], tuple(d["cards"]), tuple(d["basras"]), tuple(d["jack_basras"]),
        tuple(d["card_points"]), tuple(d["points"]), d["carried"],
    )


def state_to_dict(state: State) -> dict[str, Any]:
    """Everything in a state but its rules (secret parts included) as JSON data."""
    return {
        "seed": state.seed.hex(),
        "decks": [_cards(d) for d in state.decks],
        "round": state.round,
        "dealer": state.dealer,
        "turn": state.turn,
        "hands": [_cards(h) for h in state.hands],
        "floor": _cards(state.floor),
        "stock": _cards(state.stock),
        "piles": [_cards(p) for p in state.piles],
        "basras": list(state.basras),
        "jack_basras": list(state.jack_basras),
        "last_capturer": state.last_capturer,
        "scores": list(state.scores),
        "carry": state.carry,
        "results": [result_to_dict(r) for r in state.results],
        "ply": state.ply,
        "last_play": play_to_dict(state.last_play) if state.last_play else None,
        "finished": state.finished,
        "winner": state.winner,
        "draw": state.draw,
        "deal_plays": [play_to_dict(p) for p in state.deal_plays],
    }


def state_from_dict(d: dict[str, Any], rules: Rules) -> State:
    """The inverse of :func:`state_to_dict`, given the match's rules (keys it does not
    know, such as the ``resigned`` of older snapshots, are ignored; a snapshot from
    before ``deal_plays`` was kept has none)."""
    return State(
        rules=rules,
        seed=bytes.fromhex(d["seed"]),
        decks=tuple(parse_cards(x) for x in d["decks"]),
        round=d["round"],
        dealer=d["dealer"],
        turn=d["turn"],
        hands=tuple(parse_cards(h) for h in d["hands"]),
        floor=parse_cards(d["floor"]),
        stock=parse_cards(d["stock"]),
        piles=tuple(parse_cards(p) for p in d["piles"]),
        basras=tuple(d["basras"]),
        jack_basras=tuple(d["jack_basras"]),
        last_capturer=d["last_capturer"],
        scores=tuple(d["scores"]),
        carry=d["carry"],
        results=tuple(result_from_dict(r) for r in d["results"]),
        ply=d["ply"],
        last_play=play_from_dict(d["last_play"]) if d["last_play"] else None,
        finished=d["finished"],
        winner=d["winner"],
        draw=d["draw"],
        deal_plays=tuple(play_from_dict(p) for p in d.get("deal_plays", ())),
    )


def move_from_parts(seat: int, card: str, capture: list[str] | None) -> Move:
    """A move from its stored parts."""
    return Move(seat, parse_card(card), None if capture is None else parse_cards(capture))
