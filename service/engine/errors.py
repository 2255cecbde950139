"""Typed domain errors; each carries a machine-readable ``reason``.

The web layer maps them to HTTP statuses by class; the engine never knows HTTP.
"""

from __future__ import annotations


class BasraError(Exception):
    """Base class of every error the engine raises on purpose."""

    reason: str = "basra_error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        """The human-readable explanation."""
        return str(self.args[0]) if self.args else self.reason


class InvalidCard(BasraError, ValueError):
    """A string that is not a card in RULES.md notation."""

    reason = "invalid_card"


class InvalidRules(BasraError, ValueError):
    """A variant or house-rule set that fails validation; ``path`` names the (first) bad
    key and ``problems`` lists every bad key with what is wrong with it."""

    reason = "invalid_rules"

    def __init__(self, path: str, problem: str,
                 problems: list[tuple[str, str]] | None = None) -> None:
        self.path = path
        self.problem = problem
        self.problems = problems or [(path, problem)]
        text = "; ".join(f"{p}: {q}" if p else q for p, q in self.problems)
        super().__init__(text)


class UnknownVariant(BasraError, LookupError):
    """No variant file of that name."""

    reason = "unknown_variant"


class InvalidDeck(BasraError, ValueError):
    """An explicit deck that is not 52 distinct cards, or a bad seed."""

    reason = "invalid_deck"


class IllegalMove(BasraError):
    """A move the rules do not allow; the state is left unchanged."""

    reason = "illegal_move"


class NotYourTurn(IllegalMove):
    """The seat tried to play out of turn."""

    reason = "not_your_turn"


class CardNotInHand(IllegalMove):
    """The seat does not hold the card it tried to play."""

    reason = "card_not_in_hand"


class IllegalCapture(IllegalMove):
    """The named capture is not one the card can make under these rules."""

    reason = "illegal_capture"


class MatchFinished(IllegalMove):
    """The match is over; no more moves."""

    reason = "match_finished"
