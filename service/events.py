"""The one door events leave by, and every event the service tells, declared once: its
kind, where it goes (the front end's webhooks, the players' own streams), and its
payload's shape, field by field, with which fields hold player ids, display names and a
player's own words.

A domain publishes an event, ``(tenant, kind, data, to players)``, with :func:`publish`
(or asks :func:`told` for the rows, to write them with a change of its own, as a match
change does); the door checks it against its declaration and refuses one that is not
declared, or that carries a field its shape does not list. The subscribers the
composition root wired (:func:`wire`: the webhooks' outbox, the players' streams) answer
with the rows of their own tables, written in the publisher's transaction: a rolled-back
change tells nothing. An erasure rewrites stored events from the shapes
(:meth:`Shape.erase`), so a new event kind, or a new field, cannot be forgotten by it.
Holds no tables: every domain may import it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .live.listener import CHANNEL
from .storage import writes


class UndeclaredEvent(LookupError):
    """An event the registry does not declare (a bug of its writer, never a caller's)."""


@dataclass(frozen=True)
class Erasure:
    """What an erasure replaces in a stored event: the player's id by ``pseudonym``,
    their display name by ``name``, what they wrote by ``words``; ``seats`` are the
    (match id, seat) they held, whose names are theirs too."""

    player_id: str
    pseudonym: str
    name: str
    words: str
    seats: frozenset[tuple[str, int]] = frozenset()


@dataclass(frozen=True)
class Shape:
    """The fields of an event's payload (or of an object inside it). Every field is
    listed once: as a player id, a list of them, an object keyed by them, a name, a
    player's words, a nested object, or ``plain`` (holding no player's id or name)."""

    plain: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    """Fields holding a player id (or null, or another type that is never an id)."""
    id_lists: tuple[str, ...] = ()
    """Fields holding a list of player ids."""
    id_keys: tuple[str, ...] = ()
    """Fields holding an object keyed by player id."""
    names_by_id: tuple[str, ...] = ()
    """Fields holding an object of display names keyed by player id."""
    seats: tuple[str, ...] = ()
    """Fields holding a seat of the match ``match_id`` names."""
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """A display name: the id or seat fields saying whose it is (any of them)."""
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """What a player wrote: the id or seat fields saying whose it is, or whom it is about
    (any of them: an erasure of either replaces it)."""
    nested: Mapping[str, Shape] = field(default_factory=dict)
    """Fields holding an object, or a list of objects, of their own shape."""

    @cached_property
    def fields(self) -> frozenset[str]:
        """Every field the shape lists (worked out once)."""
        return frozenset((*self.plain, *self.ids, *self.id_lists, *self.id_keys,
                          *self.names_by_id, *self.seats, *self.names, *self.words,
                          *self.nested))

    def undeclared(self, doc: Mapping[str, Any]) -> list[str]:
        """The fields of ``doc`` (and of its nested objects) the shape does not list."""
        extra = sorted(doc.keys() - self.fields)
        for key, shape in self.nested.items():
            value = doc.get(key)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, Mapping):
                    extra += [f"{key}.{name}" for name in shape.undeclared(item)]
        return extra

    def erase(self, doc: Mapping[str, Any], gone: Erasure) -> dict[str, Any]:
        """``doc`` with the erased player's id, name and words replaced wherever this
        shape says they may stand."""
        me, alias = gone.player_id, gone.pseudonym

        def whose(refs: Iterable[str]) -> bool:
            return any(doc.get(ref) == me if ref in self.ids
                       else (doc.get("match_id"), doc.get(ref)) in gone.seats for ref in refs)

        out = dict(doc)
        for key in self.ids:
            if out.get(key) == me:
                out[key] = alias
        for key in self.id_lists:
            if isinstance(out.get(key), list):
                out[key] = [alias if v == me else v for v in out[key]]
        for key in (*self.id_keys, *self.names_by_id):
            value = out.get(key)
            if isinstance(value, Mapping) and me in value:
                renamed = gone.name if key in self.names_by_id else value[me]
                out[key] = {(alias if k == me else k): (renamed if k == me else v)
                            for k, v in value.items()}
        for key, refs in self.names.items():
            if out.get(key) is not None and whose(refs):
                out[key] = gone.name
        for key, refs in self.words.items():
            if out.get(key) is not None and whose(refs):
                out[key] = gone.words
        for key, shape in self.nested.items():
            value = out.get(key)
            if isinstance(value, list):
                out[key] = [shape.erase(v, gone) if isinstance(v, Mapping) else v
                            for v in value]
            elif isinstance(value, Mapping):
                out[key] = shape.erase(value, gone)
        return out


@dataclass(frozen=True)
class EventKind:
    """One kind of event: its name, what it says, where it goes and its payload's shape
    (the union of what the webhooks and the streams carry)."""

    name: str
    summary: str
    shape: Shape
    webhook: bool = True
    """A front end's webhook may subscribe to it."""
    stream: bool = False
    """Players' own streams carry it."""
    names_the_erased: bool = False
    """The erasure's own notice: it must name the id it erased, so erasure leaves it."""


_CHANGE = ("match_id", "version")
_SEAT = Shape(plain=("team", "bot"), ids=("player_id",), seats=("seat",),
              names={"name": ("player_id", "seat")})
_RATING_CHANGE = Shape(plain=("seat", "before", "after"), ids=("player_id",))
_PAIRING = Shape(plain=("match_id",), id_lists=("players",))
_STANDING = Shape(plain=("rank", "points", "buchholz", "sonneborn_berger", "rating", "games",
                         "wins", "draws", "losses", "byes", "streak", "withdrawn"),
                  ids=("player_id",), names={"name": ("player_id",)})
_CHALLENGE = Shape(plain=("challenge_id", "variant", "rated", "expires_at", "match_id"),
                   ids=("challenger", "challenged"))
_SEAT_CHANGE = Shape(plain=(*_CHANGE, "stand_in"), seats=("seat", "dropped"),
                     names={"name": ("seat", "dropped")})
_PARTY = Shape(plain=("party_id",))
_ACCOUNT = Shape(plain=("account", "match_id", "tournament_id"), ids=("player_id",))
_TRANSFER = Shape(plain=("id", "currency", "amount", "kind", "reason", "reference",
                         "created_at"), nested={"from": _ACCOUNT, "to": _ACCOUNT})


def _kinds(*kinds: EventKind) -> dict[str, EventKind]:
    return {k.name: k for k in kinds}


KINDS: dict[str, EventKind] = _kinds(
    EventKind("match.started", "the last seat filled: it deals", Shape(
        plain=(*_CHANGE, "variant", "rules_hash", "commitment"), seats=("seat",),
        nested={"seats": _SEAT}), stream=True),
    EventKind("match.turn", "a human seat is to play", Shape(
        plain=(*_CHANGE, "deadline"), seats=("seat",), names={"name": ("seat",)}),
        stream=True),
    EventKind("match.move", "one play", Shape(
        plain=(*_CHANGE, "round", "card", "captured", "basra", "timeout", "stand_in"),
        seats=("seat",))),
    EventKind("match.finished", "the match is over", Shape(
        plain=(*_CHANGE, "status", "end_reason", "scores", "winner", "draw", "rounds", "seed",
               "commitment"), seats=("seat",), nested={"rating_changes": _RATING_CHANGE}),
        stream=True),
    EventKind("match.voided", "a finished match's result voided", Shape(
        plain=(*_CHANGE, "voided_at", "reason", "rated", "scores", "winner", "draw"),
        seats=("seat",)), stream=True),
    EventKind("match.seat_dropped", "a seat's player dropped: its stand-in keeps it",
              _SEAT_CHANGE, stream=True),
    EventKind("match.seat_back", "a dropped seat's player is back", _SEAT_CHANGE, stream=True),
    EventKind("tournament.started", "a tournament started", Shape(
        plain=("tournament_id", "name", "system"), id_lists=("entrants",),
        names_by_id=("names",)), stream=True),
    EventKind("tournament.round", "new pairings (a Swiss round, an arena's games)", Shape(
        plain=("tournament_id", "round", "match_id", "seat"), ids=("bye", "opponent"),
        id_lists=("byes", "table"), names_by_id=("names",),
        names={"opponent_name": ("opponent",)}, nested={"pairings": _PAIRING}), stream=True),
    EventKind("tournament.finished", "a tournament is over (or cancelled)", Shape(
        plain=("tournament_id", "status", "rank", "points", "prize"), names_by_id=("names",),
        nested={"standings": _STANDING}), stream=True),
    EventKind("report.created", "a player reported another seat of a match", Shape(
        plain=("report_id", "match_id", "reason"), ids=("reporter", "player_id"),
        words={"text": ("reporter", "player_id")})),  # the reported player's too: about them
    EventKind("friend.requested", "a player asked another to be friends",
              Shape(ids=("from", "to")), stream=True),
    EventKind("friend.accepted", "two players became friends",
              Shape(id_lists=("players",)), stream=True),
    EventKind("friend.removed", "two players are friends no more (or a request ended)",
              Shape(id_lists=("players",)), stream=True),
    EventKind("challenge.created", "a challenge made", _CHALLENGE, stream=True),
    EventKind("challenge.accepted", "a challenge accepted, with its match", _CHALLENGE,
              stream=True),
    EventKind("challenge.declined", "a challenge declined", _CHALLENGE, stream=True),
    EventKind("challenge.cancelled", "a challenge cancelled", _CHALLENGE, stream=True),
    EventKind("challenge.expired", "a challenge expired", _CHALLENGE, stream=True),
    EventKind("party.invited", "a player invited to a party", Shape(
        plain=("party_id",), ids=("leader", "player_id")), stream=True),
    EventKind("party.joined", "a player joined a party", Shape(
        plain=("party_id",), ids=("player_id",), id_lists=("members",)), stream=True),
    EventKind("party.left", "a member left a party", Shape(
        plain=("party_id",), ids=("player_id",)), stream=True),
    EventKind("party.disbanded", "the leader left: the party is no more", _PARTY,
              stream=True),
    EventKind("party.seated", "quick play seated the party", Shape(
        plain=("party_id", "match_id"), id_keys=("seats",)), stream=True),
    EventKind("presence", "a friend online, playing or offline", Shape(
        plain=("status", "match_id"), ids=("player_id",)), stream=True),
    EventKind("chat", "a line said at a table", Shape(
        plain=("match_id", "id", "phrase", "filtered", "at"), ids=("player_id",),
        seats=("seat",), names={"name": ("player_id", "seat")},
        words={"text": ("player_id", "seat")})),
    EventKind("player.suspended", "a player suspended (or the suspension changed)", Shape(
        plain=("since", "until", "reason", "forfeit"), ids=("player_id",))),
    EventKind("player.suspension_lifted", "a player's suspension lifted",
              Shape(ids=("player_id",))),
    EventKind("player.signed_out", "a player signed out everywhere: every token refused",
              Shape(plain=("at",), ids=("player_id",))),
    EventKind("player.erased", "a player erased: the front end's systems forget them too",
              Shape(plain=("matches",), ids=("player_id",)), names_the_erased=True),
    EventKind("wallet.changed", "coins moved into or out of a player's wallet", Shape(
        plain=("currency", "change"), ids=("player_id",), nested={"transfer": _TRANSFER}),
        stream=True),
)
"""Every event kind the service tells, in the order the docs list them."""

WEBHOOK_KINDS = tuple(k.name for k in KINDS.values() if k.webhook)
"""What a webhook may subscribe to."""
STREAM_KINDS = tuple(k.name for k in KINDS.values() if k.stream)
"""What a player's own stream carries."""


def table() -> str:
    """The webhook event kinds as the docs list them (a Markdown table; a test keeps
    ``docs/operations.md`` the same)."""
    def ids(shape: Shape, at: str = "") -> list[str]:
        found = [f"`{at}{f}`" for f in (*shape.ids, *shape.id_lists, *shape.id_keys,
                                         *shape.names_by_id)]
        for key, inner in shape.nested.items():
            found += ids(inner, f"{at}{key}[].")
        return found

    lines = ["| event | what happened | fields holding player ids |", "|---|---|---|"]
    lines += [f"| `{k.name}` | {k.summary} | {', '.join(ids(k.shape)) or '—'} |"
              for k in KINDS.values() if k.webhook]
    return "\n".join(lines) + "\n"


def erase(kind: str, data: Any, gone: Erasure) -> Any:
    """A stored event's payload with the erased player replaced, by its kind's shape
    (the erasure's own notice, and what is not an object, as they are)."""
    found = KINDS.get(kind)
    if found is None:
        raise UndeclaredEvent(f"a stored event {kind!r} is not declared (service/events.py)")
    if found.names_the_erased or not isinstance(data, Mapping):
        return data
    return found.shape.erase(data, gone)


# ---- the door ----------------------------------------------------------------------


@dataclass(frozen=True)
class Published:
    """An event as a domain publishes it: its kind, its data as the front end's webhooks
    get it, and ``to``: (player id, their own data) for each player whose stream tells
    it (a player's data may differ from the webhooks': their seat, their rank)."""

    kind: str
    data: Mapping[str, Any]
    to: tuple[tuple[str, Mapping[str, Any]], ...] = ()


To = Sequence[str] | Mapping[str, Mapping[str, Any]]
"""Whose streams tell an event: player ids (each told its data), or each player's own
data by player id."""


def event(kind: str, data: Mapping[str, Any], to: To = ()) -> Published:
    """An event to publish: ``to`` players' streams as well as the front end's
    webhooks."""
    told = tuple(to.items()) if isinstance(to, Mapping) else tuple((p, data) for p in to)
    return Published(kind, data, told)


@dataclass(frozen=True)
class Subscriber:
    """Who hears every published event (wired by the composition root)."""

    rows: Callable[[int, Sequence[Published]], Sequence[writes.Rows]]
    """The rows of its own tables a tenant's events write, in the publisher's
    transaction."""
    hears: Callable[[int], bool] = lambda tenant: False
    """Whether it writes anything for a tenant's events told to no player (cheap: a
    publisher asks it before working its events out)."""


_subscribers: tuple[Subscriber, ...] = ()


def wire(*subscribers: Subscriber) -> None:
    """Who hears the published events, in this order (the composition root's to say)."""
    global _subscribers
    _subscribers = subscribers


def heard(tenant: int) -> bool:
    """Whether any subscriber hears the tenant's events told to no player (a match
    change with no vouched seat works its events out only then)."""
    return any(s.hears(tenant) for s in _subscribers)


def _check(published: Published) -> None:
    """Refuse an event its declaration does not allow: an undeclared kind, a field its
    shape does not list, a player's stream for a kind the streams do not carry."""
    found = KINDS.get(published.kind)
    if found is None:
        raise UndeclaredEvent(f"event {published.kind!r} is not declared (service/events.py)")
    if published.to and not found.stream:
        raise UndeclaredEvent(f"event {published.kind!r} is not declared for a player's "
                              "stream (service/events.py)")
    for data in (published.data, *(mine for _, mine in published.to)):
        extra = found.shape.undeclared(data)
        if extra:
            raise UndeclaredEvent(f"event {published.kind!r} carries fields its shape does "
                                  f"not list: {', '.join(extra)} (service/events.py)")


def told(tenant: int, happened: Sequence[Published]) -> list[writes.Rows]:
    """The rows that tell ``happened`` (each checked against its declaration) to every
    subscriber, for a caller that writes them with a change of its own (in its
    transaction, on :data:`~service.live.listener.CHANNEL`: a player's event wakes their
    streams)."""
    for published in happened:
        _check(published)
    return [rows for s in _subscribers for rows in s.rows(tenant, happened)]


def publish(tenant: int, kind: str, data: Mapping[str, Any], to: To = ()) -> None:
    """Tell ``kind`` with ``data`` to the front end's webhooks and to ``to`` players'
    streams: the subscribers' rows written in the caller's write transaction."""
    writes.write(told(tenant, [event(kind, data, to)]), CHANNEL)
