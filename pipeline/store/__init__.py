"""Stage package: store."""
