# One-command set-up: `make serve` and `make test` create .venv and install first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
WORKER_METRICS_PORT ?= 9101

.PHONY: install system serve test test-compiled compiled lint typecheck check bench openapi docs docs-serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# what the tests need outside Python, as command:Debian package: the browser tests drive
# Debian's chromium, the curl walk-through needs curl, jq and xxd, the mypyc build a C
# compiler, the generated TypeScript client node and npm. As root they are installed
# with apt-get; otherwise this stops at once with the one command that installs them.
SYSTEM_PACKAGES := chromium:chromium curl:curl jq:jq xxd:xxd cc:gcc node:nodejs npm:npm
system:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing$$missing (apt-get; its output in build/system.log)"; mkdir -p build; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; } \
	    > build/system.log 2>&1 || { tail -20 build/system.log; exit 1; }; \
	else \
	  echo "the tests need$$missing; install them with:" >&2; \
	  echo "  sudo apt-get install -y$$missing" >&2; exit 1; \
	fi

# the API and the worker (turn clocks, expiries, webhooks); stopping one stops both
serve: $(STAMP)
	$(BIN)/basra db upgrade
	$(BIN)/basra worker --metrics-port $(WORKER_METRICS_PORT) & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/gunicorn --config service/gunicorn_conf.py --bind $(HOST):$(PORT) 'service:create_app()'

# the whole suite on the pure-Python engine, then the engine tests on its mypyc build
test: system $(STAMP)
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

check: lint typecheck docs test

bench: compiled
	$(BIN)/python -m bench

openapi: $(STAMP)
	$(BIN)/python -m service.openapi > openapi.yaml

# the docs site (mkdocs-material) into build/site; docs-serve reloads as pages change
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info build
