# dicehall: `make serve` runs the site, `make test` runs every check.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# uv installs the lock (uv.lock); it is itself pinned, with hashes, in tools/uv-requirements.txt
# and lives in a venv of its own, so the project's venv holds exactly what the lock names.
TOOLS := .tools
UV := $(TOOLS)/bin/uv
UV_ENV := UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT=$(VENV)

.PHONY: setup lock bytecode chromium tables test lint typecheck pytest play serve bench golden screenshots clean

setup: $(STAMP)

$(UV): tools/uv-requirements.txt
	test -x $(TOOLS)/bin/python || $(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --require-hashes --no-deps -r tools/uv-requirements.txt
	touch $(UV)

# --locked: exactly the lock, and an error (not a new resolution) when pyproject.toml and
# uv.lock disagree; exact by default, so a package the lock does not name is removed.
$(STAMP): pyproject.toml uv.lock $(UV)
	$(UV_ENV) $(UV) sync --locked --extra dev --python $(PYTHON)
	touch $(STAMP)

# Refresh the lock on purpose: the newest releases pyproject.toml's ranges allow.
lock: $(UV)
	$(UV_ENV) $(UV) lock --upgrade --python $(PYTHON)

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
	$(UV_ENV) $(UV) lock --check --python $(PYTHON)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

# Two xdist workers already keep both cores busy: Numba's own threads on top would starve the
# live servers whose answers the timing tests measure, so each worker's solver runs on one.
# The Boatzee tables the tests share, built once per machine (keyed by the solver's sources;
# see tests/table_store.py): a few minutes the first time, a second after that.
tables: setup
	NUMBA_NUM_THREADS=1 $(BIN)/python -m tests.games.boatzee.solved

# PYTHONDONTWRITEBYTECODE (set on some machines) would make every worker rewrite and compile
# each test module again, and every server and command the tests start compile its imports.
pytest: setup bytecode chromium tables
	env -u PYTHONDONTWRITEBYTECODE NUMBA_NUM_THREADS=1 $(BIN)/pytest -n 2 --durations=25

test: lint typecheck pytest

play: setup
	$(BIN)/dicehall play tenthousand

serve: setup bytecode
	$(BIN)/dicehall serve

bench: setup
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f; done

golden: setup
	$(BIN)/python -m tests.golden.record

# The pictures of the Features and tips page (static/features/*.jpg), taken again in Chromium
# at phone width from the table in web/features.py; commit them with the change they show.
screenshots: setup chromium
	DICEHALL_SHOOT_FEATURES=1 $(BIN)/pytest tests/web/test_feature_screenshots.py -p no:cacheprovider

clean:
	rm -rf $(VENV) $(TOOLS) .mypy_cache .pytest_cache .ruff_cache .hypothesis
