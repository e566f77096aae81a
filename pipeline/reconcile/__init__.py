"""Stage package: reconcile."""
