"""Creating a match: the variant's rules checked, the match dealt (and the leading bots'
plays made) before any lock, then stored with its first change; a create with an
Idempotency-Key answered again with the match it made."""

from __future__ import annotations

import hmac
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine import (
    Card,
    Play,
    Rules,
    State,
    commitment,
    load_variant,
    new_match,
    new_seed,
    with_house_rules,
)
from ..engine.bots import LADDER, POLICIES
from ..players import service as players
from ..settings import Settings
from ..storage.db import transaction
from . import changes, idempotency, saves, stakes, store
from .changes import Change
from .conditions import idempotency_since
from .enums import ClockTimeout, MatchStatus
from .errors import (
    IdempotencyKeyReused,
    NoHumanSeat,
    RatedNeedsPlayers,
    RatedNeedsShuffle,
    StandInTooStrong,
    WrongPlayerCount,
)
from .replies import bots_play
from .results import SPECTATOR_DELAY, MatchView, match_view
from .rows import LogEntry, MatchRow, Stake
from .seats import (
    Minter,
    NewSeat,
    PlayerSpec,
    SeatToken,
    derived_minter,
    distinct_vouched,
    new_seats,
    token_check,
)

BOT_LEVELS = tuple(POLICIES)


RATED_STAND_INS = LADDER[:LADDER.index("greedy") + 1]
"""The stand-ins a rated match may name: none stronger than greedy."""


@dataclass(frozen=True)
class CreatedMatch:
    """A new match: the spectator view and every seat's token."""

    id: str
    seats: tuple[SeatToken, ...]
    commitment: str
    state: MatchView


def _rules_for(variant: str, overrides: Mapping[str, Any] | None, players: int) -> Rules:
    rules = with_house_rules(load_variant(variant).rules, overrides)
    if players != rules.players:
        raise WrongPlayerCount(
            f"{variant} with these rules is for {rules.players} players, got {players}",
            field="players", problem=f"must list {rules.players} players",
        )
    return rules


@dataclass(frozen=True)
class NewMatch:
    """A match worked out before it is stored: seeded, dealt, and (unless a seat is open)
    with the moves of bots that lead already played."""

    variant: str
    initial: State
    state: State
    plays: list[Play]
    seats: list[NewSeat]
    tokens: list[SeatToken]
    waiting: bool
    explicit_decks: bool


def deal_match(variant: str, rules: Rules, players: Sequence[PlayerSpec],
               decks: Sequence[Sequence[Card]] | None = None, *, tenant: int,
               mint: Minter | None = None, seed: bytes | None = None) -> NewMatch:
    """Work out a new match of ``tenant`` for these players; pure but for the seed (a new
    one, unless ``seed``: a duplicate round's, which all its tables share), the tokens
    (``mint``: how they are made, random by default) and the bots' bill, so it runs
    before any lock is taken."""
    initial = new_match(rules, seed or new_seed(), decks or ())
    seats, tokens = new_seats(players, mint) if mint else new_seats(players)
    waiting = any(p.open for p in players)
    state, plays = initial, []
    if not waiting:
        bots = {i: p.bot for i, p in enumerate(players) if p.bot}
        state, plays = bots_play(initial, bots, tenant)
    return NewMatch(variant, initial, state, plays, seats, tokens, waiting, bool(decks))


def insert_match(new: NewMatch, tenant: int, *, quick: bool = False,
                 clock: tuple[int, str] | None = None, rated: bool = False,
                 tournament_game: bool = False, stand_in: str | None = None,
                 spectator_delay: int | None = None, sealed: bool = False,
                 stake: Stake | None = None, settings: Settings) -> MatchRow:
    """Store a worked-out match in the caller's write transaction (NOTIFYed on commit). A
    rated match asked without a clock gets ``BASRA_RATED_MOVE_SECONDS`` (autoplay): a
    loser cannot stall it for ever. Spectators of a rated or tournament match lag
    :data:`~.SPECTATOR_DELAY` plays behind unless ``spectator_delay`` says. A ``stake``
    (its currency and amount) is priced now (the front end's rake kept with the table)
    and every seated player holds it (:mod:`.stakes`: the transaction is refused, and
    nothing made, when one cannot)."""
    if stake is not None:
        stakes.check_stakeable_seats([PlayerSpec(s.name, s.player_id, s.bot, vouched=s.vouched,
                                       open=s.name is None and s.bot is None)
                            for s in new.seats])
        stake = stakes.priced(tenant, stake.currency, stake.amount)
    if spectator_delay is None:
        spectator_delay = SPECTATOR_DELAY if rated or tournament_game else 0
    if rated and clock is None:
        clock = (settings.rated_move_seconds, ClockTimeout.AUTOPLAY)
    match = saves.create(
        str(uuid.uuid4()), tenant, new.variant, new.initial, new.seats,
        commitment(new.initial.seed), new.explicit_decks,
        status=MatchStatus.WAITING if new.waiting else MatchStatus.ACTIVE, quick=quick,
        clock=(clock[0], ClockTimeout(clock[1])) if clock else None, rated=rated,
        tournament_game=tournament_game, stand_in=stand_in, spectator_delay=spectator_delay,
        sealed=sealed, stake=stake)
    for seat in new.seats:
        if seat.vouched and seat.player_id is not None:
            players.remember(tenant, seat.player_id, seat.name)
    for _, player_id in match.holders:  # after a new player's starting grant
        stakes.hold(match, player_id)
    changes.created(match)
    if new.plays:
        match = changes.save(match, new.state, Change([LogEntry.of(p) for p in new.plays]))
    return match


@dataclass(frozen=True)
class CreateKey:
    """A create's Idempotency-Key: the key, who sent it within the front end (a digest
    of the player, API key or visitor) and the request body's fingerprint."""

    key: str
    caller: str
    fingerprint: str


def create_match(tenant: int, variant: str, overrides: Mapping[str, Any] | None,
                 players: Sequence[PlayerSpec], decks: Sequence[Sequence[Card]] | None, *,
                 clock: tuple[int, str] | None = None, rated: bool = False,
                 viewer: str | None = None, keyed: CreateKey | None = None,
                 stand_in: str | None = None,
                 spectator_delay: int | None = None, stake: Stake | None = None,
                 settings: Settings) -> CreatedMatch:
    """Create a tenant's match; bot seats that lead play at once. With an open seat it
    waits (``waiting``) and deals when the last seat fills. A ``rated`` match takes
    distinct vouched players (open seats are filled by such players). The answer's view
    is the seat of the vouched player ``viewer`` (the creator's, when seated), else a
    spectator's. With ``keyed``, a retry of the caller's create (the same key and body,
    within ``BASRA_IDEMPOTENCY_HOURS``) is answered the match that it made, its tokens
    again; the key with another body is :class:`IdempotencyKeyReused`. A ``stake`` seats
    distinct vouched players only, each holding it as the match is made."""
    if keyed is not None:
        earlier = _created_before(tenant, keyed, viewer, settings)
        if earlier is not None:
            return earlier
    rules = _rules_for(variant, overrides, len(players))
    if all(p.bot for p in players):
        raise NoHumanSeat(
            "a match needs at least one human seat",
            field="players", problem="at least one player must not be a bot",
        )
    if rated and decks:
        raise RatedNeedsShuffle("a rated match is dealt from the service's shuffle: explicit "
                                "decks (whose creator knows every card) are for unrated "
                                "matches", field="decks", problem="not with rated")
    if rated and stand_in is not None and stand_in not in RATED_STAND_INS:
        raise StandInTooStrong(
            f"a rated match's stand-in is at most greedy ({', '.join(RATED_STAND_INS)}): "
            "leaving a seat must never play it better", field="stand_in",
            problem=f"must be one of {', '.join(RATED_STAND_INS)} in a rated match")
    if rated:
        seated: list[str] = []
        for i, p in enumerate(players):
            if not p.open:
                check_ratable(p, seated, f"players[{i}]")
                assert p.player_id is not None
                seated.append(p.player_id)
    if stake is not None:
        stakes.check_stakeable_seats(players)
    secret, salt = settings.secret_key, secrets.token_hex(32)
    new = deal_match(variant, rules, players, decks, tenant=tenant,
                     mint=derived_minter(secret, salt) if keyed else None)
    try:
        with transaction(write=True):
            match = insert_match(new, tenant, clock=clock, rated=rated, stand_in=stand_in,
                                 spectator_delay=spectator_delay, stake=stake,
                                 settings=settings)
            if keyed is not None and not idempotency.remember_create(
                    tenant, keyed.caller, keyed.key,
                    idempotency.CreateRecord(keyed.fingerprint, match.id, salt,
                                       token_check(secret, salt)),
                    match.pk, idempotency_since(settings)):
                raise _KeyTaken()
    except _KeyTaken:
        # a concurrent create with the key made its match first (its record committed
        # before this one's insert returned): this one is rolled back, that one answers
        assert keyed is not None
        earlier = _created_before(tenant, keyed, viewer, settings)
        assert earlier is not None
        return earlier
    view = match_view(match, new.state, _seat_of_player(match, viewer))
    return CreatedMatch(match.id, tuple(new.tokens), view.commitment, view)


class _KeyTaken(Exception):
    """A create's Idempotency-Key was recorded meanwhile: roll its match back."""


def _seat_of_player(match: MatchRow, player_id: str | None) -> int | None:
    """The seat of the vouched player (None: not seated, or no player)."""
    if player_id is None:
        return None
    return next((seat for seat, player in match.vouched if player == player_id), None)


def _created_before(tenant: int, keyed: CreateKey, viewer: str | None,
                    settings: Settings) -> CreatedMatch | None:
    """The answer again to a retried create (its match as it is now, its seats' tokens
    derived again); None if the key is new (or expired)."""
    with transaction():
        earlier = idempotency.find_create(tenant, keyed.caller, keyed.key,
                                          idempotency_since(settings))
        if earlier is None:
            return None
        if not hmac.compare_digest(earlier.fingerprint, keyed.fingerprint):
            raise IdempotencyKeyReused("this Idempotency-Key was used for a different request")
        match, state = store.read(earlier.match_id, tenant)
    secret = settings.secret_key
    if not hmac.compare_digest(earlier.token_check, token_check(secret, earlier.salt)):
        raise IdempotencyKeyReused("this Idempotency-Key's match was made under another "
                                   "secret key (BASRA_SECRET_KEY changed): its tokens cannot "
                                   "be shown again")
    mint = derived_minter(secret, earlier.salt)
    tokens = []
    for seat in match.seats:
        token, token_hash = mint(seat.seat)
        mine = seat.token_hash is not None and hmac.compare_digest(seat.token_hash, token_hash)
        tokens.append(SeatToken(seat.seat, seat.name, token if mine else None,
                                open=seat.name is None and seat.bot is None, bot=seat.bot,
                                player_id=seat.player_id))
    view = match_view(match, state, _seat_of_player(match, viewer))
    return CreatedMatch(match.id, tuple(tokens), view.commitment, view)


def check_ratable(who: PlayerSpec, seated: Sequence[str], field: str) -> None:
    """A seat of a rated match: a vouched player not seated there already (no bot, no
    anonymous seat), else :class:`RatedNeedsPlayers`."""
    why = distinct_vouched(who, seated, "a rated match")
    if why is not None:
        raise RatedNeedsPlayers(why, field=field, problem=why)
