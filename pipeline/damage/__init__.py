"""Stage package: damage."""
