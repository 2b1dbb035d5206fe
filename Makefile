# The two commands of the README:
#   make play   — a complete match among bots through the whole pipeline (in-process; REDIS=url for Redis)
#   make test   — install everything (Redis 7.4 and promtool into ~/.cache/airship), start Redis if none runs,
#                 lint, type-check and run every test
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
GAME   ?= moderne-zeiten
PLAYERS ?= 4
SEED   ?= 7
ARGS   ?=
export AIRSHIP_TEST_REDIS_URL ?= redis://127.0.0.1:6379/9

.PHONY: play test test-fast lint install schemas screenshots bench clean

$(BIN)/airship: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]' -c constraints.txt
	touch $@

install: $(BIN)/airship

play: install
	$(BIN)/airship play --game $(GAME) --players $(PLAYERS) --seed $(SEED) $(if $(REDIS),--redis $(REDIS)) $(ARGS)

lint: install
	$(BIN)/ruff check services schemas tests conftest.py
	$(BIN)/mypy
	$(BIN)/airship schemas check

test: lint
	bash infra/dev/ensure-redis.sh
	bash infra/dev/install-prometheus-tools.sh >/dev/null
	bash infra/dev/ensure-node.sh
	bash infra/dev/ensure-chromium.sh
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations=25

# for iterating: no random playouts, chaos or whole-stack gateway runs (CI runs everything with `make test`)
test-fast: install
	bash infra/dev/ensure-redis.sh
	$(BIN)/python -m pytest -m "not slow and not gateway" -q

# every page and state of the web app at 1366x768 and 390x844, checked with axe-core, and the README's
# tables, spectators and replays of each game (played in the browser), into docs/screenshots
screenshots: install
	bash infra/dev/ensure-redis.sh
	bash infra/dev/ensure-node.sh
	bash infra/dev/ensure-chromium.sh
	AIRSHIP_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/web/test_every_page.py tests/web/test_browser.py

schemas: install
	$(BIN)/airship schemas export

bench: install
	$(BIN)/airship bench reducers

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
