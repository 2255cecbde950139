"""One test per rule of RULES.md, named after the rule; each docstring cites it."""

from __future__ import annotations

import pytest

from service.engine import (
    DECK,
    CardNotInHand,
    IllegalCapture,
    InvalidCard,
    MatchFinished,
    Move,
    NotYourTurn,
    apply_move,
    format_cards,
    legal_moves,
    new_match,
    parse_card,
    parse_cards,
    resign,
    score_round,
)
from tests.helpers import SEED, deck_with, position, rules_of


def c(text: str) -> tuple:  # noqa: ANN201 - shorthand for a tuple of cards
    return parse_cards(text.split())


def play(state, seat, card, capture=None):  # noqa: ANN001, ANN201
    cap = None if capture is None else c(capture)
    return apply_move(state, Move(seat, parse_card(card), cap))


def captures_of(state, card):  # noqa: ANN001, ANN201
    return sorted(
        " ".join(format_cards(m.capture or ())) for m in legal_moves(state) if str(m.card) == card
    )


# --- Cards and notation -------------------------------------------------


def test_card_notation_is_rank_then_suit_case_insensitive() -> None:
    """RULES.md Cards: a card is rank then suit; parsing is case-insensitive."""
    assert str(parse_card("7d")) == "7D"
    assert str(parse_card("10h")) == "10H"
    assert str(parse_card(" jc ")) == "JC"
    assert str(parse_card("As")) == "AS"


def test_card_output_is_upper_case() -> None:
    """RULES.md Cards: output always uses the exact upper-case form."""
    assert format_cards(DECK[:4]) == ["AC", "AD", "AH", "AS"]
    assert [str(x) for x in DECK[-4:]] == ["KC", "KD", "KH", "KS"]


@pytest.mark.parametrize("bad", ["", "1", "11H", "7X", "ZZ", "7DD", None, 7])
def test_card_notation_rejects_anything_else(bad: object) -> None:
    """RULES.md Cards: only ranks A 2-10 J Q K and suits C D H S."""
    with pytest.raises(InvalidCard):
        parse_card(bad)


def test_face_cards_have_no_value() -> None:
    """RULES.md Cards: A is 1 ... 10 is 10; J Q K never take part in a sum."""
    assert [parse_card(r + "S").value for r in ["A", "5", "10", "J", "Q", "K"]] == [1, 5, 10, 0, 0, 0]
    state = position(rules_of(), [["QS"], ["2S"]], ["2C", "KD"])
    assert captures_of(state, "QS") == [""]


# --- Seats, dealing and turn order -----------------------------------------


def test_round_one_dealer_is_last_seat_and_next_seat_leads() -> None:
    """RULES.md Seats: round 1's dealer is seat N-1; the seat after the dealer plays first."""
    for variant, n in (("egyptian-v2", 2), ("egyptian-4p", 4)):
        state = new_match(rules_of(variant), SEED)
        assert state.dealer == n - 1
        assert state.turn == 0


def test_dealer_moves_one_seat_each_round() -> None:
    """RULES.md Seats: the dealer moves one seat on each round; the seat after leads."""
    state = new_match(rules_of(target_score=1000), SEED)
    dealers = [state.dealer]
    while state.round < 4:
        before = state.round
        state = apply_move(state, legal_moves(state)[0])
        if state.round != before:
            dealers.append(state.dealer)
            assert state.turn == (state.dealer + 1) % 2
    assert dealers == [1, 0, 1, 0]


def test_deal_gives_each_player_a_packet_then_the_floor() -> None:
    """RULES.md The deal: hand_size cards to each player as one packet, first player first;
    then floor_size cards face up to the floor, in order."""
    deck = deck_with("2C 3C 4C 5C", "2D 3D 4D 5D", "6C 6D 6H 6S")
    state = new_match(rules_of(), SEED, [deck])
    assert format_cards(state.hands[0]) == ["2C", "3C", "4C", "5C"]
    assert format_cards(state.hands[1]) == ["2D", "3D", "4D", "5D"]
    assert format_cards(state.floor) == ["6C", "6D", "6H", "6S"]
    assert len(state.stock) == 40 and state.stock[0] == deck[12]


def test_starting_floor_returns_jacks_and_seven_of_diamonds_to_the_bottom() -> None:
    """RULES.md Starting floor: a listed floor card goes to the stock's bottom and the top
    stock card takes its place, until no listed card is on the floor."""
    deck = deck_with("2C 3C 4C 5C", "2D 3D 4D 5D", "JC 6D 7D 6S", "JH 8C 9C")
    state = new_match(rules_of(), SEED, [deck])
    # JC -> bottom, JH takes its place -> bottom, 8C settles; then 7D -> bottom, 9C
    assert format_cards(state.floor) == ["8C", "6D", "9C", "6S"]
    assert format_cards(state.stock[-3:]) == ["JC", "JH", "7D"]
    assert len(state.stock) == 40


def test_starting_floor_entries_may_be_ranks_or_cards() -> None:
    """RULES.md Starting floor: an entry is a rank such as J or a card such as 7D."""
    deck = deck_with("2C 3C 4C 5C", "2D 3D 4D 5D", "KC KD 7D 6S")
    state = new_match(rules_of(initial_floor={"return_to_deck": ["K"]}), SEED, [deck])
    assert "KC" not in format_cards(state.floor) and "KD" not in format_cards(state.floor)
    assert "7D" in format_cards(state.floor)


def test_hands_are_dealt_again_from_the_stock_none_to_the_floor() -> None:
    """RULES.md: when every hand is empty and the stock is not, deal hand_size to each player."""
    state = new_match(rules_of(), SEED)
    assert len(state.stock) == 40
    for _ in range(8):
        state = apply_move(state, legal_moves(state)[0])
    assert [len(h) for h in state.hands] == [4, 4]
    assert len(state.stock) == 32  # the eight new cards went to the hands
    # the floor holds only the 4 dealt and the 8 played cards not captured: none dealt
    assert len(state.floor) + sum(map(len, state.piles)) == 4 + 8
    assert state.turn == 0  # the seat after the dealer leads each deal


def test_short_final_deal_goes_one_card_at_a_time() -> None:
    """RULES.md: if the stock holds fewer than players x hand_size, what remains is dealt
    one card at a time in turn order."""
    rules = rules_of()
    state = position(rules, [["2C"], []], ["KD"], stock=["3C", "4C", "5C"], turn=0)
    state = play(state, 0, "2C")
    assert format_cards(state.hands[0]) == ["3C", "5C"]
    assert format_cards(state.hands[1]) == ["4C"]
    state = play(state, 0, "3C")
    assert state.turn == 1
    state = play(state, 1, "4C")
    assert state.turn == 0


def test_round_ends_when_stock_and_hands_are_empty() -> None:
    """RULES.md: the round ends when the stock and every hand are empty."""
    state = new_match(rules_of(), SEED)
    plies = 0
    while state.round == 1:
        state = apply_move(state, legal_moves(state)[0])
        plies += 1
    assert plies == 48
    assert len(state.results) == 1


def test_explicit_decks_then_seeded_shuffles() -> None:
    """RULES.md: a round's deck is given explicitly (one per round) or shuffled from the
    seed; rounds beyond the given decks are shuffled."""
    from service.engine import deck_for_round

    deck = deck_with("AC AD AH AS")
    state = new_match(rules_of(target_score=1000), SEED, [deck])
    assert format_cards(state.hands[0]) == ["AC", "AD", "AH", "AS"]
    while state.round == 1:
        state = apply_move(state, legal_moves(state)[0])
    shuffled = deck_for_round(SEED, 2)
    assert state.hands[1] == shuffled[:4]  # round 2: dealer 0, seat 1 first


# --- A turn: number cards ---------------------------------------------------


def test_a_card_that_captures_nothing_stays_on_the_floor() -> None:
    """RULES.md A turn: a card that captures nothing stays on the floor."""
    state = position(rules_of(), [["5S"], ["2H"]], ["2C", "9H"])
    after = play(state, 0, "5S")
    assert format_cards(after.floor) == ["2C", "9H", "5S"]
    assert after.last_play.captured == ()


def test_number_card_takes_groups_summing_to_its_value() -> None:
    """RULES.md Number card: a group is floor number cards adding up to v; a single card of
    rank v is a group of one (v1 example: 8 on A 7 K 8 takes 8 and A+7)."""
    state = position(rules_of("egyptian-v1"), [["8S"], ["2H"]], ["AC", "7S", "KD", "8H"])
    after = play(state, 0, "8S")
    assert sorted(format_cards(after.last_play.captured)) == ["7S", "8H", "AC"]
    assert format_cards(after.floor) == ["KD"]
    assert sorted(format_cards(after.piles[0])) == ["7S", "8H", "8S", "AC"]


def test_disjoint_groups_are_found_by_complete_search() -> None:
    """RULES.md groups: disjoint: A 2 3 4 5 6 and a 7 make {A,6}{2,5}{3,4}, a basra."""
    state = position(rules_of(), [["7S"], ["2H"]], ["AC", "2C", "3C", "4C", "5C", "6C"])
    after = play(state, 0, "7S")
    assert after.floor == () and after.last_play.basra == "basra"


def test_disjoint_groups_may_not_share_a_card() -> None:
    """RULES.md groups: disjoint: a 6 on A 2 3 4 takes A 2 3; {2,4} would reuse the 2."""
    state = position(rules_of(), [["6S"], ["2H"]], ["AC", "2C", "3C", "4C"])
    assert captures_of(state, "6S") == ["AC 2C 3C"]


def test_union_groups_take_every_card_in_any_group() -> None:
    """RULES.md groups: union: every floor number card in at least one group; A 2 3 4 by a
    6 all go, a basra."""
    state = position(rules_of(capture={"groups": "union"}), [["6S"], ["2H"]], ["AC", "2C", "3C", "4C"])
    after = play(state, 0, "6S")
    assert after.floor == () and after.last_play.basra == "basra"


def test_maximum_mode_takes_the_largest_capture_and_offers_ties() -> None:
    """RULES.md mode: maximum: the largest capture; equally large ones are all offered and the
    engine picks the first in its documented order when the move names none."""
    state = position(rules_of("egyptian-v1"), [["5S"], ["2D"]], ["2C", "2H", "3H"])
    assert captures_of(state, "5S") == ["2C 3H", "2H 3H"]
    assert format_cards(play(state, 0, "5S").last_play.captured) == ["2C", "3H"]
    assert format_cards(play(state, 0, "5S", "2H 3H").last_play.captured) == ["2H", "3H"]


def test_maximum_mode_rejects_a_smaller_capture() -> None:
    """RULES.md mode: maximum: naming a capture smaller than the largest is illegal."""
    state = position(rules_of("egyptian-v1"), [["8S"], ["2D"]], ["AC", "7S", "KD", "8H"])
    with pytest.raises(IllegalCapture) as err:
        play(state, 0, "8S", "8H")
    assert err.value.reason == "illegal_capture"


def test_choose_mode_offers_every_valid_capture() -> None:
    """RULES.md mode: choose: the player names any valid capture; compulsory by default."""
    state = position(rules_of(capture={"mode": "choose"}), [["6S"], ["2D"]], ["2C", "3C", "4C", "6C"])
    assert captures_of(state, "6S") == ["2C 4C", "2C 4C 6C", "6C"]


def test_choose_mode_without_compulsory_capture_may_take_nothing() -> None:
    """RULES.md mode: choose with compulsory: false: a card that can capture may trail."""
    rules = rules_of(capture={"mode": "choose", "compulsory": False})
    state = position(rules, [["6S"], ["2D"]], ["6C"])
    assert captures_of(state, "6S") == ["", "6C"]
    assert format_cards(play(state, 0, "6S", "").floor) == ["6C", "6S"]


# --- Queens, kings, jacks ------------------------------------------------------


def test_queen_or_king_takes_every_card_of_its_rank() -> None:
    """RULES.md Queen or king: takes every floor card of the same rank, nothing else."""
    state = position(rules_of(), [["KS"], ["2D"]], ["KC", "KH", "5S", "QD"])
    after = play(state, 0, "KS")
    assert format_cards(after.last_play.captured) == ["KC", "KH"]
    assert after.last_play.basra is None


def test_jack_sweeps_the_floor_without_a_basra() -> None:
    """RULES.md Jack: takes every card on the floor; a jack sweep is not a basra."""
    state = position(rules_of(), [["JS"], ["2D"]], ["3C", "8H", "KD"])
    after = play(state, 0, "JS")
    assert after.floor == () and after.last_play.basra is None


def test_lone_jack_basra_when_a_jack_takes_a_lone_jack() -> None:
    """RULES.md Jack: lone_jack_basra (v2): a jack taking a floor of exactly one jack."""
    after = play(position(rules_of("egyptian-v2"), [["JS"], ["2D"]], ["JC"]), 0, "JS")
    assert after.last_play.basra == "jack_basra" and after.jack_basras == (1, 0)
    after = play(position(rules_of("egyptian-v1"), [["JS"], ["2D"]], ["JC"]), 0, "JS")
    assert after.last_play.basra is None


def test_jack_that_does_not_sweep_takes_only_jacks() -> None:
    """RULES.md Jack: sweeps: false: an ordinary face card that takes only jacks."""
    state = position(rules_of(jack={"sweeps": False}), [["JS"], ["2D"]], ["JC", "5H"])
    after = play(state, 0, "JS")
    assert format_cards(after.last_play.captured) == ["JC"]
    assert format_cards(after.floor) == ["5H"]


# --- The seven of diamonds ------------------------------------------------------


def test_seven_of_diamonds_any_rank_scores_a_basra_when_some_rank_would() -> None:
    """RULES.md 7D basra: any_rank: if a rank would make a basra, the 7D takes the floor as
    that basra (here as a 9 on A 2 7 8)."""
    state = position(rules_of(), [["7D"], ["2D"]], ["AC", "2H", "7C", "8S"])
    after = play(state, 0, "7D")
    assert after.floor == () and after.last_play.basra == "basra"


def test_seven_of_diamonds_any_rank_makes_a_jack_basra_where_only_a_jack_would() -> None:
    """RULES.md 7D basra: any_rank: a jack basra where only a jack would make one (v2)."""
    after = play(position(rules_of(), [["7D"], ["2D"]], ["JC"]), 0, "7D")
    assert after.last_play.basra == "jack_basra"


def test_seven_of_diamonds_any_rank_otherwise_sweeps_as_a_jack() -> None:
    """RULES.md 7D basra: any_rank: otherwise it takes the whole floor, not a basra."""
    after = play(position(rules_of(), [["7D"], ["2D"]], ["5C", "QH"]), 0, "7D")
    assert after.floor == () and after.last_play.basra is None


def test_seven_of_diamonds_sum_at_most_10_basra() -> None:
    """RULES.md 7D basra: sum_at_most_10 (Pagat): always the whole floor; a basra only if
    every floor card is a number card and they add up to 10 or less."""
    rules = rules_of("pagat")
    assert play(position(rules, [["7D"], ["2D"]], ["3C", "4H", "2S"]), 0, "7D").last_play.basra == "basra"
    assert play(position(rules, [["7D"], ["2D"]], ["3C", "4H", "5S"]), 0, "7D").last_play.basra is None
    assert play(position(rules, [["7D"], ["2D"]], ["3C", "QH"]), 0, "7D").last_play.basra is None


def test_seven_of_diamonds_never_basra_sweeps() -> None:
    """RULES.md 7D basra: never: it sweeps like a jack, never a basra."""
    rules = rules_of(seven_of_diamonds={"basra": "never"})
    after = play(position(rules, [["7D"], ["2D"]], ["3C", "4H"]), 0, "7D")
    assert after.floor == () and after.last_play.basra is None


def test_seven_of_diamonds_not_special_is_a_plain_seven() -> None:
    """RULES.md 7D special: false: a plain seven."""
    rules = rules_of(seven_of_diamonds={"special": False})
    state = position(rules, [["7D"], ["2D"]], ["3C", "4H", "QS"])
    after = play(state, 0, "7D")
    assert format_cards(after.last_play.captured) == ["3C", "4H"]
    assert format_cards(after.floor) == ["QS"]


def test_seven_of_diamonds_wild_on_the_floor() -> None:
    """RULES.md 7D on_floor: wild (v2): a 7D on the floor counts as the played card's rank,
    a group of one, so any card takes it; alone, that is a basra."""
    rules = rules_of("egyptian-v2")
    for card in ("3S", "QS", "KS", "10S"):
        after = play(position(rules, [[card], ["2D"]], ["7D"]), 0, card)
        assert after.floor == () and after.last_play.basra == "basra", card
    after = play(position(rules, [["JS"], ["2D"]], ["7D"]), 0, "JS")
    assert after.last_play.basra == "jack_basra"
    # as a group of one, next to other cards
    after = play(position(rules, [["3S"], ["2D"]], ["7D", "AC", "2C", "KH"]), 0, "3S")
    assert sorted(format_cards(after.last_play.captured)) == ["2C", "7D", "AC"]


def test_seven_of_diamonds_plain_on_the_floor() -> None:
    """RULES.md 7D on_floor: plain (v1): on the floor it is an ordinary 7."""
    rules = rules_of("egyptian-v1")
    state = position(rules, [["3S"], ["2D"]], ["7D"])
    assert captures_of(state, "3S") == [""]
    after = play(position(rules, [["10S"], ["2D"]], ["7D", "3C"]), 0, "10S")
    assert after.last_play.basra == "basra"


def test_jack_or_seven_of_diamonds_on_an_empty_floor_stays() -> None:
    """RULES.md: on an empty floor a 7D (or a jack) stays on the floor."""
    for card in ("7D", "JS"):
        after = play(position(rules_of(), [[card], ["2D"]], []), 0, card)
        assert format_cards(after.floor) == [card] and after.last_play.basra is None


# --- Basra --------------------------------------------------------------------


def test_a_lone_card_matched_by_its_rank_is_a_basra() -> None:
    """RULES.md Basra (v1 rule 6): a single floor card taken by a card of the same rank."""
    after = play(position(rules_of("egyptian-v1"), [["9S"], ["2D"]], ["9D"]), 0, "9S")
    assert after.last_play.basra == "basra" and after.basras == (1, 0)


def test_basra_needs_every_floor_card_taken() -> None:
    """RULES.md Basra: the play must take every floor card."""
    after = play(position(rules_of(), [["9S"], ["2D"]], ["9D", "KC"]), 0, "9S")
    assert after.last_play.basra is None


def test_basra_with_the_last_card_of_the_round_may_not_count() -> None:
    """RULES.md basra.last_play_counts: false takes away a basra made with the round's last card."""
    hands = [[], ["9S"]]
    rules = rules_of(basra={"last_play_counts": False}, target_score=1000)
    after = play(position(rules, hands, ["9D"], turn=1), 1, "9S")
    assert after.results[-1].basras == (0, 0)
    rules = rules_of(target_score=1000)
    after = play(position(rules, hands, ["9D"], turn=1), 1, "9S")
    assert after.results[-1].basras == (0, 1)


# --- Errors leave the state unchanged ----------------------------------------------


def test_illegal_moves_raise_typed_errors_with_reasons() -> None:
    """RULES.md Which capture: a capture that is not legal is rejected with a reason and
    nothing changes; so is playing out of turn, a card not held, or after the end."""
    state = position(rules_of(), [["9S", "2C"], ["2D"]], ["9D", "KC"])
    snapshot = state._replace()  # a copy: a refused move must leave the state as it was
    cases = [
        (Move(1, parse_card("2D")), NotYourTurn, "not_your_turn"),
        (Move(0, parse_card("3C")), CardNotInHand, "card_not_in_hand"),
        (Move(0, parse_card("9S"), c("KC")), IllegalCapture, "illegal_capture"),
    ]
    for move, error, reason in cases:
        with pytest.raises(error) as err:
            apply_move(state, move)
        assert err.value.reason == reason
        assert state == snapshot
    finished = resign(state, 0)
    with pytest.raises(MatchFinished) as err:
        apply_move(finished, Move(0, parse_card("9S")))
    assert err.value.reason == "match_finished"


# --- End of a round and scoring ---------------------------------------------------


def test_leftover_goes_to_the_last_capturer() -> None:
    """RULES.md leftover: last_capturer: the floor goes to whoever captured last; no basra."""
    rules = rules_of(target_score=1000)
    state = position(rules, [["5S"], ["KS"]], ["5C", "2H"], piles=[[], []])
    state = play(state, 0, "5S")  # takes 5C, team 0 captured last
    state = play(state, 1, "KS")  # round ends: 2H and KS go to team 0
    result = state.results[-1]
    assert result.basras == (0, 0)
    assert sum(result.cards) == 52


def test_leftover_none_is_not_counted() -> None:
    """RULES.md leftover: none: cards left on the floor are not counted."""
    rules = rules_of(leftover="none", target_score=1000)
    state = position(rules, [["5S"], ["KS"]], ["5C", "2H"], piles=[[], []])
    state = play(play(state, 0, "5S"), 1, "KS")
    assert sum(state.results[-1].cards) == 50


def test_most_cards_points_go_to_the_strict_leader() -> None:
    """RULES.md scoring.most_cards: 30 to the one with strictly the most cards."""
    r = score_round(rules_of(), 1, [DECK[:30], DECK[30:]], (0, 0), (0, 0), 0)
    assert r.points == (30, 0)


def test_most_cards_tie_none_gives_nobody_the_points() -> None:
    """RULES.md most_cards_tie: none (v2): nobody on a tie."""
    r = score_round(rules_of("egyptian-v2"), 1, [DECK[:26], DECK[26:]], (1, 0), (0, 0), 0)
    assert r.points == (10, 0) and r.carried == 0


def test_most_cards_tie_split_halves_rounded_down() -> None:
    """RULES.md most_cards_tie: split: half each, rounded down."""
    rules = rules_of(scoring={"most_cards_tie": "split", "most_cards": 31})
    r = score_round(rules, 1, [DECK[:26], DECK[26:]], (0, 0), (0, 0), 0)
    assert r.points == (15, 15)


def test_most_cards_tie_carry_over_adds_up_until_won() -> None:
    """RULES.md most_cards_tie: carry_over (v1): tied points go to whoever wins most cards in
    the next round, adding up over several tied rounds."""
    rules = rules_of("egyptian-v1")
    tie = score_round(rules, 1, [DECK[:26], DECK[26:]], (0, 0), (0, 0), 0)
    assert tie.points == (0, 0) and tie.carried == 30
    tie2 = score_round(rules, 2, [DECK[:26], DECK[26:]], (0, 0), (0, 0), tie.carried)
    assert tie2.carried == 60
    won = score_round(rules, 3, [DECK[:20], DECK[20:]], (0, 0), (0, 0), tie2.carried)
    assert won.points == (0, 90) and won.carried == 0


def test_basra_and_jack_basra_points() -> None:
    """RULES.md scoring.basra and scoring.jack_basra: points for each."""
    rules = rules_of(scoring={"basra": 10, "jack_basra": 20, "most_cards": 0})
    r = score_round(rules, 1, [DECK[:26], DECK[26:]], (2, 1), (1, 0), 0)
    assert r.points == (40, 10)


def test_card_points_by_rank_and_by_card() -> None:
    """RULES.md scoring.cards: points per captured card by rank or card; a card key overrides
    its rank key (Pagat: J 1, A 1, 2C 2, 10D 3)."""
    rules = rules_of("pagat", scoring={"most_cards": 0})
    r = score_round(rules, 1, [c("JC AS 2C 10D 10C"), c("2H 10H")], (0, 0), (0, 0), 0)
    assert r.card_points == (7, 0) and r.points == (7, 0)
    rules = rules_of(scoring={"cards": {"A": 1, "AS": 5}, "most_cards": 0})
    r = score_round(rules, 1, [c("AS AC"), c("AH")], (0, 0), (0, 0), 0)
    assert r.card_points == (6, 1)


def _play_to_end(state):  # noqa: ANN001, ANN202
    while not state.finished:
        state = apply_move(state, legal_moves(state)[0])
    return state


def test_match_ends_when_a_score_reaches_the_target_and_the_highest_wins() -> None:
    """RULES.md Match: rounds continue until a score reaches target_score; highest wins."""
    state = _play_to_end(new_match(rules_of(target_score=60), SEED))
    assert max(state.scores) >= 60
    assert state.winner == state.scores.index(max(state.scores))
    totals = [sum(r.points[t] for r in state.results) for t in range(2)]
    assert list(state.scores) == totals
    assert all(max(sum(r.points[t] for r in state.results[:k]) for t in range(2)) < 60
               for k in range(1, len(state.results)))


def test_target_tie_play_on_and_draw() -> None:
    """RULES.md target_tie: play_on (v2) plays more rounds on a tie at the top; draw ends
    the match drawn."""
    # no tie: team 0 holds most cards (30) and team 1 makes a basra (10): 90 to 60
    rules = rules_of(target_score=50, target_tie="draw")
    state = position(rules, [[], ["9S"]], ["9D"], turn=1, scores=(60, 50), piles=[["2C"], []])
    state = play(state, 1, "9S")
    assert state.results[-1].points == (30, 10)
    assert state.finished and state.winner == 0 and not state.draw
    # a constructed exact tie
    for tie, finished in (("draw", True), ("play_on", False)):
        rules = rules_of(target_score=50, target_tie=tie, scoring={"most_cards": 0})
        state = position(rules, [[], ["9S"]], ["9D"], turn=1, scores=(60, 50), piles=[["2C"], []])
        state = play(state, 1, "9S")
        assert state.scores == (60, 60)
        assert state.finished is finished
        assert state.draw is finished
        assert state.winner is None
        if not finished:
            assert state.round == 2


def test_four_players_play_in_partnerships() -> None:
    """RULES.md Seats: players: 4 are two partnerships, seats 0+2 against 1+3, sharing one
    pile and one score."""
    rules = rules_of("egyptian-4p")
    state = position(rules, [["9S"], ["2D"], ["3D"], ["4D"]], ["9D"], stock=[], piles=[[], []])
    state = play(state, 0, "9S")
    assert state.basras == (1, 0) and len(state.piles) == 2
    state = play(state, 1, "2D")
    state = play(state, 2, "3D")  # seat 2 plays for team 0: takes nothing (2+... no 3)
    assert state.turn == 3
    game = new_match(rules, SEED)
    assert [len(h) for h in game.hands] == [4, 4, 4, 4] and len(game.stock) == 32


def test_starting_floor_terminates_when_nearly_every_card_is_listed() -> None:
    """RULES.md Starting floor, with a house rule listing twelve of the thirteen ranks: the
    deal still ends, and every card stays accounted for."""
    from service.engine import cards_accounted

    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]
    state = new_match(rules_of(initial_floor={"return_to_deck": ranks}), SEED)
    assert cards_accounted(state) == 52
    assert sum(c.rank == "K" for c in state.floor) == 4  # the four kings reach the floor


def test_default_capture_is_largest_then_first_in_deck_order() -> None:
    """RULES.md mode: maximum: with several equally large captures and none named, the
    engine picks by its documented order: largest first, then the capture whose cards
    come first in deck order (A..K, suits C D H S)."""
    rules = rules_of("egyptian-v1", capture={"mode": "choose"})
    state = position(rules, [["6S"], ["2D"]], ["AC", "5H", "2C", "4H", "6C"])
    options = [format_cards(m.capture) for m in legal_moves(state) if str(m.card) == "6S"]
    sizes = [len(o) for o in options]
    assert sizes == sorted(sizes, reverse=True)
    for a, b in zip(options, options[1:], strict=False):
        if len(a) == len(b):
            assert [parse_card(x) for x in a] < [parse_card(x) for x in b]
    assert options[0] == ["AC", "2C", "4H", "5H", "6C"]
    assert format_cards(play(state, 0, "6S").last_play.captured) == options[0]
    state = position(rules_of("egyptian-v1"), [["5S"], ["2D"]], ["3H", "2H", "2C"])
    assert format_cards(play(state, 0, "5S").last_play.captured) == ["2C", "3H"]
