# The Arena: `make run` to play, `make test` to check. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Django 6.1 needs Python 3.12+: the first suitable interpreter on PATH or in pyenv.
PYTHON ?= $(shell scripts/find-python.sh)

# Variables from .env reach the app (and only those: a blanket `export` would hand HOST and PORT
# to every subprocess, and servers such as llama_cpp.server read PORT from the environment).
ifneq (,$(wildcard .env))
include .env
export $(shell sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' .env)
endif

.PHONY: help venv run serve migrate seed test test-fast test-services lint format bench worker clean

help:
	@echo "make run       set up and start the app on http://$(HOST):$(PORT) (SQLite, in-memory layer, demo logins)"
	@echo "make serve     the same on WORKERS processes (default: one per core); needs DATABASE_URL + REDIS_URL"
	@echo "make test      set up and run the whole suite (twice over storage/messaging when TEST_DATABASE_URL/TEST_REDIS_URL are set)"
	@echo "make lint      ruff format check, ruff check, mypy, import contracts"
	@echo "make bench     print speed and memory figures"
	@echo "make worker    start a Celery worker (needs REDIS_URL)"

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@test -n "$(PYTHON)" || { echo "error: Python 3.12 or newer is needed (set PYTHON=/path/to/python3.12)"; exit 2; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $@

venv: $(VENV)/.installed

migrate: venv
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo

# The demo is seeded once the model server answers: its study opens only if its LLM conditions do.
# `make run` serves as a study on this machine would: DEBUG off, so nobody (a participant least of
# all) meets Django's technical pages, which list the site's URLs and settings; plain HTTP (no
# HTTPS redirect, cookies not HTTPS-only); a secret key made once in var/. `make run DEBUG=true`
# shows tracebacks and reloads static files while you develop.
RUN_ENV = DEBUG=$${DEBUG:-false} SECURE_COOKIES=$${SECURE_COOKIES:-false} \
	SECURE_SSL_REDIRECT=$${SECURE_SSL_REDIRECT:-false} SECURE_HSTS_SECONDS=$${SECURE_HSTS_SECONDS:-0} \
	SECRET_KEY="$${SECRET_KEY:-$$(cat var/secret_key)}"

run: migrate
	$(PY) manage.py check_services
	@mkdir -p var; test -s var/secret_key || $(PY) -c "import secrets; print(secrets.token_urlsafe(50))" > var/secret_key
	$(RUN_ENV) $(PY) manage.py collectstatic --noinput -v0
	@echo "The Arena is at http://$(HOST):$(PORT)/  (Ctrl+C stops it)"
	$(RUN_ENV) exec $(PY) -m arena_site.with_model -- sh -c '$(PY) manage.py seed_demo && exec $(VENV)/bin/daphne -b $(HOST) -p $(PORT) arena_site.asgi:application'

# Several uvicorn worker processes on one port (each its own SO_REUSEPORT socket): the way to use
# more cores. Needs DATABASE_URL (Postgres) and REDIS_URL when WORKERS > 1; arena_site/serve.py says why.
serve: migrate
	$(PY) manage.py check_services
	@echo "The Arena is at http://$(HOST):$(PORT)/ on $${WORKERS:-$$(nproc)} worker process(es) (Ctrl+C stops it)"
	$(PY) -m arena_site.with_model -- $(PY) -m arena_site.serve --host $(HOST) --port $(PORT) $(if $(WORKERS),--workers $(WORKERS))

worker: venv
	@test -n "$(REDIS_URL)" || { echo "error: REDIS_URL is not set; without it tasks run in-process and no worker is needed"; exit 2; }
	$(PY) -m arena_site.with_model --join -- $(VENV)/bin/celery -A arena_site worker -l info

test: venv
	scripts/test-tools.sh
	$(PY) -m pytest $(PYTEST_ARGS)
	@if [ -n "$(TEST_DATABASE_URL)" ] && [ -n "$(TEST_REDIS_URL)" ]; then \
	  echo "== again on Postgres + Redis: tests that touch storage or messaging"; \
	  DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) -m pytest -m services $(PYTEST_ARGS); \
	else echo "(set TEST_DATABASE_URL and TEST_REDIS_URL to also run the Postgres + Redis pass)"; fi

test-fast: venv
	$(PY) -m pytest -m "not browser and not llm and not slow" -x $(PYTEST_ARGS)

test-services: venv
	DATABASE_URL=$${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/arena} REDIS_URL=$${TEST_REDIS_URL:-redis://127.0.0.1:6379/0} $(PY) -m pytest -m services $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy games studies annotations accounts arena_site bench
	$(VENV)/bin/lint-imports

format: venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: venv
	$(PY) -m bench

clean:
	rm -rf $(VENV) var
