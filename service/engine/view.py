"""What one seat (or a spectator) may see of a match: the per-player observer.

Bots and the web layer only ever get a :class:`SeatView`; it never holds
another seat's hand, the stock order or the seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import DECK, Card
from .game import Move, Play, RoundResult, State, legal_moves
from .rules import Rules


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public state of a match plus, for a seat, its own hand and legal moves."""

    rules: Rules
    seat: int | None
    round: int
    dealer: int
    turn: int | None
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    floor: tuple[Card, ...]
    stock_count: int
    piles: tuple[tuple[Card, ...], ...]
    """Each team's captured cards: public, since every capture is seen by all."""
    basras: tuple[int, ...]
    jack_basras: tuple[int, ...]
    last_capturer: int | None
    """The team that captured last this round (it takes the leftovers)."""
    scores: tuple[int, ...]
    carry: int
    results: tuple[RoundResult, ...]
    last_play: Play | None
    deal_plays: tuple[Play, ...]
    """The plays since this deal's cards were dealt, in order (everyone saw them)."""
    legal_moves: tuple[Move, ...]
    finished: bool
    winner: int | None
    draw: bool
    ply: int

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.rules.players

    def unseen(self) -> frozenset[Card]:
        """Cards this seat cannot see: other hands and the stock, in some order."""
        known = set(self.hand) | set(self.floor)
        for p in self.piles:
            known.update(p)
        return frozenset(DECK) - known


def observe(state: State, seat: int | None = None) -> SeatView:
    """The view of ``seat`` (None: a spectator, who sees no hand)."""
    mine = seat is not None and 0 <= seat < state.rules.players
    return SeatView(
        rules=state.rules,
        seat=seat if mine else None,
        round=state.round,
        dealer=state.dealer,
        turn=state.turn,
        hand=state.hands[seat] if mine and seat is not None else (),
        hand_counts=tuple(len(h) for h in state.hands),
        floor=state.floor,
        stock_count=len(state.stock),
        piles=state.piles,
        basras=state.basras,
        jack_basras=state.jack_basras,
        last_capturer=state.last_capturer,
        scores=state.scores,
        carry=state.carry,
        results=state.results,
        last_play=state.last_play,
        deal_plays=state.deal_plays,
        legal_moves=legal_moves(state) if mine and state.turn == seat else (),
        finished=state.finished,
        winner=state.winner,
        draw=state.draw,
        ply=state.ply,
    )
