"""Table chat: a seated player (or, where the front end allows it, a player watching)
says a fixed phrase or, where the front end allows it, a text, filtered
(:mod:`.phrases`). Lines are kept with the match (a report's evidence), reach the match
streams of its seats as ``chat`` events and its chat long polls, never reach a player
who blocked the speaker, and are limited: ``BASRA_CHAT_LINES_PER_MINUTE`` a speaker,
``BASRA_CHAT_LINES_PER_MATCH`` a match. A table's chat stays open
``BASRA_CHAT_AFTER_END_SECONDS`` after its match ends (time for a "gg").
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..errors import InvalidToken, MissingToken
from ..events import Published, told
from ..live import listener, waiters
from ..live.listener import CHANNEL, payload
from ..players import blocks
from ..players.service import Credential, PlayerProof
from ..settings import Settings
from ..storage import writes
from ..storage.base import utcnow
from ..storage.db import db, transaction
from ..tenants import audit
from . import chat_store, store
from .enums import ChatMode
from .errors import (
    ChatClosed,
    ChatFull,
    ChatOff,
    ChatTextOff,
    ChatTooFast,
    NotAtTable,
    UnknownPhrase,
)
from .models import ChatLine
from .phrases import BY_ID, clean_words, masked, word_list
from .rows import ChatLineRow, ChatReader, MatchRow, chat_key
from .seats import Viewer, acting_seat, require_seat, spectates

WORDS_MAX = 500
"""Words a front end may add to the filter."""


@dataclass(frozen=True)
class ChatRules:
    """A front end's table chat: what may be said, whether players watching may chat
    (and read it), the words it adds to the filter."""

    mode: ChatMode = ChatMode.PHRASES
    spectators: bool = False
    words: tuple[str, ...] = ()


def rules_of(tenant: int) -> ChatRules:
    """The front end's chat settings (the defaults until it sets them)."""
    with transaction():
        kept = chat_store.chat_settings(tenant)
    return ChatRules(ChatMode(kept.mode), kept.spectators, tuple(kept.words)) if kept \
        else ChatRules()


def set_rules(tenant: int, rules: ChatRules, actor: str) -> ChatRules:
    """Keep the front end's chat settings, recorded in the audit log."""
    words = clean_words(rules.words)
    with transaction(write=True):
        chat_store.keep_chat_settings(tenant, rules.mode, rules.spectators, list(words))
        audit.record(tenant, actor, "chat.settings", "chat", mode=rules.mode,
                     spectators=rules.spectators, words=len(words))
    return ChatRules(rules.mode, rules.spectators, words)


def _speaker(match: MatchRow, token: Credential | None,
             rules: ChatRules) -> tuple[int | None, str | None, str]:
    """(seat or None for a spectator, player id if vouched, name) of who speaks."""
    if not token:
        raise MissingToken("send a seat token or a player token as 'Authorization: Bearer "
                           "<token>'")
    try:
        seat = acting_seat(match, token)
    except InvalidToken:
        if not isinstance(token, PlayerProof):
            raise
        if not rules.spectators or _sealed_to(match, token.player_id):
            raise NotAtTable("only the players seated at this table may chat here") from None
        return None, token.player_id, token.name or token.player_id
    held = match.seats[seat]
    return seat, held.player_id if held.vouched else None, held.name or f"seat {seat}"


def say(match_id: str, tenant: int, token: Credential | None, phrase: str | None,
        text: str | None, *, settings: Settings) -> ChatLineRow:
    """Say a phrase (its id) or a text at the match's table: the line as kept."""
    rules = rules_of(tenant)
    if rules.mode == ChatMode.OFF:
        raise ChatOff("this front end has turned table chat off")
    if text is not None and rules.mode != ChatMode.TEXT:
        raise ChatTextOff("this front end's tables take the fixed phrases only "
                          "(GET /v1/chat/phrases)", field="text")
    if phrase is not None and phrase not in BY_ID:
        raise UnknownPhrase(f"no phrase {phrase!r} (GET /v1/chat/phrases lists them)",
                            field="phrase")
    said, filtered = masked(text, word_list(rules.words)) if text is not None else (None, False)
    now = utcnow()
    with transaction(write=True):
        match, _ = store.read(match_id, tenant, lock=True)  # the caps hold under races
        if match.status.over and not open_after_end(match.finished_at, now, settings):
            raise ChatClosed(f"the match is over: its chat closes "
                             f"{settings.chat_after_end_seconds} s after its end")
        seat, player_id, name = _speaker(match, token, rules)
        recent, total = chat_store.chat_said(match.pk, player_id, seat, now - timedelta(minutes=1))
        check_room(recent, total, settings)
        line = ChatLine(match_pk=match.pk, seat=seat, player_id=player_id, name=name,
                        phrase=phrase, text=said, filtered=filtered, created_at=now)
        db.session.add(line)
        db.session.flush()
        kept = ChatLineRow(line.pk, seat, player_id, name, phrase, said, filtered, now)
        writes.write(told(tenant, [Published("chat", {"match_id": match.id, **event(kept)})]),
                     CHANNEL, [payload(chat_key(match.pk), line.pk)])
    return kept


def open_after_end(finished_at: datetime | None, now: datetime, settings: Settings) -> bool:
    """Whether a match that is over (at ``finished_at``) still takes lines: within the
    window after its end."""
    window = timedelta(seconds=settings.chat_after_end_seconds)
    return finished_at is not None and now - finished_at <= window


def check_room(recent: int, total: int, settings: Settings) -> None:
    """A speaker who said ``recent`` lines in the last minute at a match holding ``total``
    may say one more, or :class:`ChatFull` / :class:`ChatTooFast`."""
    if total >= settings.chat_lines_per_match:
        raise ChatFull(f"a match holds {total} lines at most")
    if recent >= settings.chat_lines_per_minute:
        raise ChatTooFast(f"at most {recent} lines a minute", retry_after=60)


def event(line: ChatLineRow) -> dict[str, object]:
    """A line as the ``chat`` events and the webhook tell it."""
    return {"id": line.id, "seat": line.seat, "player_id": line.player_id, "name": line.name,
            "phrase": line.phrase, "text": line.text, "filtered": line.filtered,
            "at": line.at.isoformat().replace("+00:00", "Z")}


def reader(match_id: str, tenant: int, token: Credential | None,
           server: bool) -> ChatReader | None:
    """Who may read the match's chat: a seat, a player watching where the front end
    lets spectators chat, the server key (support reads every line); None for others."""
    with transaction():
        match, _ = store.read(match_id, tenant)
        player: str | None = None
        if token:
            try:
                seat = require_seat(match.seat_keys, token)
                held = match.seats[seat]
                player = held.player_id if held.vouched else None
            except InvalidToken:
                if not isinstance(token, PlayerProof) or not _spectators(tenant) \
                        or _sealed_to(match, token.player_id):
                    return None
                player = token.player_id
        elif not server:
            return None
        blocked = blocks.blocked_by(tenant, player) if player else frozenset()
    return ChatReader(match.pk, blocked)


def _sealed_to(match: MatchRow, player_id: str) -> bool:
    """Whether a player watching is kept out of the table's chat: it is sealed (a
    duplicate round's table while the round goes on), by the rule of its view."""
    return spectates(match.sealed, (), Viewer(player_id=player_id))


def _spectators(tenant: int) -> bool:
    kept = chat_store.chat_settings(tenant)
    return bool(kept and kept.spectators and kept.mode != ChatMode.OFF)


def lines(found: ChatReader, after: int, limit: int, wait: float,
          client: str, *, settings: Settings) -> tuple[list[ChatLineRow], int]:
    """The lines the reader sees after ``after`` (at most ``limit`` read), waiting up to
    ``wait`` seconds (capped by BASRA_MAX_WAIT) for one; and the ``after`` to send
    next."""
    deadline = time.monotonic() + min(wait, settings.max_wait)
    parked = False
    with ExitStack() as stack:
        while True:
            heard = listener.heard(found.key)  # before the read: a later line wakes the wait
            with transaction():
                read = chat_store.chat_lines(found.match_pk, after, limit)
            if read:
                after = read[-1].id
            shown = [line for line in read if found.sees(line)]
            left = deadline - time.monotonic()
            if shown or len(read) == limit or left <= 0:
                return shown, after
            if not parked:  # the first wait takes a parking place, the last gives it back
                stack.enter_context(waiters.parked(client, settings))
                parked = True
            listener.wait_for_key(found.key, heard, left, settings.poll_interval)
