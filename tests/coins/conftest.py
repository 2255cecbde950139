"""Every coins test ends with the ledger's checker on the apps it used."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _ledger_checked(ledger_checked: None) -> None:
    """The checker after each test (:func:`tests.conftest.ledger_checked`)."""
