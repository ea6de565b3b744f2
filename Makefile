# Verbs for working on Gamenook. Everything runs from .venv; no activation needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help venv run test lint format typecheck bench

help:
	@echo "make run        install into .venv, migrate, serve on http://127.0.0.1:8000"
	@echo "make test       install, then ruff, mypy and the whole test suite"
	@echo "make lint       ruff check and ruff format --check"
	@echo "make format     ruff format and ruff check --fix"
	@echo "make typecheck  mypy (strict on flip/)"
	@echo "make bench      engine benchmark: 4 players, 10 seconds"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-install only when a requirements file or pyproject.toml changed.
$(STAMP): $(BIN)/python requirements/base.txt requirements/dev.txt pyproject.toml
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -r requirements/dev.txt
	touch $(STAMP)

venv: $(STAMP)

run: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runserver 127.0.0.1:8000

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: venv
	$(BIN)/mypy flip
	$(BIN)/mypy games notifications gamenook

test: lint typecheck
	$(BIN)/pytest

bench: venv
	$(BIN)/python -m flip bench --players 4 --seconds 10
