# dataslate — run `make help` for the targets.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
INPUTS ?= raw/pages
OUT    ?= curated
REF    ?= main

.DEFAULT_GOAL := help
.PHONY: help install run test lint typecheck bench fetch fetch-bsdata parse quality clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install the pinned dependencies (requirements.lock)

run: $(STAMP) ## Run the whole pipeline on raw/ and publish to curated/
	$(BIN)/dataslate run

test: $(STAMP) ## Run the test suite (needs ../shared/data or DATASLATE_DATA)
	$(BIN)/pytest -q

lint: $(STAMP) ## ruff + mypy strict on pipeline/ and schemas/
	$(BIN)/ruff check pipeline schemas tests bench
	$(BIN)/mypy

typecheck: $(STAMP) ## mypy strict only
	$(BIN)/mypy

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
