# dicehall: `make serve` runs the site, `make test` runs every check.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup bytecode chromium test lint typecheck pytest play serve bench golden clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The package's bytecode, compiled ahead as an installed wheel's is: with
# PYTHONDONTWRITEBYTECODE set, every server and command the tests start would otherwise
# compile all of it again (up to date files are skipped).
bytecode: setup
	$(BIN)/python -m compileall -q src

# Browser tests drive Debian's Chromium; install it when it is missing (needs root or sudo).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium fonts-dejavu-core; }

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: setup
	$(BIN)/mypy

# Two xdist workers already keep both cores busy: Numba's own threads on top would starve the
# live servers whose answers the timing tests measure, so each worker's solver runs on one.
pytest: setup bytecode chromium
	NUMBA_NUM_THREADS=1 $(BIN)/pytest -n 2 --durations=25

test: lint typecheck pytest

play: setup
	$(BIN)/dicehall play tenthousand

serve: setup bytecode
	$(BIN)/dicehall serve

bench: setup
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f; done

golden: setup
	$(BIN)/python -m tests.golden.record

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
