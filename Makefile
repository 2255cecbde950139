# One-command set-up: `make serve` and `make test` create .venv and install first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
WORKER_METRICS_PORT ?= 9101

.PHONY: install serve test test-compiled compiled lint typecheck check bench openapi clean

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

# the whole suite on the pure-Python engine, then the engine tests on its mypyc build
test: $(STAMP)
	$(BIN)/python -m pytest
	$(MAKE) test-compiled

# optional: the engine compiled with mypyc into build/compiled (pure Python stays the
# default; PYTHONPATH=build/compiled runs anything on the compiled engine)
COMPILED := build/compiled
COMPILED_MODULES := board captures sums state game shuffle simulate bots
compiled: $(STAMP)
	@rm -rf $(COMPILED); \
	if ! command -v cc >/dev/null 2>&1; then echo "compiled engine skipped: no C compiler (apt-get install gcc)"; exit 0; fi; \
	mkdir -p $(COMPILED) && cp -r service variants $(COMPILED)/ && \
	cd $(COMPILED) && $(abspath $(BIN))/mypyc $(COMPILED_MODULES:%=service/engine/%.py) > mypyc.log 2>&1 \
	|| { tail -20 mypyc.log; exit 1; }; echo "compiled engine: $(COMPILED)"

test-compiled: compiled
	@if [ -d $(COMPILED)/service ]; then \
	BASRA_ENGINE_BUILD=$(COMPILED) $(BIN)/python -m pytest -q tests/engine tests/app/test_cli.py; fi

lint: $(STAMP)
	$(BIN)/ruff check service tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy --strict service/engine

check: lint typecheck test

bench: compiled
	$(BIN)/python -m bench

openapi: $(STAMP)
	$(BIN)/python -m service.openapi > openapi.yaml

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
