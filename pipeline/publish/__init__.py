"""Stage package: publish."""
