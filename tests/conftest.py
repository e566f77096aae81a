"""Shared fixtures: where the seeds and the real corpora are.

The real corpora are found through DATASLATE_DATA (default ../shared/data). If
they are missing the tests fail loudly: they are never skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import config


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = config.shared_data_dir()
    if not (path / "wahapedia-10e").is_dir():
        pytest.fail(f"real data not found at {path}: set DATASLATE_DATA", pytrace=False)
    return path


@pytest.fixture(scope="session")
def wahapedia_dir(data_dir: Path) -> Path:
    return data_dir / "wahapedia-10e"


@pytest.fixture(scope="session")
def bsdata_dir(data_dir: Path) -> Path:
    return data_dir / "bsdata-10e"


@pytest.fixture(scope="session")
def pages_dir() -> Path:
    return config.RAW_PAGES_DIR


WAZDAKKA = config.RAW_PAGES_DIR / "000_2e2c183ddf21453e.txt"
AVENGER = config.RAW_PAGES_DIR / "002_6cc6c763f2509c79.txt"
INVOCATUS = config.RAW_PAGES_DIR / "003_39e7b05ac4966267.txt"
