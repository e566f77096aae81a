"""Stage: versioned, atomic, deterministic releases (and diffs between them)."""
