"""A stand-in bot keeps a dropped seat. The front end says a player dropped
(:func:`drop_seat`), or the seat's clock runs out under the ``bot`` timeout: the match's
stand-in level then plays the seat's turns as they come, each play marked in the log,
until the player comes back (:func:`come_back`, with the seat's token). The seat's
result stays its player's, as if they had played: a rated match stays rated. The last
human seat still played by its player is never dropped: nobody would be left to play
against, so its clock decides (autoplay)."""

from __future__ import annotations

import dataclasses

from ..engine import State
from ..players.service import Credential
from ..storage.db import transaction
from . import cache, changes, store
from .changes import Change
from .enums import MatchStatus, MoveKind
from .errors import CannotDrop
from .replies import bots_play
from .results import MatchView, match_view
from .rows import MatchRow
from .seats import acting_seat


def can_keep(match: MatchRow, seat: int) -> str | None:
    """Why the stand-in cannot keep the seat (None: it can)."""
    if not 0 <= seat < len(match.seats):
        return f"the match has no seat {seat}"
    held = match.seats[seat]
    if held.bot is not None:
        return f"seat {seat} is a bot's"
    if held.open:
        return f"seat {seat} is open"
    present = [s.seat for s in match.seats
               if s.bot is None and not s.open and s.seat not in match.dropped]
    if present == [seat]:
        return f"seat {seat} is the last seat its player still plays"
    return None


def keep(match: MatchRow, state: State, seat: int, *,
         worker: bool = False) -> tuple[MatchRow, State]:
    """Drop the seat of a locked, active match: logged, and the bots (its stand-in
    now among them) play while it is theirs."""
    dropped = tuple(sorted({*match.dropped, seat}))
    keeping = dataclasses.replace(match, dropped=dropped)
    entries = [changes.log(MoveKind.DROP, seat, state)]
    state, plays = bots_play(state, keeping.bots, match.tenant, worker=worker)
    saved = changes.save(match, state, Change([*entries, *keeping.logged(plays)], dropped=dropped))
    return saved, state


def drop_seat(match_id: str, tenant: int, seat: int) -> MatchView:
    """The front end says the seat's player dropped: the stand-in keeps the seat (again:
    nothing more); the spectator's view."""
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        if match.status != MatchStatus.ACTIVE:
            raise CannotDrop(f"the match is {match.status}: only a match in play has seats "
                             "to keep")
        if seat not in match.dropped:
            why = can_keep(match, seat)
            if why is not None:
                raise CannotDrop(why)
            match, state = keep(match, state, seat)
    cache.written.drop((tenant, match_id))
    return match_view(match, state, None)


def come_back(match_id: str, tenant: int, token: Credential | None) -> MatchView:
    """The token's seat's player is back: the stand-in stops keeping the seat (nothing
    more if it did not, or the match is over); the seat's view."""
    with transaction(write=True):
        match, state = store.read(match_id, tenant, lock=True)
        seat = acting_seat(match, token)
        if seat in match.dropped and match.status == MatchStatus.ACTIVE:
            match = changes.save(match, state, Change(
                [changes.log(MoveKind.BACK, seat, state)],
                dropped=tuple(s for s in match.dropped if s != seat)))
    cache.written.drop((tenant, match_id))
    return match_view(match, state, seat)
