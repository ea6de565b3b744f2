# Verbs for working on Gamenook. Everything runs from .venv; no activation needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help venv run compile test-compiled worker beat bench-realtime bench-streams bench-sweep bench-correspondence bench-ratings cluster-check connection-check memory test lint format typecheck bench bench-api bench-engine bench-web screenshots

help:
	@echo "make run        install into .venv, migrate, serve on http://127.0.0.1:8000 with a Celery worker and beat"
	@echo "make worker     a Celery worker alone (broker: CELERY_BROKER_URL, default files under .broker/)"
	@echo "make beat       Celery beat alone: the deadline sweep every GAMENOOK_SWEEP_SECONDS"
	@echo "make test       install, then ruff, mypy and the whole test suite, then the flip tests on flip compiled"
	@echo "make compile    both games' engines compiled with mypyc into build/compiled (flip/ and wildcards/ stay pure Python)"
	@echo "make test-compiled the flip and wildcards tests against build/compiled"
	@echo "make lint       ruff check, ruff format --check and the import contracts (lint-imports)"
	@echo "make format     ruff format and ruff check --fix"
	@echo "make typecheck  mypy --strict on every package"
	@echo "make bench      engine benchmark: 4 players, 10 seconds"
	@echo "make bench-engine flip, then classic Wild Cards, against RLCard's UNO, engine alone and with a view, pure and compiled (RLCARD_PYTHON)"
	@echo "make bench-sweep deadline sweep: 10,000 due among 10,000 and 100,000 active tables (PostgreSQL, Redis)"
	@echo "make bench-correspondence 200 turn-by-turn tables in accelerated time, scripted people: game hours and messages without and with autopilot and forced moves (PostgreSQL)"
	@echo "make bench-ratings 100,000 finished games of 2 to 10 seats rebuilt from their logs, the live rating of 1,000, the leaderboard at 100,000 players (PostgreSQL)"
	@echo "make bench-api  API load: actions vs a one-INSERT endpoint over gunicorn + PostgreSQL"
	@echo "make bench-realtime 200 real-time tables, Fast timers, scripted humans over WebSockets: timer lateness, pushes, CPU"
	@echo "make bench-streams 1,000 table streams and 1,000 event streams on one uvicorn (the streams' process; --server daphne to compare): CPU at rest and a move, a move's line latency (PostgreSQL, Redis)"
	@echo "make bench-web  server time of the web table page and its live update (PostgreSQL); a move's time to the other page, polling vs socket, and an idle page's CPU (daphne, Redis, Chromium)"
	@echo "make screenshots the browser tests, keeping their screenshots in docs/web/"
	@echo "make cluster-check 2 gunicorns, 2 workers (one SIGKILLed) and beat, 200 tables: exactly once"
	@echo "make memory     snapshot and move-log sizes, a gunicorn worker's memory after 5,000 actions"
	@echo "make connection-check daphne and gunicorn under a burst: PostgreSQL connections held, against their bound"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-install only when a requirements file or pyproject.toml changed.
$(STAMP): $(BIN)/python requirements/base.txt requirements/dev.txt pyproject.toml
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements/dev.txt
	touch $(STAMP)

venv: $(STAMP)

run: venv
	$(BIN)/python scripts/run_dev.py

worker: venv
	$(BIN)/celery -A gamenook worker -l info

beat: venv
	$(BIN)/celery -A gamenook beat -l info

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: venv
	$(BIN)/mypy tabletop flip wildcards
	$(BIN)/mypy games ratings notifications accounts live web gamenook

# The compiled build is made while ruff and mypy run (it takes about as long), then the suite
# on two processes (pytest-xdist: each its own test database and Redis databases,
# gamenook/settings/test.py), then the engine's tests on the build.
test: venv
	@mkdir -p build
	@$(BIN)/python scripts/compile_flip.py --out $(COMPILED) > build/compile.log 2>&1 & compiling=$$!; \
	if ! $(MAKE) --no-print-directory lint typecheck; then kill $$compiling; exit 1; fi; \
	if ! wait $$compiling; then cat build/compile.log; exit 1; fi; \
	tail -1 build/compile.log
	$(BIN)/pytest -n 2
	$(FLIP_COMPILED_TESTS)

# flip compiled with mypyc (scripts/compile_flip.py) in a tree of its own; flip/ stays the
# pure-Python reference. The flip tests need no Django; without pytest-django (which puts the
# checkout first on sys.path) and with --import-mode=append, the checkout's flip/ stays behind PYTHONPATH,
# and tests/flip/conftest.py refuses to run if the compiled modules were not the ones imported.
COMPILED := build/compiled
compile: venv
	$(BIN)/python scripts/compile_flip.py --out $(COMPILED)

# The bots' own tests (and the classic engine's doctests, which a compiled module has not) are
# left to the pure run: the bots are not compiled (scripts/compile_flip.py),
# and the engine under them is what the rest of tests/flip checks, the golden games among it.
FLIP_COMPILED_TESTS = PYTHONPATH=$(COMPILED) GAMENOOK_FLIP_COMPILED=1 $(BIN)/pytest -p no:django \
	--import-mode=append -W ignore::pytest.PytestConfigWarning -p no:cacheprovider tests/flip \
	--ignore=tests/flip/test_bots.py --ignore=tests/flip/test_bots_reading.py \
	--ignore=tests/flip/test_bots_robustness.py --ignore=tests/flip/test_bots_levels.py \
	tests/wildcards --ignore=tests/wildcards/test_bots.py --ignore=tests/wildcards/test_doctests.py
test-compiled: compile
	$(FLIP_COMPILED_TESTS)

bench: venv
	$(BIN)/python -m flip bench --players 4 --seconds 10

# RLCard is not a dependency: RLCARD_PYTHON is a scratch environment's Python that has it,
# made with `python3 -m venv /tmp/rl && /tmp/rl/bin/pip install rlcard==1.2.0`. Needs valgrind
# for the instruction counts (BENCH_ENGINE_FLAGS= to skip them).
RLCARD_PYTHON ?= /tmp/rl/bin/python
BENCH_ENGINE_FLAGS ?= --callgrind --compiled $(COMPILED)
bench-engine: compile
	$(RLCARD_PYTHON) scripts/bench_interleaved.py --players 4 --slices 20
	$(RLCARD_PYTHON) scripts/bench_interleaved.py --players 4 --slices 20 --flip-tree $(COMPILED)
	$(BIN)/python scripts/bench_engine.py --rlcard-python $(RLCARD_PYTHON) --players 4 --seconds 10 --runs 3 $(BENCH_ENGINE_FLAGS)
	$(RLCARD_PYTHON) scripts/bench_classic.py --players 4 --slices 20
	$(RLCARD_PYTHON) scripts/bench_classic.py --players 4 --slices 20 --tree $(COMPILED)

# Needs PostgreSQL (BENCH_PG, a server URL without database name; BENCH_API_DATABASE names
# the scratch database, default gamenook_bench, dropped afterwards) and an empty Redis
# database (BENCH_API_BROKER_URL, default redis://127.0.0.1:6379/15).
BENCH_PG ?= postgres://postgres@127.0.0.1:5432
bench-api: venv
	$(BIN)/python scripts/bench_api.py --server-url $(BENCH_PG) --seconds 10 --rounds 3 --clients 16 --tables 64

# Needs PostgreSQL and Redis: BENCH_DATABASE_URL names a scratch database (created if
# missing, emptied), BENCH_BROKER_URL an empty Redis database; BENCH_SWEEP_FLAGS=--million
# adds a run among 1,000,000 active tables (see scripts/bench_sweep.py --help).
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_bench_sweep
BENCH_BROKER_URL ?= redis://127.0.0.1:6379/14
bench-sweep: venv
	$(BIN)/python scripts/bench_sweep.py --database-url $(BENCH_DATABASE_URL) \
		--broker $(BENCH_BROKER_URL) $(BENCH_SWEEP_FLAGS)

# Needs PostgreSQL: BENCH_CORRESPONDENCE_DB names a scratch database (its name contains
# "bench"; created, cloned once per configuration, and dropped with its clones). Issue 38's
# "Measured": see scripts/bench_correspondence.py --help.
BENCH_CORRESPONDENCE_DB ?= postgres://postgres@127.0.0.1:5432/gamenook_bench_correspondence
BENCH_CORRESPONDENCE_FLAGS ?= --tables 200 --parallel
bench-correspondence: venv
	$(BIN)/python scripts/bench_correspondence.py --db-url $(BENCH_CORRESPONDENCE_DB) $(BENCH_CORRESPONDENCE_FLAGS)

# Needs PostgreSQL only: BENCH_RATINGS_DATABASE_URL names a scratch database (its name
# contains "bench"; dropped, made, and dropped at the end unless BENCH_RATINGS_FLAGS has
# --keep). Issue 39's "Measured" (docs/ratings-performance.md); the leaderboard's plans go
# to build/. About 30 minutes in a quiet hour; see scripts/bench_ratings.py --help.
BENCH_RATINGS_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_bench_ratings
BENCH_RATINGS_FLAGS ?= --check
bench-ratings: venv
	$(BIN)/python scripts/bench_ratings.py --database-url $(BENCH_RATINGS_DATABASE_URL) $(BENCH_RATINGS_FLAGS)

# Needs PostgreSQL: a scratch database whose name contains "bench" (created and dropped);
# then Redis (two databases of its own, flushed: the channel layer and the broker) and
# /usr/bin/chromium for the live updates (about 12 minutes; BENCH_WEB_FLAGS=--no-live skips them).
BENCH_WEB_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_bench_web
BENCH_WEB_CHANNEL_LAYER_URL ?= redis://127.0.0.1:6379/6
BENCH_WEB_BROKER_URL ?= redis://127.0.0.1:6379/10
bench-web: venv
	$(BIN)/python scripts/bench_web.py --database-url $(BENCH_WEB_DATABASE_URL) \
		--channel-layer-url $(BENCH_WEB_CHANNEL_LAYER_URL) --broker-url $(BENCH_WEB_BROKER_URL) $(BENCH_WEB_FLAGS)

# The browser tests write the PNGs docs/web.md shows.
screenshots: venv
	GAMENOOK_SCREENSHOTS=docs/web $(BIN)/pytest -m browser tests/web/

# Needs PostgreSQL and Redis: CLUSTER_DATABASE_URL names a scratch database (dropped and
# created), CLUSTER_BROKER_URL an empty Redis database. See docs/deploy.md.
CLUSTER_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_cluster
CLUSTER_BROKER_URL ?= redis://127.0.0.1:6379/12
cluster-check: venv
	$(BIN)/python scripts/cluster_check.py --database-url $(CLUSTER_DATABASE_URL) \
		--broker $(CLUSTER_BROKER_URL) $(CLUSTER_FLAGS)

# Needs PostgreSQL and Redis: CONNECTIONS_DATABASE_URL names a scratch database (dropped and
# created), CONNECTIONS_REDIS_URL a Redis database. See docs/deploy.md, "Connections".
CONNECTIONS_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_connections
CONNECTIONS_REDIS_URL ?= redis://127.0.0.1:6379/11
connection-check: venv
	$(BIN)/python scripts/connection_check.py --database-url $(CONNECTIONS_DATABASE_URL) \
		--redis $(CONNECTIONS_REDIS_URL) $(CONNECTION_CHECK_FLAGS)

# Snapshot sizes (flip alone), the move log in PostgreSQL and a gunicorn worker's memory
# over 5,000 actions; MEMORY_SERVER_URL is a PostgreSQL server (a scratch database is made).
MEMORY_SERVER_URL ?= postgres://postgres@127.0.0.1:5432
memory: venv
	$(BIN)/python scripts/memory.py --server-url $(MEMORY_SERVER_URL) $(MEMORY_FLAGS)

# Needs PostgreSQL and Redis: BENCH_REALTIME_DATABASE_URL names a scratch database (created
# if missing, emptied); Redis databases 8 (broker) and 9 (channel layer) must be empty.
BENCH_REALTIME_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_bench_realtime
BENCH_REALTIME_FLAGS ?= --tables 200 --seconds 120 --timer fast --daphnes 2 --workers 1
bench-realtime: venv
	$(BIN)/python scripts/bench_realtime.py --database-url $(BENCH_REALTIME_DATABASE_URL) $(BENCH_REALTIME_FLAGS)

# Needs PostgreSQL and Redis: BENCH_STREAMS_DATABASE_URL names a scratch database (dropped and
# made again); Redis databases 10 (broker) and 11 (channel layer) must be empty. Issue 40's
# "Measured" (docs/performance.md, "Streams"); see scripts/bench_streams.py --help.
BENCH_STREAMS_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/gamenook_bench_streams
BENCH_STREAMS_FLAGS ?= --tables 250 --seats 4 --rest 60 --moves 600 --blocks 4
bench-streams: venv
	$(BIN)/python scripts/bench_streams.py --database-url $(BENCH_STREAMS_DATABASE_URL) $(BENCH_STREAMS_FLAGS)
