# One command each: `make demo` sets up and writes a real report from the bundled example;
# `make test` sets up and runs the tests. Both install into ./.venv.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: setup setup-test demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

setup: $(BIN)/python
	bash scripts/install-system-deps.sh
	$(BIN)/python -m pip install -q -e .

setup-test: $(BIN)/python
	bash scripts/install-system-deps.sh --test
	$(BIN)/python -m pip install -q -e '.[test]'

demo: setup
	$(BIN)/releasegate demo releasegate-demo

test: setup-test
	$(BIN)/python -m pytest -n auto --dist worksteal

bench: setup-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) releasegate-demo build src/*.egg-info
