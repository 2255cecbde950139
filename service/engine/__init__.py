"""The Basra rules engine: pure values and functions, no web or storage code.

>>> from service.engine import load_variant, new_match, legal_moves, apply_move
>>> state = new_match(load_variant("egyptian-v2").rules, seed=b"x" * 32)
>>> state = apply_move(state, legal_moves(state)[0])

The modules load from the mypyc build when there is a current one (:mod:`.build`).
"""

from . import build

__path__ = build.prefer_compiled(__path__)  # before the modules below are imported

from .captures import BasraKind, Outcome
from .cards import (
    DECK,
    RANKS,
    SEVEN_OF_DIAMONDS,
    SUITS,
    Card,
    format_cards,
    parse_card,
    parse_cards,
)
from .codec import (
    move_from_parts,
    play_from_parts,
    rules_from_json,
    state_from_dict,
    state_to_dict,
)
from .errors import (
    BasraError,
    CardNotInHand,
    IllegalCapture,
    IllegalMove,
    InvalidCard,
    InvalidDeck,
    InvalidRules,
    MatchFinished,
    NotYourTurn,
    UnknownVariant,
)
from .game import (
    Move,
    Play,
    RoundResult,
    State,
    apply_move,
    cards_accounted,
    first_seat,
    legal_moves,
    new_match,
    play_random,
    random_move,
    replay,
    resign,
    score_round,
)
from .rules import (
    Rules,
    Variant,
    all_variants,
    load_rules_file,
    load_variant,
    rules_from_mapping,
    team_of,
    variant_names,
    with_house_rules,
)
from .shuffle import commitment, deck_for_round, new_seed, parse_seed
from .view import SeatView, observe

__all__ = [
    "BasraError",
    "BasraKind",
    "Card",
    "CardNotInHand",
    "DECK",
    "IllegalCapture",
    "IllegalMove",
    "InvalidCard",
    "InvalidDeck",
    "InvalidRules",
    "MatchFinished",
    "Move",
    "NotYourTurn",
    "Outcome",
    "Play",
    "RANKS",
    "RoundResult",
    "Rules",
    "SEVEN_OF_DIAMONDS",
    "SUITS",
    "SeatView",
    "State",
    "UnknownVariant",
    "Variant",
    "all_variants",
    "apply_move",
    "first_seat",
    "cards_accounted",
    "commitment",
    "deck_for_round",
    "format_cards",
    "legal_moves",
    "load_rules_file",
    "load_variant",
    "move_from_parts",
    "new_match",
    "new_seed",
    "observe",
    "parse_card",
    "parse_cards",
    "parse_seed",
    "play_from_parts",
    "play_random",
    "random_move",
    "replay",
    "resign",
    "rules_from_json",
    "rules_from_mapping",
    "score_round",
    "state_from_dict",
    "state_to_dict",
    "team_of",
    "variant_names",
    "with_house_rules",
]
