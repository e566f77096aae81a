"""Stage package: quality."""
