"""Stage package: dedupe."""
