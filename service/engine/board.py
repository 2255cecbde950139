"""The match being played: :meth:`Board.play` is the one place a play changes a match.

After python-chess's ``Board``: hands, floor, stock and piles are lists changed in
place, and the floor's packed value counts are kept up to date as cards land and
leave, so what a card may take is one table look-up (:mod:`.captures`). The
immutable :class:`~.state.State` is made from a board (:meth:`Board.state`) only where
a match is stored or handed out; random self-play and the expert's playouts stay on
the board (:meth:`Board.copy` for a branch).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from .captures import BasraKind, Capturer, Outcome, capturer_for
from .cards import DECK, Card, card_matches
from .errors import MatchFinished
from .rules import TEAMS, Rules, derived, points_by_card, team_of
from .shuffle import deck_for_round
from .state import Play, RoundResult, State, first_seat


class Board:
    """A match's mutable position; fields as in :class:`~.state.State`, with lists."""

    __slots__ = (
        "rules", "seed", "decks", "round", "dealer", "turn", "hands", "floor", "stock",
        "piles", "basras", "jack_basras", "last_capturer", "scores", "carry", "results",
        "ply", "_last", "finished", "winner", "draw", "capturer", "packed", "held",
    )
    rules: Rules
    seed: bytes
    decks: tuple[tuple[Card, ...], ...]
    round: int
    dealer: int
    turn: int | None
    hands: list[list[Card]]
    floor: list[Card]
    stock: list[Card]
    piles: list[list[Card]]
    basras: list[int]
    jack_basras: list[int]
    last_capturer: int | None
    scores: list[int]
    carry: int
    results: list[RoundResult]
    ply: int
    _last: Play | tuple[int, int, Card, tuple[Card, ...], BasraKind | None] | None
    """The last play, or its parts until :attr:`last_play` is asked for."""
    finished: bool
    winner: int | None
    draw: bool
    capturer: Capturer
    packed: int
    """The floor's value counts, packed (see :attr:`.captures.Capturer.units`)."""
    held: int
    """How many cards the hands hold between them (0: time to deal, or the round's end)."""

    def __init__(self, state: State | None = None) -> None:
        """The position of ``state``; without one, an unfilled board for :meth:`copy` (a
        compiled class cannot be made through ``__new__``)."""
        if state is None:
            return
        self._take(state, state.last_play)
        self.capturer = capturer_for(state.rules)
        self.packed = self.capturer.packed_counts(self.floor)

    def _take(
        self,
        source: State | Board,
        last: Play | tuple[int, int, Card, tuple[Card, ...], BasraKind | None] | None,
    ) -> None:
        """Every field of ``source`` (a snapshot or a board) but the capture tables, the
        lists copied."""
        self.rules = source.rules
        self.seed = source.seed
        self.decks = source.decks
        self.round = source.round
        self.dealer = source.dealer
        self.turn = source.turn
        self.hands = hands = [list(h) for h in source.hands]
        self.held = sum(map(len, hands))
        self.floor = list(source.floor)
        self.stock = list(source.stock)
        self.piles = [list(p) for p in source.piles]
        self.basras = list(source.basras)
        self.jack_basras = list(source.jack_basras)
        self.last_capturer = source.last_capturer
        self.scores = list(source.scores)
        self.carry = source.carry
        self.results = list(source.results)
        self.ply = source.ply
        self._last = last
        self.finished = source.finished
        self.winner = source.winner
        self.draw = source.draw

    def state(self, deal_plays: tuple[Play, ...] = ()) -> State:
        """The immutable snapshot of this position, with this deal's plays as given (a
        board does not keep them: playouts have no use for them; ``game.apply_move``
        does)."""
        return State(
            rules=self.rules, seed=self.seed, decks=self.decks, round=self.round,
            dealer=self.dealer, turn=self.turn, hands=tuple(tuple(h) for h in self.hands),
            floor=tuple(self.floor), stock=tuple(self.stock),
            piles=tuple(tuple(p) for p in self.piles), basras=tuple(self.basras),
            jack_basras=tuple(self.jack_basras), last_capturer=self.last_capturer,
            scores=tuple(self.scores), carry=self.carry, results=tuple(self.results),
            ply=self.ply, last_play=self.last_play, finished=self.finished,
            winner=self.winner, draw=self.draw, deal_plays=deal_plays,
        )

    @property
    def last_play(self) -> Play | None:
        """The last play made in the match."""
        last = self._last
        if last is None or isinstance(last, Play):
            return last
        self._last = play = Play(*last)
        return play

    def copy(self) -> Board:
        """An independent board in the same position (a branch to play out)."""
        other = Board()
        other._take(self, self._last)  # the last play stays unmade until asked for
        other.capturer, other.packed = self.capturer, self.packed
        return other

    # --- choosing -------------------------------------------------------------------

    def random_choice(self, rng: Random) -> tuple[int, Outcome]:
        """(hand index, outcome) of a uniformly random legal move: the same distribution
        as picking from ``legal_moves``, without listing them (only the chosen card's
        captures are worked out)."""
        return self.choice_at(rng.random())

    def choice_at(self, r: float) -> tuple[int, Outcome]:
        """(hand index, outcome) of the legal move at ``r`` (in [0, 1)) of the way along
        ``legal_moves``: a uniformly random one for a uniform ``r``. One ``rng.random()``
        a play: its bias, under 2**-45 with at most a few hundred moves, is far below
        what any simulation can see, and ``randrange`` cost 7% of a compiled random-play
        run."""
        if self.finished or self.turn is None:
            raise MatchFinished("the match is finished")
        hand = self.hands[self.turn]
        floor = self.floor
        counts = self.capturer.counts_on(hand, floor, self.packed)
        total = 0
        for n in counts:  # not sum(): the mypyc build calls that through the builtins module
            total += n
        k = int(r * total)
        if total == len(hand):  # one outcome a card, the usual case: the k-th card's
            return k, self.capturer.outcome_on(hand[k], floor, self.packed, 0)
        for at, n in enumerate(counts):
            if k < n:
                return at, self.capturer.outcome_on(hand[at], floor, self.packed, k)
            k -= n
        raise AssertionError("unreachable")  # pragma: no cover

    # --- playing --------------------------------------------------------------------

    def play(self, at: int, outcome: Outcome) -> None:
        """The seat to play plays its ``at``-th card with ``outcome``, which must be one
        of that card's legal outcomes (callers check; see ``game.apply_move``)."""
        seat = self.turn
        assert seat is not None
        hands = self.hands
        card = hands[seat].pop(at)
        held = self.held = self.held - 1
        team = seat % TEAMS  # team_of(seat), inlined on the hottest path
        captured = outcome.capture
        floor = self.floor
        if captured:
            if len(captured) == len(floor):
                floor.clear()
                self.packed = 0
            else:
                units = self.capturer.units
                packed = self.packed
                for c in captured:
                    floor.remove(c)
                    index: int = c  # typed int: the mypyc build indexes natively
                    packed -= units[index]
                self.packed = packed
            pile = self.piles[team]
            pile.extend(captured)
            pile.append(card)
            self.last_capturer = team
        else:
            floor.append(card)
            played: int = card
            self.packed += self.capturer.units[played]
        round_over = not held and not self.stock
        kind: BasraKind | None = outcome.basra
        if kind is not None:
            if round_over and not self.rules.basra.last_play_counts:
                kind = None
            elif kind == "basra":
                self.basras[team] += 1
            else:
                self.jack_basras[team] += 1
        self._last = (self.round, seat, card, captured, kind)  # a Play when asked for
        self.ply += 1
        if round_over:
            self._end_round()
            return
        players = len(hands)  # one hand a seat: no attribute look-up on the rules
        if not held:
            turn = first_seat(self.rules, self.dealer)
            self.hands = deal_hands(self.stock, players, self.rules.hand_size, turn)
            self.held = sum(map(len, self.hands))
        else:
            turn = (seat + 1) % players
            while not hands[turn]:
                turn = (turn + 1) % players
        self.turn = turn

    def play_random(self, rng: Random) -> None:
        """Play a uniformly random legal move (random self-play, ``basra simulate``)."""
        self.play_at(rng.random())

    def play_at(self, r: float) -> None:
        """Play the legal move at ``r`` (:meth:`choice_at`); random self-play draws ``r``
        from a bound ``rng.random``, which the mypyc build calls for a tenth of what
        looking the method up on the ``Random`` each play cost."""
        at, outcome = self.choice_at(r)
        self.play(at, outcome)

    def resign(self, seat: int) -> None:
        """The seat's team concedes: the match ends and the other team wins."""
        self.turn = None
        self.ply += 1
        self.finished = True
        self.winner = (team_of(seat) + 1) % self.rules.teams

    def _end_round(self) -> None:
        rules = self.rules
        floor = self.floor
        # leftovers go to the last capturer; if nobody captured all round they stay uncounted
        if floor and rules.leftover == "last_capturer" and self.last_capturer is not None:
            self.piles[self.last_capturer].extend(floor)
            floor.clear()
            self.packed = 0
        result = score_round(
            rules, self.round, self.piles, self.basras, self.jack_basras, self.carry
        )
        scores = self.scores = [s + p for s, p in zip(self.scores, result.points, strict=True)]
        self.results.append(result)
        top = max(scores)
        leaders = [t for t, s in enumerate(scores) if s == top]
        last = rules.max_rounds > 0 and self.round >= rules.max_rounds
        if last or (top >= rules.target_score
                    and (len(leaders) == 1 or rules.target_tie == "draw")):
            self.turn = None
            self.stock = []
            self.carry = 0
            self.finished = True
            self.winner = leaders[0] if len(leaders) == 1 else None
            self.draw = len(leaders) > 1
            return
        self.round += 1
        self.dealer = (self.dealer + 1) % rules.players
        self.hands, self.floor, self.stock = start_round(
            rules, self.seed, self.decks, self.round, self.dealer
        )
        self.held = sum(map(len, self.hands))
        self.packed = self.capturer.packed_counts(self.floor)
        self.turn = first_seat(rules, self.dealer)
        zero = [0] * rules.teams
        self.piles = [[] for _ in range(rules.teams)]
        self.basras, self.jack_basras = zero, list(zero)
        self.last_capturer = None
        self.carry = result.carried


# --- dealing and scoring ---------------------------------------------------------------


def deal_hands(stock: list[Card], players: int, size: int, first: int) -> list[list[Card]]:
    """Deal ``size`` cards to each seat from the top of ``stock`` (taken off it) as one
    packet; a short stock goes one card at a time."""
    hands: list[list[Card]] = [[] for _ in range(players)]
    order = [(first + i) % players for i in range(players)]
    if len(stock) >= players * size:
        for seat in order:
            hands[seat] = stock[:size]
            del stock[:size]
    else:
        i = 0
        while stock:
            hands[order[i % players]].append(stock.pop(0))
            i += 1
    return hands


def _returned(rules: Rules) -> frozenset[Card]:
    """The cards ``initial_floor.return_to_deck`` lists (ranks or cards)."""
    listed = rules.initial_floor.return_to_deck
    return frozenset(c for c in DECK if any(card_matches(c, e) for e in listed))


def _starting_floor(rules: Rules, floor: list[Card], stock: list[Card]) -> None:
    """Send listed cards (default J and 7D) from the floor to the stock's bottom.

    Each position is settled in floor order: its card goes to the bottom and
    the top card of the stock takes its place, until that position holds an
    unlisted card; then the next position. (A house rule that lists nearly
    every card could leave no unlisted card in the stock: then a position keeps
    what it has after one full turn of the stock.)
    """
    returned = derived(rules, _returned)
    if not returned:
        return
    for i in range(len(floor)):
        for _ in range(len(stock)):
            if floor[i] not in returned:
                break
            stock.append(floor[i])
            floor[i] = stock.pop(0)


def start_round(
    rules: Rules, seed: bytes, decks: tuple[tuple[Card, ...], ...], rnd: int, dealer: int
) -> tuple[list[list[Card]], list[Card], list[Card]]:
    """(hands, floor, stock) of round ``rnd``: dealt from ``decks[rnd - 1]`` if given,
    else from the seed's deck for that round."""
    stock = list(decks[rnd - 1] if rnd <= len(decks) else deck_for_round(seed, rnd))
    hands = deal_hands(stock, rules.players, rules.hand_size, first_seat(rules, dealer))
    floor = stock[: rules.floor_size]
    del stock[: rules.floor_size]
    _starting_floor(rules, floor, stock)
    return hands, floor, stock


def score_round(
    rules: Rules,
    round_number: int,
    piles: Sequence[Sequence[Card]],
    basras: Sequence[int],
    jack_basras: Sequence[int],
    carry: int,
) -> RoundResult:
    """Round points per team from its pile and basras, with the most-cards rule."""
    scoring = rules.scoring
    teams = len(piles)
    cards = tuple(len(p) for p in piles)
    if scoring.cards:
        worth = derived(rules, points_by_card)
        card_points = tuple(sum(worth[c] for c in p) for p in piles)
    else:
        card_points = (0,) * teams
    points = [
        basras[t] * scoring.basra + jack_basras[t] * scoring.jack_basra + card_points[t]
        for t in range(teams)
    ]
    best = max(cards)
    leaders = [t for t in range(teams) if cards[t] == best]
    carried = 0
    if len(leaders) == 1:
        points[leaders[0]] += scoring.most_cards + carry
    elif scoring.most_cards_tie == "split":
        for t in leaders:
            points[t] += scoring.most_cards // len(leaders)
    elif scoring.most_cards_tie == "carry_over":
        carried = carry + scoring.most_cards
    return RoundResult(
        round_number, cards, tuple(basras), tuple(jack_basras), card_points, tuple(points), carried
    )
