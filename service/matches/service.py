"""The matches' use cases as the other domains call them (``from ..matches import service
as matches``): the lobby, social and tournaments create matches, safety ends and erases,
reviews and tournaments read what a match holds. Each use case lives in the room of its
job (:mod:`.creating`, :mod:`.moving`, :mod:`.endings`, :mod:`.records`); this module
only names them for the callers outside, so a room can change without them, and the
matches' own routes call the rooms directly (a move's walk gets no extra hop)."""

from __future__ import annotations

from .creating import CreatedMatch, check_ratable, deal_match, insert_match
from .endings import call_off, forfeit_player, unseal, void_match
from .records import (
    MatchRecord,
    chat_said_by,
    ended_of,
    ended_rated_or_staked,
    finished_match,
    games_of,
    match_history,
    match_ids,
    match_pk,
    match_record,
    played,
    player_matches,
    playing_in,
    pseudonymize,
    states_of,
)
from .retention import keep
from .rows import Stake
from .stakes import check_stakeable
from .stakes import won_by as coins_won

__all__ = [
    "CreatedMatch", "MatchRecord", "Stake", "call_off", "chat_said_by", "check_ratable",
    "check_stakeable", "coins_won", "deal_match", "ended_of", "ended_rated_or_staked",
    "finished_match", "forfeit_player", "games_of", "insert_match", "keep", "match_history",
    "match_ids", "match_pk", "match_record", "played", "player_matches", "playing_in",
    "pseudonymize", "states_of", "unseal", "void_match",
]
