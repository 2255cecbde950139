"""A tournament's results: a game's, written as its match ends (a subscriber to every
match change), and the tournament's end, its final standings kept and announced."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..events import publish
from ..matches.changes import MatchChanged
from ..matches.enums import MatchStatus
from ..storage.writes import Rows
from . import purse
from .enums import PairingStatus, TournamentStatus
from .models import Pairing, Tournament
from .standings import Loaded, names_of, standing_row, standings_of


def result_of(status: str, winner: int | None, draw: bool,
            players: Sequence[str | None]) -> dict[str, Any]:
    """A game's result from its ended match's: the winning seat's player, or a draw; void
    if the match was aborted."""
    finished = status == MatchStatus.FINISHED
    return {"status": PairingStatus.FINISHED if finished else PairingStatus.VOID,
            "draw": finished and draw,
            "winner": players[winner] if finished and not draw and winner is not None else None}


def results(change: MatchChanged) -> list[Rows]:
    """A tournament game's result, written as its match ends (a subscriber to every match
    change). A game the arena's end voided already stays void; a match voided by its
    front end voids its game (its points no longer count)."""
    match = change.match
    if change.voided:
        return [Rows(Pairing.__table__, ({"match_pk": match.pk, "status": PairingStatus.VOID},),
                     key=("match_pk",), where=(("status", PairingStatus.FINISHED),))]
    if not change.ended:
        return []
    ended = result_of(match.status, match.winner, match.draw, [s.player_id for s in match.seats])
    return [Rows(Pairing.__table__, ({"match_pk": match.pk, **ended,
                                      "finished_at": match.updated_at},),
                 key=("match_pk",), where=(("status", PairingStatus.PLAYING),))]


def announce(t: Tournament, kind: str, data: dict[str, Any],
             personal: dict[str, dict[str, Any]]) -> None:
    """A tournament event: the front end's webhooks, and each named player's stream."""
    publish(t.tenant_pk, kind, {"tournament_id": t.id, **data},
            {player: {"tournament_id": t.id, **mine} for player, mine in personal.items()})


def end(t: Tournament, now: datetime, status: TournamentStatus, loaded: Loaded) -> None:
    """Finish (or cancel) the tournament, its final standings kept and announced; its
    entry fees paid out as prizes (or given back), in the same transaction."""
    t.status, t.finished_at = status, now
    final = standings_of(t, loaded) if status == TournamentStatus.FINISHED else []
    names = names_of(loaded)
    t.standings = [standing_row(s, names) for s in final]
    t.payouts = purse.close(t, status, final, now)
    places = {s.player_id: s for s in final}
    announce(t, "tournament.finished", {"status": status, "standings": t.standings,
                                         "names": names}, {
        e.player_id: {"status": status,
                      "rank": places[e.player_id].rank if e.player_id in places else None,
                      "points": places[e.player_id].points if e.player_id in places else None,
                      **({"prize": t.payouts.get(e.player_id, 0)} if t.payouts is not None
                         else {})}
        for e in loaded.entrants})
