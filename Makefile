# One-command set-up: `make serve` and `make test` create .venv and install first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
WORKER_METRICS_PORT ?= 9101

.PHONY: install serve test lint typecheck check bench openapi clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# the API and the worker (turn clocks, expiries, webhooks); stopping one stops both
serve: $(STAMP)
	$(BIN)/basra db upgrade
	$(BIN)/basra worker --metrics-port $(WORKER_METRICS_PORT) & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/gunicorn --config service/gunicorn_conf.py --bind $(HOST):$(PORT) 'service:create_app()'

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check service tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict service/engine

check: lint typecheck test

bench: $(STAMP)
	$(BIN)/python -m bench

openapi: $(STAMP)
	$(BIN)/python -m service.openapi > openapi.yaml

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
