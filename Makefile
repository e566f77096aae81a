# dataslate — run `make help` for the targets.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
INPUTS ?= raw/pages
OUT    ?= curated
REF    ?= main
LOCKS  := requirements.lock requirements-dev.lock
# `make lock` keeps the current pins where pyproject allows them; `make lock LOCK_ARGS=--upgrade` takes the newest.
LOCK_ARGS ?=
# Test processes (pytest-xdist); tests of one module share a worker and its fixtures. 0 runs in-process.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadscope
LOCK_FLAGS := --python-version 3.11 --universal --generate-hashes --custom-compile-command "make lock" $(LOCK_ARGS)

.DEFAULT_GOAL := help
.PHONY: help install lock run test test-fast lint typecheck format bench fetch fetch-bsdata parse quality clean

help: ## List the targets (coloured on a terminal only)
	@on=; off=; if [ -t 1 ] && [ -z "$${NO_COLOR:-}" ]; then on='\033[36m'; off='\033[0m'; fi; \
	grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
	awk -v on="$$on" -v off="$$off" 'BEGIN {FS = ":.*## "}; {printf "  %s%-12s%s %s\n", on, $$1, off, $$2}'

$(STAMP): $(LOCKS) pyproject.toml
	$(PYTHON) -m venv --clear $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock -r requirements-dev.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP) ## Create .venv from the hashed locks (runtime + dev), exactly

lock: $(STAMP) ## Regenerate the hashed locks from pyproject (uv): requirements.lock, requirements-dev.lock
	$(BIN)/uv pip compile pyproject.toml $(LOCK_FLAGS) -o requirements.lock
	$(BIN)/uv pip compile --group dev $(LOCK_FLAGS) --constraints requirements.lock -o requirements-dev.lock

run: $(STAMP) ## Run the whole pipeline on raw/ and publish to curated/
	$(BIN)/dataslate run

test: $(STAMP) ## Run every test on TEST_WORKERS processes (needs ../shared/data or DATASLATE_DATA)
	$(PYTEST)

test-fast: $(STAMP) ## The inner loop: every test but the whole-corpus ones (-m "not slow")
	$(PYTEST) -m "not slow"

lint: $(STAMP) ## ruff check, ruff format --check, mypy (strict on pipeline/ schemas/, relaxed on tests/ bench/)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

typecheck: $(STAMP) ## mypy only (as in lint)
	$(BIN)/mypy

format: $(STAMP) ## Rewrite the tree: ruff format + ruff check --fix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

fetch: $(STAMP) ## Stage: download the Wahapedia export into raw/wahapedia/ (network)
	$(BIN)/dataslate fetch wahapedia --into raw/wahapedia

fetch-bsdata: $(STAMP) ## Stage: download the BSData catalogues (REF=main) into raw/bsdata/ (network)
	$(BIN)/dataslate fetch bsdata --into raw/bsdata --ref $(REF)

parse: $(STAMP) ## Stage: parse the inputs (INPUTS=raw/pages) and print record counts
	$(BIN)/dataslate parse $(INPUTS)

quality: $(STAMP) ## Stage: re-run the quality gates on curated/latest (report in curated-quality/)
	$(BIN)/dataslate quality --release $(OUT) --report curated-quality

bench: $(STAMP) ## Benchmarks (parse, damage matrix, ...): prints medians
	$(BIN)/python bench/run.py

clean: ## Remove generated output (curated/ releases, caches)
	find curated -mindepth 1 ! -name .gitkeep -exec rm -rf {} +
	rm -rf curated-quality .pytest_cache .mypy_cache .ruff_cache
