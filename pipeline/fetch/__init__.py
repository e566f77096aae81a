"""Stage package: fetch (the polite scraper of the Wahapedia export)."""

from pipeline.fetch.wahapedia import FetchReport, FileResult, fetch_wahapedia

__all__ = ["FetchReport", "FileResult", "fetch_wahapedia"]
