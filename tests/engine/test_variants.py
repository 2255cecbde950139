"""Variant files and house rules: RULES.md's table, validation with key paths, hashes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from service.engine import (
    InvalidRules,
    UnknownVariant,
    load_rules_file,
    load_variant,
    rules_from_mapping,
    variant_names,
    with_house_rules,
)
from service.engine.rules import variants_dir

SETTINGS = [
    "players", "hand_size", "floor_size", "initial_floor.return_to_deck", "capture.groups",
    "capture.mode", "capture.compulsory", "jack.sweeps", "jack.lone_jack_basra",
    "seven_of_diamonds.special", "seven_of_diamonds.basra", "seven_of_diamonds.on_floor",
    "basra.last_play_counts", "leftover", "scoring.most_cards", "scoring.most_cards_tie",
    "scoring.basra", "scoring.jack_basra", "scoring.cards", "target_score", "target_tie",
]


def _get(data: dict, path: str) -> object:
    for key in path.split("."):
        data = data[key]
    return data


def test_shipped_variants_are_the_four_of_rules_md() -> None:
    """RULES.md: egyptian-v1, egyptian-v2, pagat and egyptian-4p ship as variant files."""
    assert variant_names() == ["egyptian-4p", "egyptian-v1", "egyptian-v2", "pagat"]


@pytest.mark.parametrize("name", ["egyptian-4p", "egyptian-v1", "egyptian-v2", "pagat"])
def test_every_variant_file_names_every_setting(name: str) -> None:
    """README "Variants": each file lists every setting of RULES.md under its name."""
    raw = yaml.safe_load((variants_dir() / f"{name}.yaml").read_text())
    for path in SETTINGS:
        _get(raw, path)


def test_editions_side_by_side_table() -> None:
    """RULES.md "The two editions side by side": the settings table, v1 against v2."""
    v1, v2 = load_variant("egyptian-v1").rules, load_variant("egyptian-v2").rules
    table = {
        "capture.groups": ("disjoint", "disjoint"),
        "capture.mode": ("maximum", "maximum"),
        "jack.lone_jack_basra": (False, True),
        "seven_of_diamonds.basra": ("any_rank", "any_rank"),
        "seven_of_diamonds.on_floor": ("plain", "wild"),
        "scoring.most_cards_tie": ("carry_over", "none"),
        "target_tie": ("play_on", "play_on"),
        "scoring.most_cards": (30, 30),
        "scoring.basra": (10, 10),
        "scoring.jack_basra": (10, 10),
        "target_score": (101, 101),
    }
    for path, (a, b) in table.items():
        assert (_get(v1.to_dict(), path), _get(v2.to_dict(), path)) == (a, b), path


def test_pagat_and_four_player_files() -> None:
    """RULES.md: pagat has card points, sum_at_most_10, no lone jack basra, carry_over;
    egyptian-4p is v2 for four players."""
    pagat = load_variant("pagat").rules
    assert dict(pagat.scoring.cards) == {"J": 1, "A": 1, "2C": 2, "10D": 3}
    assert pagat.seven_of_diamonds.basra == "sum_at_most_10"
    assert not pagat.jack.lone_jack_basra and pagat.scoring.most_cards_tie == "carry_over"
    four = load_variant("egyptian-4p").rules.to_dict()
    two = load_variant("egyptian-v2").rules.to_dict()
    assert four.pop("players") == 4 and two.pop("players") == 2
    assert four == two


@pytest.mark.parametrize(
    ("override", "path", "problem"),
    [
        ({"capture": {"mode": "greedy"}}, "capture.mode", "must be one of maximum, choose"),
        ({"capture": {"moed": "choose"}}, "capture.moed", "unknown setting"),
        ({"colour": "red"}, "colour", "unknown setting"),
        ({"players": 3}, "players", "must be one of 2, 4"),
        ({"players": True}, "players", "must be one of 2, 4"),
        ({"hand_size": "4"}, "hand_size", "must be a whole number"),
        ({"hand_size": 0}, "hand_size", "must be at least 1"),
        ({"jack": {"sweeps": "yes"}}, "jack.sweeps", "must be true or false"),
        ({"jack": 5}, "jack", "must be a mapping"),
        ({"scoring": {"cards": {"Z": 1}}}, "scoring.cards.Z", "'Z' is neither a rank"),
        ({"scoring": {"cards": {"2C": "two"}}}, "scoring.cards.2C", "must be a whole number"),
        ({"initial_floor": {"return_to_deck": ["J", "XX"]}}, "initial_floor.return_to_deck[1]",
         "'XX' is neither a rank"),
        ({"players": 4, "hand_size": 12, "floor_size": 8}, "hand_size",
         "players x hand_size + floor_size is"),
        ({"hand_size": 13}, "hand_size", "must be at most 12"),
        ({"floor_size": 17}, "floor_size", "must be at most 16"),
        ({"target_score": 10_001}, "target_score", "must be at most 10000"),
        ({"target_score": 10**4300}, "target_score", "must be at most 10000"),
        ({"scoring": {"basra": 1001}}, "scoring.basra", "must be at most 1000"),
        ({"scoring": {"cards": {"AS": 101}}}, "scoring.cards.AS", "must be 0 to 100 points"),
        ({"scoring": {"cards": {"AS": -1}}}, "scoring.cards.AS", "must be 0 to 100 points"),
        ({"initial_floor": {"return_to_deck": ["J"] * 41_600}}, "initial_floor.return_to_deck",
         "must list at most 17"),
    ],
)
def test_invalid_house_rules_name_the_bad_key(override: dict, path: str, problem: str) -> None:
    """Variants are validated on load: unknown or mistyped keys name the key's path."""
    base = load_variant("egyptian-v2").rules
    with pytest.raises(InvalidRules) as err:
        with_house_rules(base, override)
    assert err.value.path == path
    assert err.value.problem.startswith(problem)
    assert str(err.value).startswith(f"{path}: {problem}")


def test_a_twelve_card_starting_floor_stays_allowed() -> None:
    """Bounds are generous for real house rules: a 12-card (even 16-card) starting floor."""
    base = load_variant("egyptian-v2").rules
    assert with_house_rules(base, {"floor_size": 12}).floor_size == 12
    assert with_house_rules(base, {"floor_size": 16, "hand_size": 12}).hand_size == 12


def test_invalid_variant_file_is_rejected_with_path(tmp_path: Path) -> None:
    """A variant file with a bad key fails to load, naming the key."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: egyptian-v1\nseven_of_diamonds:\n  on_floor: sticky\n")
    with pytest.raises(InvalidRules, match="seven_of_diamonds.on_floor: must be one of plain, wild"):
        load_rules_file(bad)
    bad.write_text("capture: [1, 2]\n")
    with pytest.raises(InvalidRules, match="capture: must be a mapping"):
        load_rules_file(bad)


def test_house_rules_deep_merge_onto_a_variant() -> None:
    """A partial override changes only the keys it names."""
    base = load_variant("egyptian-v1").rules
    merged = with_house_rules(base, {"capture": {"groups": "union"}})
    assert merged.capture.groups == "union" and merged.capture.mode == "maximum"
    assert merged.jack == base.jack and merged.scoring == base.scoring


def test_house_rule_file_extends_a_shipped_variant(tmp_path: Path) -> None:
    """A house-rule file may start from a shipped variant with `extends:`."""
    path = tmp_path / "cairo.yaml"
    path.write_text("extends: egyptian-v2\ntarget_score: 61\nscoring: {most_cards_tie: split}\n")
    rules = load_rules_file(path)
    assert rules.target_score == 61 and rules.scoring.most_cards_tie == "split"
    assert rules.seven_of_diamonds.on_floor == "wild"


def test_a_variant_is_parsed_once_and_again_when_its_files_change(tmp_path: Path) -> None:
    """Loading a variant again gives the same rules without parsing; an edit to its file,
    or to the file it extends, is seen on the next load."""
    (tmp_path / "base.yaml").write_text("target_score: 61\n")
    (tmp_path / "house.yaml").write_text("extends: base\nhand_size: 4\n")
    first = load_variant("house", tmp_path)
    assert load_variant("house", tmp_path) is first
    assert (first.rules.target_score, first.rules.hand_size) == (61, 4)
    (tmp_path / "house.yaml").write_text("extends: base\nhand_size: 6\n")
    edited = load_variant("house", tmp_path)
    assert (edited.rules.target_score, edited.rules.hand_size) == (61, 6)
    (tmp_path / "base.yaml").write_text("target_score: 31\n")
    assert load_variant("house", tmp_path).rules.target_score == 31
    (tmp_path / "house.yaml").unlink()
    with pytest.raises(UnknownVariant, match="known: base"):
        load_variant("house", tmp_path)


def test_content_hash_is_stable_and_tracks_settings() -> None:
    """Each effective rule set has a stable content hash."""
    v2 = load_variant("egyptian-v2").rules
    same = rules_from_mapping(v2.to_dict())
    assert v2.content_hash == same.content_hash and len(v2.content_hash) == 64
    assert with_house_rules(v2, {"target_score": 61}).content_hash != v2.content_hash
    assert with_house_rules(v2, {"target_score": 101}).content_hash == v2.content_hash


def test_unknown_variant() -> None:
    """Loading a variant that does not exist is a typed error listing the known ones."""
    with pytest.raises(UnknownVariant, match="egyptian-v2"):
        load_variant("egyptian-v9")
    with pytest.raises(UnknownVariant):
        load_variant("../etc/passwd")


def test_every_bad_key_is_reported_at_once() -> None:
    """House-rule validation names every bad key, not only the first it meets."""
    base = load_variant("egyptian-v2").rules
    with pytest.raises(InvalidRules) as err:
        with_house_rules(base, {"capture": {"mode": "greedy", "groups": "all"}, "colour": "red",
                                "target_score": 0})
    paths = [p for p, _ in err.value.problems]
    assert sorted(paths) == ["capture.groups", "capture.mode", "colour", "target_score"]
    assert err.value.path in paths and "colour: unknown setting" in str(err.value)
