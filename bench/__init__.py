"""Benchmarks (`make bench`): a package, so imports and mypy name its modules `bench.*`."""
