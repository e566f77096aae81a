"""Every path and default of the pipeline, in one place.

Paths are resolved from the repository root so the pipeline behaves the same
from any working directory; `DATASLATE_DATA` points tests and benchmarks at the
real corpora (read-only, never copied into the repository).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Immutable input snapshots; the pipeline never writes here.
RAW_DIR = REPO_ROOT / "raw"
RAW_PAGES_DIR = RAW_DIR / "pages"
RAW_WAHAPEDIA_DIR = RAW_DIR / "wahapedia"
RAW_BSDATA_DIR = RAW_DIR / "bsdata"

#: Published output; everything here can be rebuilt.
CURATED_DIR = REPO_ROOT / "curated"

#: Great Expectations suites, one JSON file per curated table.
EXPECTATIONS_DIR = REPO_ROOT / "expectations"

#: Reference target profiles shipped with the project.
REFERENCE_PROFILES_FILE = REPO_ROOT / "pipeline" / "damage" / "reference_profiles.json"

#: Name of the DuckDB file inside a release.
DUCKDB_FILENAME = "dataslate.duckdb"

#: Name of the pointer to the newest release inside an output folder.
LATEST_NAME = "latest"


def shared_data_dir() -> Path:
    """The real corpora (`../shared/data` unless `DATASLATE_DATA` says otherwise)."""
    default = REPO_ROOT.parent / "shared" / "data"
    return Path(os.environ.get("DATASLATE_DATA", str(default))).resolve()


def wahapedia_dir() -> Path:
    return shared_data_dir() / "wahapedia-10e"


def bsdata_dir() -> Path:
    return shared_data_dir() / "bsdata-10e"


#: The cache folder inside an output folder (never published: releases are its siblings).
CACHE_DIRNAME = ".cache"


def cache_dir(out: Path) -> Path | None:
    """Where runs cache their work: `DATASLATE_CACHE` (`off` for none), else `<out>/.cache`."""
    chosen = os.environ.get("DATASLATE_CACHE", "")
    if chosen.lower() == "off":
        return None
    return Path(chosen).resolve() if chosen else out / CACHE_DIRNAME


#: Wahapedia export: the file list the scraper knows (and only these).
WAHAPEDIA_FILES: tuple[str, ...] = (
    "Abilities.csv",
    "Datasheets.csv",
    "Datasheets_abilities.csv",
    "Datasheets_detachment_abilities.csv",
    "Datasheets_enhancements.csv",
    "Datasheets_keywords.csv",
    "Datasheets_leader.csv",
    "Datasheets_models.csv",
    "Datasheets_models_cost.csv",
    "Datasheets_options.csv",
    "Datasheets_stratagems.csv",
    "Datasheets_unit_composition.csv",
    "Datasheets_wargear.csv",
    "Detachment_abilities.csv",
    "Enhancements.csv",
    "Factions.csv",
    "Source.csv",
    "Stratagems.csv",
)

#: Default base URL of the Wahapedia export (overridable on the command line).
WAHAPEDIA_BASE_URL = "https://wahapedia.ru/wh40k10ed/"

#: BSData repository archives: `<base>/<ref>.tar.gz` (GitHub style; overridable on the command line).
BSDATA_ARCHIVE_BASE_URL = "https://github.com/BSData/wh40k-10e/archive/"
BSDATA_REF = "main"
#: GitHub answers an archive URL with a redirect to codeload: the one other origin a fetch may follow.
BSDATA_REDIRECT_ORIGINS: tuple[str, ...] = ("https://codeload.github.com",)

#: Source precedence when reconciling (pipeline/reconcile/precedence.py): the freshest source wins.
#: Keys are a source format or one source_id; values are ISO dates, None = date unknown.
#: A datasheet's date is, in this order: SOURCE_DATES[its source_id]; its own `source_date` (Wahapedia:
#: the errata date of its publication in Source.csv); its Source record's `source_date` (Wahapedia: the
#: newest errata date of the export); SOURCE_DATES[its format]; else unknown, which ranks lowest.
#: bsdata: the June 2026 snapshot the data folder's README names (the catalogues carry no date).
#: wahapedia_csv: the July 2025 snapshot (newest errata date in Source.csv), used if the parser gives none.
#: page_export: the page text carries no date, so it is unknown unless configured here.
SOURCE_DATES: dict[str, str | None] = {
    "bsdata": "2026-06-01",
    "wahapedia_csv": "2025-07-09",
    "page_export": None,
}

#: Faction names that differ across sources -> the name they are matched under (compared folded:
#: case, quotes, dashes and accents ignored). BSData catalogue names lose their "Chaos - " /
#: "Imperium - " / "Xenos - " prefix and "Library" part before this lookup.
FACTION_ALIASES: dict[str, str] = {
    "Agents of the Imperium": "Imperial Agents",
    "Craftworlds": "Aeldari",
    "Ynnari": "Aeldari",
    "Harlequins": "Aeldari",
    "Adeptus Astartes": "Space Marines",
    "Blood Angels": "Space Marines",
    "Dark Angels": "Space Marines",
    "Space Wolves": "Space Marines",
    "Black Templars": "Space Marines",
    "Deathwatch": "Space Marines",
    "Heretic Astartes": "Chaos Space Marines",
    "Daemons": "Chaos Daemons",
    "Legiones Daemonica": "Chaos Daemons",
    "Questor Traitoris": "Chaos Knights",
    "Questor Imperialis": "Imperial Knights",
    "Adeptus Ministorum": "Adepta Sororitas",
    "Tau Empire": "T'au Empire",
}

#: `dataslate sql` (and every reader of a published release, pipeline/publish/query.py): limits of the
#: sandboxed DuckDB connection. The time limit stops a statement (DuckDB has no server-side timeout);
#: the memory limit bounds DuckDB's working memory (nothing spills to disk) and the rows kept in Python.
SQL_TIMEOUT_SECONDS = 60.0
SQL_MEMORY_LIMIT = "2GB"
SQL_THREADS = min(4, os.cpu_count() or 1)
#: Decimals `dataslate sql` shows for floats in its table (--json and --csv print them whole).
SQL_FLOAT_DIGITS = 3

#: Input bounds (pipeline/sources/inputs.py, docs/sources.md#input-limits). Far above the real data: the
#: largest file is 3.8 MB (a BSData catalogue), the largest Wahapedia table 1.5 MB with 61,511 rows, the
#: longest field 9,491 characters (an Abilities.csv description), the longest page-export line 906.
#: A file above a cap is refused whole (a quarantine row, nothing of it read); a field or line above
#: MAX_INPUT_FIELD_CHARS quarantines its row (a BSData catalogue with such a value is refused whole).
MAX_INPUT_FILE_BYTES = 64 * 1024 * 1024
MAX_INPUT_FIELD_CHARS = 100_000
MAX_INPUT_ROWS = 1_000_000

#: Release gates against the previous release in the same output folder (pipeline/quality/release_checks.py):
#: a table or input file losing more than this fraction of its rows blocks publishing (1.0: never).
MAX_ROW_DROP = 0.5

#: Inputs of at most this many bytes run GX and render the site in helper processes (docs/scaling.md#the-helper-
#: process): the three corpora hold ≈ 35 MB. Larger inputs keep that work in the run's process, whose memory the
#: helpers' copies (GX and pandas, the site's tables) would add to.
HELPER_MAX_INPUT_BYTES = 64 * 2**20

#: Unit matchups (pipeline/matchups, docs/units.md#integration): engine worker processes (the budget is 2
#: cores), whether the unit x unit partitions keep each pair's distribution (measured: they would grow past
#: the contract's few hundred MB, so no; `unit_vs_reference` always keeps it), the scenarios the
#: reference slice covers.
MATCHUP_WORKERS = min(2, os.cpu_count() or 1)
MATCHUP_KEEP_DISTRIBUTION = False
#: Scenarios of the published unit x unit table (the others on demand: `dataslate matchup --scenario`).
MATCHUP_SCENARIOS: tuple[str, ...] = ("default",)
#: Pairs per phase in one `unit_matchups` file (a faction's attackers are chunked): bounds one result's memory.
MATCHUP_MAX_PAIRS = 500_000
MATCHUP_REFERENCE_SCENARIOS: tuple[str, ...] = ("default", "half_range", "charged", "stationary", "cover")
