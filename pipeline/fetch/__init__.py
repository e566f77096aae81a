"""Stage package: fetch."""
