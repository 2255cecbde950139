"""The API contract: openapi.yaml matches the code; schemathesis finds no 5xx or schema
break; deployment files parse; migrations match the models."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import schemathesis
import yaml
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.control import SkipTest
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from service import create_app
from service.openapi import render
from service.storage.db import db
from service.storage.partitions import include_name
from tests.client import create
from tests.conftest import make_app

ROOT = Path(__file__).resolve().parents[2]


def test_openapi_yaml_is_generated_from_the_code() -> None:
    """openapi.yaml is exactly what the code generates (run `make openapi` after a change)."""
    committed = (ROOT / "openapi.yaml").read_text()
    assert committed == render(), "openapi.yaml drifted from the code: run `make openapi`"


def test_the_document_is_written_when_first_read_and_once(tmp_path: Path) -> None:
    """An app answers its routes without writing its OpenAPI document (each gunicorn
    worker and CLI run would pay 0.06 s of CPU for it); the first read writes it, as
    openapi.yaml has it, and a second read is the same document."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'doc.sqlite3'}"})
    api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    assert app.test_client().get("/healthz").status_code == 200
    assert api._written is None
    served = app.test_client().get("/openapi.json").get_json()
    written = api._written
    assert written is not None and api.spec is written
    assert yaml.safe_dump(served, sort_keys=False, allow_unicode=True, width=100) == \
        (ROOT / "openapi.yaml").read_text()


def test_every_operation_has_a_name_of_its_own() -> None:
    """Client generators (openapi-generator, orval, Kiota) name methods by operationId:
    every operation has one, unique, in lowerCamelCase."""
    import re

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    names = [op.get("operationId") for item in spec["paths"].values()
             for op in item.values() if isinstance(op, dict) and "responses" in op]
    assert all(n and re.fullmatch(r"[a-z]+(?:[A-Z][a-z]*)*", n) for n in names), names
    assert len(names) == len(set(names)) >= 34


def test_every_operation_lists_the_problems_it_can_answer() -> None:
    """Every /v1 operation lists 401, 429 and 503 (and 404 with a path parameter) with
    the problem schema, not folded into `default`."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if not (isinstance(op, dict) and "responses" in op and path.startswith("/v1/")):
                continue
            wanted = {"401", "429", "503"} | ({"404"} if "{" in path else set())
            assert wanted <= set(op["responses"]), (method, path, sorted(op["responses"]))
    problems = spec["components"]["responses"]["TOO_MANY_REQUESTS"]["content"]
    assert "application/problem+json" in problems


def test_openapi_document_is_valid_and_covers_the_api() -> None:
    """The document is valid OpenAPI 3.1 and lists every endpoint of the contract."""
    from openapi_spec_validator import validate

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    validate(spec)
    assert set(spec["paths"]) >= {
        "/healthz", "/readyz", "/v1/variants", "/v1/variants/{name}", "/v1/matches",
        "/v1/matches/{match_id}", "/v1/matches/{match_id}/moves",
        "/v1/matches/{match_id}/resign", "/v1/matches/{match_id}/hint",
    }
    error = spec["components"]["responses"]["DEFAULT_ERROR"]["content"]
    assert list(error) == ["application/problem+json"]


def test_conditional_reads_declare_their_headers_and_query() -> None:
    """Every operation that answers 304 takes `If-None-Match` and says its 304 carries an
    `ETag`; the match's long poll lists `?wait=` beside that header (a manual list of
    header parameters once replaced the generated query parameters)."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    conditional = {}
    for item in spec["paths"].values():
        for op in item.values():
            if isinstance(op, dict) and "304" in op.get("responses", {}):
                conditional[op["operationId"]] = op
    assert {"getMatch", "listMoves"} <= set(conditional)
    for name, op in conditional.items():
        params = {(p["in"], p["name"]) for p in op.get("parameters", [])}
        assert ("header", "If-None-Match") in params, name
        assert "ETag" in op["responses"]["304"].get("headers", {}), name
    get_match = {(p["in"], p["name"]) for p in conditional["getMatch"]["parameters"]}
    assert ("query", "wait") in get_match
    list_moves = {(p["in"], p["name"]) for p in conditional["listMoves"]["parameters"]}
    assert ("query", "after") in list_moves


CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


NEGATIVE_CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
                   negative_data_rejection]


def _fuzz(app: Flask, mode: GenerationMode) -> None:
    """schemathesis over every operation of ``app``'s document in ``mode``."""
    create(app.test_client())
    spec = app.test_client().get("/openapi.json").get_json()
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    if mode == GenerationMode.NEGATIVE:
        # negative alone: an operation with nothing to get wrong is said so at its first
        # case (SkipTest), where with both modes hypothesis gives up after ~460 rejected
        schema.config.generation.update(modes=[mode])
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    checks = CHECKS if mode == GenerationMode.POSITIVE else NEGATIVE_CHECKS
    tried = 0
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=int(os.environ.get("BASRA_FUZZ_EXAMPLES", "15")), deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def run(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=checks)

        try:
            run()
            tried += 1
        except (SkipTest, Unsatisfiable):  # nothing in the request to get wrong (path ids alone)
            assert mode == GenerationMode.NEGATIVE, operation.label
            raw = spec["paths"][operation.path][operation.method.lower()]
            assert "requestBody" not in raw and not any(
                p["in"] == "query" for p in raw.get("parameters", [])), operation.label
    assert tried >= len(operations) // 2


@pytest.mark.long  # handed out first: the core's tail is then short tests
def test_api_fuzz(app: Flask) -> None:
    """schemathesis over every endpoint with valid requests, on each database: no 5xx;
    every status, content type and body as documented."""
    _fuzz(app, GenerationMode.POSITIVE)


@pytest.mark.long
def test_api_fuzz_refuses_invalid_input_on_postgres(tmp_path: Path) -> None:
    """schemathesis over every endpoint with invalid requests: each refused with a 4xx, no
    5xx (every operation with a body or a query to get wrong is tried). On PostgreSQL
    alone: invalid input is refused before any query, and were a value to slip through,
    PostgreSQL's types (int4, no NUL in text) are the ones it would break."""
    _fuzz(make_app("postgres", tmp_path), GenerationMode.NEGATIVE)


def test_docker_compose_runs_postgres_migrations_and_gunicorn() -> None:
    """docker-compose.yml: PostgreSQL and Redis with health checks, a one-shot migration,
    and the API under gunicorn waiting for them, with API keys required (parsed here:
    Docker does not run on CI)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert services["db"]["image"].startswith("postgres")
    assert "healthcheck" in services["db"]
    assert services["migrate"]["command"] == ["basra", "db", "upgrade"]
    assert services["migrate"]["environment"]["DATABASE_URL"].startswith("postgresql+psycopg://")
    api = services["api"]
    assert api["command"][0] == "gunicorn" and "service:create_app()" in api["command"]
    assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert api["depends_on"]["db"]["condition"] == "service_healthy"
    assert "/readyz" in " ".join(api["healthcheck"]["test"])
    assert api["environment"]["BASRA_API_KEYS"] == "required"
    assert api["environment"]["REDIS_URL"].startswith("redis://redis")
    assert services["redis"]["image"].startswith("redis")
    assert api["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["worker"]["command"] == ["basra", "worker", "--metrics-port", "9101"]
    # Prometheus scrapes the API and the worker
    scrape = yaml.safe_load((ROOT / "ops" / "prometheus.yml").read_text())
    targets = {t for job in scrape["scrape_configs"] for c in job["static_configs"]
               for t in c["targets"]}
    assert targets == {"api:8000", "worker:9101"}
    assert "./ops/prometheus.yml:/etc/prometheus/prometheus.yml:ro" in \
        services["prometheus"]["volumes"]


def test_migrations_match_the_models(app: Flask) -> None:
    """After `basra db upgrade` the database has exactly the tables the models declare
    (on PostgreSQL a partitioned table's days are its own, not the models')."""
    with app.app_context(), db.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_name": include_name})
        diff = compare_metadata(context, db.metadata)
    assert diff == []


def test_the_docs_ui_is_served_by_the_service_itself(client) -> None:  # noqa: ANN001
    """/docs loads Swagger UI from the pinned swagger-ui-py package through the service,
    never from a CDN: it works with no network but the service's own."""
    page = client.get("/docs").get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in page and "http" not in page.split("<script>")[0]
    for name, kind in (("swagger-ui-bundle.js", "javascript"), ("swagger-ui.css", "css"),
                       ("swagger-ui-standalone-preset.js", "javascript")):
        r = client.get(f"/docs/assets/{name}")
        assert r.status_code == 200 and kind in r.content_type and len(r.data) > 1000
    assert client.get("/docs/assets/../../__init__.py").status_code == 404
