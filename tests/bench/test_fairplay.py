"""``python -m bench fairplay`` at a toy size: it plays, grades, rates and judges a
population with the service's own detector, and answers each prefix's figures for
players, pairs and both."""

from __future__ import annotations

import pytest

from bench import fairplay


@pytest.mark.long  # handed out first: the core's tail is then short tests
def test_the_simulator_judges_each_prefix_with_the_services_detector() -> None:
    figures = fairplay.main(["--players", "12", "--matches", "20", "--processes", "1",
                             "--graded", "2", "--assisted", "0.1", "--dumping", "0.2"])
    assert set(figures) == {"20"}
    for kind in ("players", "pairs", "both"):
        shown = figures["20"][kind]
        assert set(shown) >= {"precision", "recall", "honest_flagged"}
        assert all(0.0 <= shown[k] <= 1.0 for k in ("precision", "recall", "honest_flagged"))
    assert figures["20"]["players"]["positives"] == 1
    assert figures["20"]["pairs"]["positives"] == 1
