# Every target sets itself up: a fresh machine needs only python3 (3.11+).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Every package setup installs, pinned with hashes (the dev and bench extras, for Python 3.11 on Linux): CI and
# every checkout get the same versions. `make lock` writes it from pyproject.toml.
LOCK := requirements.lock
UV_TOOL := build/uv
UV := $(UV_TOOL)/bin/uv

.PHONY: setup test lint typecheck run plain bench clean e2e mutation lock web

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .  # kwx itself, built by the locked setuptools
	touch $(STAMP)

setup: $(STAMP)

lint: $(STAMP)
	$(PY) -m ruff check .

# mypy --strict over what [tool.mypy] names in pyproject.toml: kwx, cogs and bot.py.
typecheck: $(STAMP)
	$(PY) -m mypy

# The tests run on every core (pytest-xdist): each worker has its own temporary files and PostgreSQL schemas.
test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -n auto

run: $(STAMP)
	$(PY) bot.py

# The terminal table's line-by-line mode (screen readers, scripts), whether or not DISCORD_TOKEN is set.
plain: $(STAMP)
	$(PY) -m kwx play --plain

# Speed, separate from the tests (several minutes): each prints one JSON object.
bench: $(STAMP)
	$(PY) -m benchmarks.engine --json
	$(PY) -m benchmarks.game --json
	$(PY) -m benchmarks.ai_outcomes --json
	$(PY) -m benchmarks.ledger --json
	$(PY) -m benchmarks.tables --json
	$(PY) -m benchmarks.discord_load --json
	$(PY) -m benchmarks.lifecycle --json
	$(PY) -m benchmarks.discord_e2e --json
	$(PY) -m benchmarks.web --json

# Mutation testing (mutmut; slow, not in CI): each target of scripts/mutation.py mutates one module against its
# own test folder and reports the share of mutants the tests kill. `make mutation TARGETS=payments` runs one.
mutation: $(STAMP)
	$(PY) -m scripts.mutation $(TARGETS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache build/mutation $(UV_TOOL)

# Refresh requirements.lock after changing the dependencies in pyproject.toml: versions already locked stay
# where the ranges allow (`make lock UPGRADE=1` takes the newest releases within them). uv resolves for Python
# 3.11 on Linux whatever machine runs it; it lives in its own virtualenv under build/, not in the project's.
$(UV):
	$(PYTHON) -m venv $(UV_TOOL)
	$(UV_TOOL)/bin/python -m pip install --quiet 'uv>=0.13,<0.14'

lock: $(UV)
	$(UV) pip compile pyproject.toml --extra dev --extra bench --python-version 3.11 \
		--python-platform x86_64-unknown-linux-gnu --generate-hashes --quiet \
		--custom-compile-command 'make lock' $(if $(UPGRADE),--upgrade) -o $(LOCK)

# Discord's Embedded App SDK for the table page, bundled once into kwx/web/static/discord-sdk.js (committed, so
# `make run` and `make test` need no Node): the versions in websdk/package-lock.json, from the npm registry.
web:
	cd websdk && npm ci --no-audit --no-fund
	websdk/node_modules/.bin/esbuild websdk/entry.js --bundle --minify --format=iife --target=es2020 \
		--legal-comments=none --outfile=kwx/web/static/discord-sdk.js

# The real bot process against the loopback Discord (kwx/devtools/loopback): one short game, one JSON line.
# KWX_* settings reach the bot (not KWX_DB or KWX_LANG: a fresh store, a player who reads English):
# `make e2e KWX_METRICS_PORT=9108 HOLD=120` reports what /healthz and /metrics answered, then keeps the bot up
# 120 s to watch them with curl.
e2e: $(STAMP)
	$(PY) -m kwx.devtools.loopback --json $(if $(HOLD),--hold $(HOLD))
