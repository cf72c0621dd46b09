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

# The workers write the test modules' bytecode (a machine may set PYTHONDONTWRITEBYTECODE): each worker
# compiled every test module again otherwise, about 6 s of a two-worker run.
test: setup-test
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist worksteal

bench: setup-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) releasegate-demo build src/*.egg-info
