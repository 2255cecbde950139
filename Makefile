# One-command set-up: `make serve` and `make test` create .venv and install first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
HOST ?= 127.0.0.1
PORT ?= 8000
# the worker's metrics beside the API's port (9101 beside 8000): two checkouts never collide
WORKER_METRICS_PORT ?= $(shell echo $$(($(PORT) + 1101)))
COMPILED := build/compiled
COMPILED_MODULES := board captures sums state game shuffle simulate bots/heuristics bots/worlds \
	bots/playouts bots/search bots/registry
ENGINE_SOURCES := $(wildcard service/engine/*.py service/engine/*/*.py)
ENGINE_BUILD := $(COMPILED)/SOURCES

PATRONI_VENV ?= /opt/basra-patroni

.PHONY: install system topology patroni serve test test-pgbouncer test-pure compiled lint typecheck check bench openapi docs docs-serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# the set-up: Python packages, then the engine compiled with mypyc (with a C compiler;
# pure Python without one, said so)
install: $(STAMP) $(ENGINE_BUILD)

# what the tests need outside Python, as command:Debian package: the browser tests drive
# Debian's chromium, the curl walk-through needs curl, jq and xxd, the mypyc build a C
# compiler, the generated TypeScript client node and npm, the failover test etcd, the
# alerting rules' tests promtool (in Debian's prometheus), the pooled run pgbouncer, the
# topology haproxy too (both in /usr/sbin, off a user's PATH: a command may be a path) and
# redis-server (a private Redis of a test's own). As root they are installed
# with apt-get; otherwise this stops at once with the one command that installs them.
SYSTEM_PACKAGES := chromium:chromium curl:curl jq:jq xxd:xxd cc:gcc node:nodejs npm:npm \
	etcd:etcd-server promtool:prometheus /usr/sbin/pgbouncer:pgbouncer \
	/usr/sbin/haproxy:haproxy redis-server:redis-server
system:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do command=$${pair%:*}; \
	  case $$command in /*) test -x $$command ;; *) command -v $$command >/dev/null 2>&1 ;; esac \
	    || missing="$$missing $${pair##*:}"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing$$missing (apt-get; its output in build/system.log)"; mkdir -p build; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; } \
	    > build/system.log 2>&1 || { tail -20 build/system.log; exit 1; }; \
	else \
	  echo "the tests need$$missing; install them with:" >&2; \
	  echo "  sudo apt-get install -y$$missing" >&2; exit 1; \
	fi

# the topology operators run, on this machine (bench/topology.py): HAProxy round-robin over
# gunicorn instances, PgBouncer in transaction mode, Redis and basra workers, on a fresh
# basra_topology database; it prints the balancer's URL and a server API key, and stays up
# until Ctrl-C. TOPOLOGY="--instances 3 --workers-per-instance 2 --basra-workers 2 --port 8080"
TOPOLOGY ?=
topology: system install
	$(BIN)/python -m bench topology up $(TOPOLOGY)

# Patroni from PyPI for the failover test (tests/storage/test_failover.py), in a virtualenv
# of Debian's Python outside the checkout: it runs PostgreSQL as the postgres user, who
# must reach it (a Python under /root is out of reach). Only as root, as the test runs.
patroni: $(PATRONI_VENV)/bin/patroni

$(PATRONI_VENV)/bin/patroni:
	@if [ "$$(id -u)" != 0 ]; then \
	  echo "patroni: not as root, so the failover test will be skipped"; exit 0; fi; \
	/usr/bin/python3 -m venv --help >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv; } >/dev/null; \
	/usr/bin/python3 -m venv $(PATRONI_VENV) && \
	$(PATRONI_VENV)/bin/pip install --quiet 'patroni[etcd3,psycopg3]>=4.0' && \
	echo "patroni: $$($(PATRONI_VENV)/bin/patroni --version) in $(PATRONI_VENV)"

# the API and the worker (turn clocks, expiries, webhooks); stopping one stops both
# local webhook receivers allowed, and a player listed after one rated game: a front
# end's developer tries both on this machine
serve: export BASRA_WEBHOOKS_ALLOW_PRIVATE ?= 1
serve: export BASRA_LEADERBOARD_MIN_GAMES ?= 1
serve: install
	$(BIN)/basra db upgrade
	$(BIN)/basra worker --metrics-port $(WORKER_METRICS_PORT) & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/gunicorn --config service/gunicorn_conf.py --bind $(HOST):$(PORT) 'service:create_app()'

# the whole suite on the engine as installed (compiled where it could be), in stages:
# the tests that share one app per backend, two pytest-xdist workers a core (a database
# each; half a test's time is spent waiting on the database, a poll or a retry: on 2
# cores 4 workers took 229 s, 2 took 302 s); beside them, those that start processes
# (gunicorn, browsers, clusters), PROCESS_WORKERS files at once, the longest files first
# (they mostly wait on their processes; their workers' databases are named apart), its
# report after the core's. The core runs niced: it only uses the cores, while a process
# test's clocks and deadlines need its processes served when they wake. The core lists
# its 12 slowest. Then those whose timings hold only alone, one at a time. The engine's
# tests on the pure-Python engine are `make test-pure` (CI runs it); here one process
# test plays the same matches on both builds (tests/engine/test_parity.py)
TEST_WORKERS ?= $(shell echo $$((2 * $$(nproc))))
PROCESS_WORKERS ?= 4
# each stage's processes load the tests' and the service's bytecode compiled once (with
# PYTHONDONTWRITEBYTECODE set, every pytest worker, gunicorn worker and CLI run
# recompiled them, and pytest rewrote every test file's asserts: 3-4 s of each)
test test-pure: export PYTHONDONTWRITEBYTECODE =
test test-pure: export PYTHONPYCACHEPREFIX ?= $(abspath build/pycache)
test: system install patroni
	@mkdir -p build; \
	BASRA_TEST_STAGE=processes BASRA_PATRONI=$(PATRONI_VENV)/bin/patroni $(BIN)/python -m pytest \
	  -m "process and not alone" -n $(PROCESS_WORKERS) --dist loadfile --no-loadscope-reorder \
	  > build/test-processes.log 2>&1 & processes=$$!; \
	nice -n 10 $(BIN)/python -m pytest -m "not process" -n $(TEST_WORKERS) --durations=12; core=$$?; \
	wait $$processes; processes=$$?; \
	echo "--- the tests that start processes (run beside the others):"; \
	cat build/test-processes.log; \
	[ $$core = 0 ] && [ $$processes = 0 ]
	$(BIN)/python -m pytest -m "process and alone"

# the PostgreSQL half of the tests again through PgBouncer in transaction mode (one of
# each pytest worker's own before its database; tests/conftest.py), as deployments
# with many instances run: no prepared statements, LISTEN and migrations straight
test-pgbouncer: system install
	BASRA_TEST_POOLER=pgbouncer $(BIN)/python -m pytest -m "not process" -k postgres \
	  -n $(TEST_WORKERS)

# the engine compiled with mypyc into build/compiled: only the extension modules are
# kept, with the digest of the sources they came from (service/engine/build.py uses the
# build while it matches them). Rebuilt when an engine source changes.
$(ENGINE_BUILD): $(STAMP) $(ENGINE_SOURCES)
	@rm -rf $(COMPILED) build/compiling; \
	if ! command -v cc >/dev/null 2>&1; then \
	  echo "engine: pure Python (no C compiler for the mypyc build: apt-get install gcc)"; exit 0; fi; \
	mkdir -p build/compiling && cp -r service build/compiling/ && \
	cd build/compiling && $(abspath $(BIN))/mypyc $(COMPILED_MODULES:%=service/engine/%.py) > mypyc.log 2>&1 \
	|| { tail -20 mypyc.log; exit 1; }; \
	mkdir -p ../compiled/service/engine/bots && mv *__mypyc.*.so ../compiled/ && \
	mv service/engine/*.so ../compiled/service/engine/ && \
	mv service/engine/bots/*.so ../compiled/service/engine/bots/ && cd ../.. && rm -rf build/compiling && \
	$(BIN)/python service/engine/build.py > $@ && \
	echo "engine: compiled with mypyc ($(COMPILED))"

compiled: $(ENGINE_BUILD)

# the engine's tests again on the pure-Python engine (the suite ran on the default build),
# with the CLI's that play (its key commands use no engine: not again); CI runs it after
# `make test`. Not the engine's process tests: each starts both builds itself, whichever
# this process loads, and ran in `make test`
PURE_TESTS := tests/engine $(addprefix tests/app/test_cli.py::test_,\
	simulate_prints_what_players_want_to_know simulate_is_reproducible_from_its_seed \
	simulate_with_a_house_rule_file deck_prints_the_deck_a_revealed_seed_gives)
test-pure: $(STAMP)
	BASRA_ENGINE_BUILD=pure $(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not process" \
	  $(PURE_TESTS)

lint: $(STAMP)
	$(BIN)/ruff check service tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy --strict service/engine

check: lint typecheck docs test

# the benchmarks' own packages (Locust, matplotlib: the bench extra) beside dev's;
# BENCH names parts and their flags: make bench BENCH="load --players 20,50,100", or
# BENCH="soak --minutes 30 --players 70 --patroni" (the soak: docs/performance.md)
$(BENCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: compiled $(BENCH_STAMP)
	$(BIN)/python -m bench $(BENCH)

openapi: $(STAMP)
	$(BIN)/python -m service.openapi > openapi.yaml

# the docs site (mkdocs-material) into build/site; docs-serve reloads as pages change
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

docs-serve: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info build
