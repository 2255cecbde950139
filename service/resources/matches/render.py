"""The hot responses, a seat's view and a move's answer, rendered by hand.

Every view a client reads or a move answers goes through here, so it skips
marshmallow's field-by-field dump (a fifth of a move's time in the server). The
schemas stay the contract: their fields are the OpenAPI document and their
``dump`` calls these functions; ``tests/api/test_render.py`` holds the two equal.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from ...engine import Play, Rules
from ...views import MatchView, MoveResult


@lru_cache(maxsize=64)
def _rules(rules: Rules) -> dict[str, Any]:
    # shared by every response on these rules: rendered to JSON, never changed
    return rules.to_dict()


def _moment(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()


def play(p: Play | None) -> dict[str, Any] | None:
    """A play (PlaySchema)."""
    if p is None:
        return None
    return {"round": p.round, "seat": p.seat, "card": str(p.card),
            "captured": [str(c) for c in p.captured], "basra": p.basra}


def match_state(m: MatchView) -> dict[str, Any]:
    """A seat's (or a spectator's) view (MatchStateSchema)."""
    v = m.view
    data: dict[str, Any] = {
        "id": m.id,
        "variant": m.variant,
        "rules": _rules(v.rules),
        "rules_hash": v.rules.content_hash,
        "status": m.status,
        "version": m.version,
        "seat": v.seat,
        "round": v.round,
        "dealer": v.dealer,
        "turn": v.turn,
        "floor": [str(c) for c in v.floor],
    }
    if v.seat is not None:
        data["hand"] = [str(c) for c in v.hand]
    data.update({
        "hand_counts": list(v.hand_counts),
        "stock_count": v.stock_count,
        "pile_counts": [len(p) for p in v.piles],
        "basras": list(v.basras),
        "jack_basras": list(v.jack_basras),
        "scores": list(v.scores),
        "carried": v.carry,
        "rounds": [{"round": r.round, "cards": list(r.cards), "basras": list(r.basras),
                    "jack_basras": list(r.jack_basras), "card_points": list(r.card_points),
                    "points": list(r.points), "carried": r.carried} for r in v.results],
        "legal_moves": [{"card": str(mv.card), "capture": [str(c) for c in mv.capture or ()]}
                        for mv in v.legal_moves],
        "last_move": play(v.last_play),
        "winner": v.winner,
        "draw": v.draw,
        "seats": [{"seat": s.seat, "team": s.team, "name": s.name, "open": s.open,
                   "player_id": s.player_id, "bot": s.bot} for s in m.seats],
        "commitment": m.commitment,
        "explicit_decks": m.explicit_decks,
        "seed": m.seed,
        "end_reason": m.end_reason,
        "rematch": m.rematch,
        "clock": None if m.clock is None else {
            "move_seconds": m.clock["move_seconds"], "timeout": m.clock["timeout"]},
        "deadline": _moment(m.deadline),
        "created_at": _moment(m.created_at),
    })
    return data


def move_result(r: MoveResult) -> dict[str, Any]:
    """A move's (or a resignation's) answer (MoveResponseSchema)."""
    return {"move": play(r.move), "replies": [play(p) for p in r.replies],
            "state": match_state(r.state)}
