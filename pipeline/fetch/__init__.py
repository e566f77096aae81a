"""Stage package: fetch (the polite scraper of the Wahapedia export, the BSData archive download)."""

from pipeline.fetch.bsdata import BsdataReport, fetch_bsdata
from pipeline.fetch.wahapedia import FetchReport, FileResult, fetch_wahapedia

__all__ = ["BsdataReport", "FetchReport", "FileResult", "fetch_bsdata", "fetch_wahapedia"]
