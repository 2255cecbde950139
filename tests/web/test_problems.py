"""Every typed error is mapped (issue 53, item 6): each kind of the service's errors says
its ``reason`` and, beside it, its HTTP ``status``; the engine's, which know no HTTP,
are in the table of service/problems.py. No error answers without a reason."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import pytest
from flask import Flask

import service
from service import problems
from service.engine.errors import BasraError
from service.errors import ServiceError
from service.tenants.errors import TenantNameTaken, TenantNotFound
from service.web.problems import domain_problem, status_of

ENTRY_POINTS = {"service.gunicorn_conf"}
"""Modules that configure the process they are imported in, and define no error."""


def _kinds() -> Iterator[type[BasraError]]:
    for module in pkgutil.walk_packages(service.__path__, "service."):
        if module.name in ENTRY_POINTS or module.name.startswith("service.storage.migrations"):
            continue  # their import acts on the process (gunicorn's settings set the metrics' env)
        importlib.import_module(module.name)  # every kind the service can raise, defined

    def below(cls: type[BasraError]) -> Iterator[type[BasraError]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    yield from sorted(set(below(BasraError)), key=lambda c: (c.__module__, c.__qualname__))


KINDS = [kind for kind in _kinds() if kind is not ServiceError]


def test_the_walk_finds_every_domains_errors() -> None:
    modules = {kind.__module__ for kind in KINDS}
    assert {"service.engine.errors", "service.errors", "service.tenants.errors",
            "service.matches.errors", "service.social.errors"} <= modules
    assert TenantNameTaken in KINDS and len(KINDS) > 70


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__qualname__)
def test_every_error_kind_has_a_reason_and_a_status(kind: type[BasraError]) -> None:
    assert kind.reason and kind.reason != BasraError.reason, f"{kind} says no reason"
    status = status_of(kind, problems.STATUSES)
    assert status is not None, f"{kind} has no status: give it one beside its reason"
    assert 400 <= status < 600
    if issubclass(kind, ServiceError):  # the status sits beside the reason, on the class
        assert getattr(kind, "status", None) == status


@pytest.mark.parametrize(("error", "status"), [
    (TenantNameTaken("'local' is the built-in tenant"), 409),
    (TenantNotFound("no front end called 'x'"), 404),
])
def test_a_taken_name_and_an_unknown_front_end_answer_409_and_404(
        app: Flask, error: ServiceError, status: int) -> None:
    """They carried their reasons but were missing from the hand-kept table: 400."""
    with app.test_request_context():
        answer = domain_problem(error, problems.STATUSES, problems.HEADERS)
    assert answer.status_code == status
    assert answer.get_json()["reason"] == error.reason
