# The two commands of the README: `make demo` and `make test`. Each creates .venv if needed.
# `make demo` installs scorekit with its report extra, so the demo writes its HTML report.
# `make docs` builds the documentation site into build/site (open build/site/index.html).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[report]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,docs]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/scorekit demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff format --check src tests benchmarks docs/_gen
	$(BIN)/ruff check src tests benchmarks docs/_gen
	$(BIN)/mypy
	$(BIN)/lint-imports

docs: $(VENV)/.installed-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

test: lint
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/site
	$(BIN)/python -m pytest -q -n auto --dist worksteal --durations=15

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .hypothesis
