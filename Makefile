# Every target sets itself up: a fresh machine needs only python3 (3.11+).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup test lint run bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $(STAMP)

setup: $(STAMP)

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest

run: $(STAMP)
	$(PY) bot.py

bench: $(STAMP)
	$(PY) -m benchmarks.engine --json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
